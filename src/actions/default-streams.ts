// Default channels (new users join them): POST and DELETE /default_streams, with default_streams events.
import type { AppContext } from '../context.js';
import type { Realm, User } from '../store/schema.js';
import type { Tx } from '../store/store.js';
import { badRequest } from '../core/api-error.js';
import { Role } from '../models/roles.js';
import { accessStreamById } from '../lib/streams/access.js';
import { defaultStreamIds } from '../lib/streams/administer.js';
import { to, writeWithEvents, type Outgoing } from '../events/publish.js';

/** The default_streams event with the organization's whole list, for every active user but guests. */
export async function defaultStreamsEvent(tx: Tx, realmId: number): Promise<Outgoing> {
  // Not to guests, whose state lists none (lib/state/channel-admin.ts).
  const users = await tx.selectFrom('users').select('id').where('realm_id', '=', realmId).where('is_active', '=', 1).where('role', '!=', Role.GUEST).execute();
  return to(users.map((u) => u.id), { type: 'default_streams', default_streams: await defaultStreamIds(tx, realmId) });
}

/** Adds or removes one channel; an unchanged list sends no event. Checks are the caller's. */
export async function setDefaultStream(tx: Tx, realmId: number, streamId: number, isDefault: boolean): Promise<boolean> {
  const current = await tx.selectFrom('default_streams').select('stream_id').where('realm_id', '=', realmId).where('stream_id', '=', streamId).executeTakeFirst();
  if (!!current === isDefault) return false;
  if (isDefault) await tx.insertInto('default_streams').values({ realm_id: realmId, stream_id: streamId }).execute();
  else await tx.deleteFrom('default_streams').where('realm_id', '=', realmId).where('stream_id', '=', streamId).execute();
  return true;
}

function requireAdmin(user: User): void {
  if (user.role > Role.ADMINISTRATOR) throw badRequest('Must be an organization administrator');
}

export async function doAddDefaultStream(app: AppContext, realm: Realm, actor: User, streamId: number): Promise<void> {
  requireAdmin(actor);
  await writeWithEvents(
    app,
    realm.id,
    async (tx) => {
      const { stream } = await accessStreamById(tx, actor, streamId);
      if (stream.invite_only) throw badRequest('Private channels cannot be made default.');
      if (stream.is_archived) throw badRequest('Archived channels cannot be made default.');
      return (await setDefaultStream(tx, realm.id, stream.id, true)) ? [await defaultStreamsEvent(tx, realm.id)] : [];
    },
    (events) => events,
  );
}

export async function doRemoveDefaultStream(app: AppContext, realm: Realm, actor: User, streamId: number): Promise<void> {
  requireAdmin(actor);
  await writeWithEvents(
    app,
    realm.id,
    async (tx) => {
      const { stream } = await accessStreamById(tx, actor, streamId);
      return (await setDefaultStream(tx, realm.id, stream.id, false)) ? [await defaultStreamsEvent(tx, realm.id)] : [];
    },
    (events) => events,
  );
}

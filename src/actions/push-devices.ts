// A user's devices: legacy push tokens (no event: no client state shows them) and logged-in devices (device events).
import type { AppContext } from '../context.js';
import type { Realm, User } from '../store/schema.js';
import { badRequest } from '../core/api-error.js';
import { writeWithEvents, to } from '../events/publish.js';
import { tokenDoesNotExist, type PushKind } from '../lib/push-devices.js';

/** Registers the token for the user; registering it again only updates its app ID. */
export async function doAddPushDevice(app: AppContext, user: User, kind: PushKind, token: string, appId: string | null): Promise<void> {
  await app.store.write(async (tx) => {
    const found = await tx.selectFrom('push_devices').select('id').where('user_id', '=', user.id).where('kind', '=', kind).where('token', '=', token).executeTakeFirst();
    if (found) await tx.updateTable('push_devices').set({ app_id: appId }).where('id', '=', found.id).execute();
    else await tx.insertInto('push_devices').values({ user_id: user.id, kind, token, app_id: appId, created_at: app.clock.now() }).execute();
  });
}

/** Removes one of the user's own tokens (another user's token "does not exist" for them). */
export async function doRemovePushDevice(app: AppContext, user: User, kind: PushKind, token: string): Promise<void> {
  await app.store.write(async (tx) => {
    const r = await tx.deleteFrom('push_devices').where('user_id', '=', user.id).where('kind', '=', kind).where('token', '=', token).executeTakeFirst();
    if (Number(r.numDeletedRows) === 0) throw tokenDoesNotExist();
  });
}

/** POST /register_client_device: a new device ID for the user; their other clients learn of it. */
export async function doRegisterClientDevice(app: AppContext, realm: Realm, user: User): Promise<number> {
  const { result: id } = await writeWithEvents(app, realm.id, async (tx) => {
    const row = await tx.insertInto('client_devices').values({ user_id: user.id, created_at: app.clock.now() }).returning('id').executeTakeFirstOrThrow();
    return row.id;
  }, (id) => [to([user.id], { type: 'device', op: 'add', device_id: id })]);
  return id;
}

/** POST /remove_client_device: only the user's own devices exist for them. */
export async function doRemoveClientDevice(app: AppContext, realm: Realm, user: User, deviceId: number): Promise<void> {
  await writeWithEvents(app, realm.id, async (tx) => {
    const r = await tx.deleteFrom('client_devices').where('id', '=', deviceId).where('user_id', '=', user.id).executeTakeFirst();
    if (Number(r.numDeletedRows) === 0) throw badRequest('Invalid device ID');
  }, () => [to([user.id], { type: 'device', op: 'remove', device_id: deviceId })]);
}

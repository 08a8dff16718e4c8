// Adding and removing a user's legacy push device tokens (no event: no client state shows them).
import type { AppContext } from '../context.js';
import type { User } from '../store/schema.js';
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

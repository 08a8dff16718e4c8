// Muting and unmuting users: the muted_users event to the muter, and muting marks the muted
// user's messages read for the muter (an update_message_flags event), as the original does.
import type { AppContext } from '../context.js';
import type { Realm, User } from '../store/schema.js';
import { badRequest } from '../core/api-error.js';
import { FLAG_BITS } from '../models/flags.js';
import { accessUserById, accessibleUserIds } from '../lib/users.js';
import { mutedUsersChanged, mutedUsersOf } from '../lib/muted-users.js';
import { writeWithEvents, to, type Outgoing } from '../events/publish.js';
import type { Tx } from '../store/store.js';
import { updateFlagsInTx } from './flags.js';

/** A user the muter may name: active or not, in their realm and visible to them; bots only where allowed. */
async function accessMutable(tx: Tx, realm: Realm, user: User, id: number, allowBots: boolean): Promise<User> {
  const target = await accessUserById(tx, realm.id, id, { allowDeactivated: true, allowBots });
  const access = await accessibleUserIds(tx, realm, user);
  if (access && !access.has(target.id)) throw badRequest('No such user');
  return target;
}

export async function doMuteUser(app: AppContext, realm: Realm, user: User, mutedId: number): Promise<void> {
  if (mutedId === user.id) throw badRequest('Cannot mute self');
  const now = app.clock.now();
  await writeWithEvents(app, realm.id, async (tx) => {
    const muted = await accessMutable(tx, realm, user, mutedId, false);
    const existing = await tx.selectFrom('muted_users').select('user_id').where('user_id', '=', user.id).where('muted_user_id', '=', muted.id).executeTakeFirst();
    if (existing) throw badRequest('User already muted');
    await tx.insertInto('muted_users').values({ user_id: user.id, muted_user_id: muted.id, realm_id: realm.id, date_muted: now }).execute();
    const events: Outgoing[] = [to([user.id], { type: 'muted_users', muted_users: await mutedUsersOf(tx, user.id) })];
    // Their unread messages to the muter become read.
    const unread = await tx
      .selectFrom('user_messages as um')
      .innerJoin('messages as m', 'm.id', 'um.message_id')
      .select('um.message_id')
      .where('um.user_id', '=', user.id)
      .where('m.sender_id', '=', muted.id)
      .where((eb) => eb(eb('um.flags', '&', FLAG_BITS.read), '=', 0))
      .orderBy('um.message_id')
      .execute();
    if (unread.length) {
      const marked = await updateFlagsInTx(tx, app.store.dialect, realm, user, unread.map((r) => r.message_id), 'add', 'read', false);
      events.push(...marked.outgoing);
    }
    return events;
  }, (events) => events);
  mutedUsersChanged(app, realm.id);
}

export async function doUnmuteUser(app: AppContext, realm: Realm, user: User, mutedId: number): Promise<void> {
  await writeWithEvents(app, realm.id, async (tx) => {
    const muted = await accessMutable(tx, realm, user, mutedId, false);
    const gone = await tx.deleteFrom('muted_users').where('user_id', '=', user.id).where('muted_user_id', '=', muted.id).executeTakeFirst();
    if (!Number(gone.numDeletedRows)) throw badRequest('User is not muted');
    return [to([user.id], { type: 'muted_users', muted_users: await mutedUsersOf(tx, user.id) })];
  }, (events) => events);
  mutedUsersChanged(app, realm.id);
}

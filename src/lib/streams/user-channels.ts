// Reads about another user's subscriptions, limited to what the viewer may see: a channel's
// subscribers, a user's subscribed channels, one subscription's status.
import type { Tx } from '../../store/store.js';
import type { Realm, User } from '../../store/schema.js';
import { ApiError } from '../../core/api-error.js';
import { accessibleUserIds, accessUserById } from '../users.js';
import { accessStreamById, canSeeStream, subscriberIds } from './access.js';
import { userSubscriptionRows } from './subscribers.js';

/** A user the viewer may know about (restricted viewers: only the users they can access). */
async function accessibleTarget(tx: Tx, realm: Realm, viewer: User, userId: number): Promise<User> {
  const target = await accessUserById(tx, realm.id, userId, { allowDeactivated: true });
  const accessible = await accessibleUserIds(tx, realm, viewer);
  if (accessible && !accessible.has(target.id)) throw new ApiError('No such user', 'BAD_REQUEST', 400);
  return target;
}

/** GET /streams/{id}/members: active subscribers of a channel whose metadata the viewer may see. */
export async function channelMembers(tx: Tx, viewer: User, streamId: number): Promise<number[]> {
  const { stream } = await accessStreamById(tx, viewer, streamId);
  return (await subscriberIds(tx, stream.id)).sort((a, b) => a - b);
}

/** GET /users/{id}/channels: the target's active subscriptions among channels the viewer may see. */
export async function userChannelIds(tx: Tx, realm: Realm, viewer: User, userId: number): Promise<number[]> {
  const target = await accessibleTarget(tx, realm, viewer, userId);
  const theirs = [...(await userSubscriptionRows(tx, target.id)).values()].filter((r) => r.active === 1).map((r) => r.stream_id);
  if (!theirs.length) return [];
  const streams = await tx.selectFrom('streams').selectAll().where('id', 'in', theirs).where('realm_id', '=', realm.id).execute();
  const mine = await userSubscriptionRows(tx, viewer.id);
  return streams.filter((s) => canSeeStream(viewer, s, mine.get(s.id)?.active === 1)).map((s) => s.id).sort((a, b) => a - b);
}

/** GET /users/{id}/subscriptions/{stream_id}: whether the target is subscribed to a channel the viewer may see. */
export async function subscriptionStatus(tx: Tx, realm: Realm, viewer: User, userId: number, streamId: number): Promise<boolean> {
  const target = await accessibleTarget(tx, realm, viewer, userId);
  const { stream } = await accessStreamById(tx, viewer, streamId);
  const row = await tx.selectFrom('subscriptions').select('active').where('user_id', '=', target.id).where('stream_id', '=', stream.id).executeTakeFirst();
  return row?.active === 1;
}

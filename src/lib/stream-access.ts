// Who may see a channel, its messages and its subscribers.
import type { Tx } from '../store/store.js';
import type { Stream, User } from '../store/schema.js';
import { Role } from '../models/roles.js';

export async function subscriberIds(tx: Tx, streamId: number): Promise<number[]> {
  const rows = await tx
    .selectFrom('subscriptions')
    .innerJoin('users', 'users.id', 'subscriptions.user_id')
    .select('subscriptions.user_id')
    .where('subscriptions.stream_id', '=', streamId)
    .where('subscriptions.active', '=', 1)
    .where('users.is_active', '=', 1)
    .execute();
  return rows.map((r) => r.user_id);
}

export async function isSubscribed(tx: Tx, userId: number, streamId: number): Promise<boolean> {
  const row = await tx
    .selectFrom('subscriptions')
    .select('id')
    .where('user_id', '=', userId)
    .where('stream_id', '=', streamId)
    .where('active', '=', 1)
    .executeTakeFirst();
  return !!row;
}

/** Whether the user can see the channel exists and its metadata (public channels: everyone but guests). */
export function canSeeStreamWithoutSubscription(user: Pick<User, 'role'>, stream: Pick<Stream, 'invite_only' | 'is_web_public'>): boolean {
  if (user.role === Role.GUEST) return false;
  if (!stream.invite_only) return true;
  return user.role <= Role.ADMINISTRATOR;
}

/** Users who may see a channel's subscriber list and receive its peer_add / peer_remove events. */
export async function streamPeerAudience(tx: Tx, stream: Pick<Stream, 'id' | 'realm_id' | 'invite_only'>): Promise<number[]> {
  const subs = await subscriberIds(tx, stream.id);
  const q = tx.selectFrom('users').select('id').where('realm_id', '=', stream.realm_id).where('is_active', '=', 1);
  const others = stream.invite_only
    ? await q.where('role', '<=', Role.ADMINISTRATOR).execute()
    : await q.where('role', '!=', Role.GUEST).execute();
  return [...new Set([...subs, ...others.map((o) => o.id)])];
}

// Who may see a channel, its content and its subscribers; lookups of channels by ID or name for a user.
import type { Tx } from '../../store/store.js';
import type { Stream, Subscription, User } from '../../store/schema.js';
import { ApiError, badRequest } from '../../core/api-error.js';
import { Role } from '../../models/roles.js';

type Viewer = Pick<User, 'id' | 'role'>;
type StreamFlags = Pick<Stream, 'invite_only' | 'is_web_public'>;

/**
 * Metadata access (the channel exists, its settings and subscribers): subscribers always; guests
 * nothing else; public channels every other user; private channels organization administrators.
 */
export function canSeeStream(user: Viewer, stream: StreamFlags, subscribed: boolean): boolean {
  if (subscribed) return true;
  if (user.role === Role.GUEST) return false;
  if (!stream.invite_only) return true;
  return user.role <= Role.ADMINISTRATOR;
}

/** Content access (messages and topics): subscribers, and non-guests for public channels. */
export function canAccessContent(user: Viewer, stream: StreamFlags, subscribed: boolean): boolean {
  if (subscribed) return true;
  return user.role !== Role.GUEST && !stream.invite_only;
}

export async function subscriptionRow(tx: Tx, userId: number, streamId: number): Promise<Subscription | undefined> {
  return tx.selectFrom('subscriptions').selectAll().where('user_id', '=', userId).where('stream_id', '=', streamId).executeTakeFirst();
}

export async function streamByName(tx: Tx, realmId: number, name: string): Promise<Stream | undefined> {
  return tx.selectFrom('streams').selectAll().where('realm_id', '=', realmId).where('name_key', '=', name.trim().toLowerCase()).executeTakeFirst();
}

export async function streamsByNames(tx: Tx, realmId: number, names: string[]): Promise<Map<string, Stream>> {
  const keys = [...new Set(names.map((n) => n.trim().toLowerCase()))];
  const out = new Map<string, Stream>();
  if (!keys.length) return out;
  const rows = await tx.selectFrom('streams').selectAll().where('realm_id', '=', realmId).where('name_key', 'in', keys).execute();
  for (const r of rows) out.set(r.name_key, r);
  return out;
}

export interface StreamAccess {
  stream: Stream;
  sub: Subscription | undefined;
  subscribed: boolean;
}

/** A channel the user can see, by ID; anything else is "Invalid channel ID" so existence is not leaked. */
export async function accessStreamById(tx: Tx, user: Pick<User, 'id' | 'role' | 'realm_id'>, streamId: number, opts: { requireContent?: boolean } = {}): Promise<StreamAccess> {
  const stream = await tx.selectFrom('streams').selectAll().where('id', '=', streamId).where('realm_id', '=', user.realm_id).executeTakeFirst();
  if (!stream) throw badRequest('Invalid channel ID');
  const sub = await subscriptionRow(tx, user.id, stream.id);
  const subscribed = sub?.active === 1;
  const ok = opts.requireContent ? canAccessContent(user, stream, subscribed) : canSeeStream(user, stream, subscribed);
  if (!ok) throw badRequest('Invalid channel ID');
  return { stream, sub, subscribed };
}

/** A channel the user can see, by name, for GET /get_stream_id. */
export async function accessStreamByName(tx: Tx, user: Pick<User, 'id' | 'role' | 'realm_id'>, name: string): Promise<StreamAccess> {
  const stream = await streamByName(tx, user.realm_id, name);
  const fail = () => badRequest(`Invalid channel name '${name}'`);
  if (!stream) throw fail();
  const sub = await subscriptionRow(tx, user.id, stream.id);
  const subscribed = sub?.active === 1;
  if (!canSeeStream(user, stream, subscribed)) throw fail();
  return { stream, sub, subscribed };
}

export const streamDoesNotExist = (name: string) => new ApiError(`Channel '${name}' does not exist`, 'STREAM_DOES_NOT_EXIST', 400, { stream: name });

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

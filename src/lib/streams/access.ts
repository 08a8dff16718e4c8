// Who may see a channel and its content, and lookups of channels by ID or name for a user.
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

// Who may read or post what: channel lookups, channel-history access, posting rights, and message access.
import type { Tx } from '../../store/store.js';
import type { Message, Stream, User } from '../../store/schema.js';
import { ApiError, badRequest } from '../../core/api-error.js';
import { Role } from '../../models/roles.js';
import { FLAG_BITS } from '../../models/flags.js';
import { canSeeStream, isSubscribed } from '../streams/access.js';
import { isUserInGroup } from '../groups.js';

export const invalidMessage = () => badRequest('Invalid message(s)');

/** IDs are 32-bit on PostgreSQL; larger client-supplied IDs name nothing and must not reach SQL. */
export const MAX_DB_ID = 2147483647;
export const isDbId = (n: number): boolean => Number.isSafeInteger(n) && n >= 0 && n <= MAX_DB_ID;

/** Flags of a message seen through channel history without a user_messages row. */
export const HISTORICAL_FLAGS = FLAG_BITS.read | FLAG_BITS.historical;

export async function streamById(tx: Tx, realmId: number, id: number): Promise<Stream | undefined> {
  if (!isDbId(id)) return undefined;
  return tx.selectFrom('streams').selectAll().where('id', '=', id).where('realm_id', '=', realmId).executeTakeFirst();
}

export async function streamByName(tx: Tx, realmId: number, name: string): Promise<Stream | undefined> {
  return tx.selectFrom('streams').selectAll().where('realm_id', '=', realmId).where('name_key', '=', name.trim().toLowerCase()).executeTakeFirst();
}

/** A channel named by ID or name, with the original's STREAM_DOES_NOT_EXIST errors. */
export async function requireStream(tx: Tx, realmId: number, ref: number | string): Promise<Stream> {
  if (typeof ref === 'number') {
    const s = await streamById(tx, realmId, ref);
    if (!s) throw noStreamWithId(ref);
    return s;
  }
  const s = await streamByName(tx, realmId, ref);
  if (!s) throw new ApiError(`Channel '${ref}' does not exist`, 'STREAM_DOES_NOT_EXIST', 400, { stream: ref });
  return s;
}

/**
 * Whether the user may read the channel's messages without having received them: public channels
 * for members (guests only when subscribed); private channels only for subscribers, and only when
 * history is shared with subscribers.
 */
export function canAccessStreamHistory(user: Pick<User, 'role'>, stream: Pick<Stream, 'invite_only' | 'history_public_to_subscribers'>, subscribed: boolean): boolean {
  if (!stream.invite_only) return user.role !== Role.GUEST || subscribed;
  return subscribed && stream.history_public_to_subscribers === 1;
}

function streamPermission(stream: Pick<Stream, 'permissions'>, name: string): number | undefined {
  const v = (JSON.parse(stream.permissions || '{}') as Record<string, number>)[name];
  return typeof v === 'number' ? v : undefined;
}

/** Whether the user belongs to the group a channel permission names (false when unset). */
export async function hasStreamPermission(tx: Tx, user: User, stream: Pick<Stream, 'permissions'>, name: string): Promise<boolean> {
  const group = streamPermission(stream, name);
  return group !== undefined && (await isUserInGroup(tx, user, group));
}

/** The channel-with-that-ID-does-not-exist error: also what a sender who cannot see a channel gets for its ID. */
export const noStreamWithId = (ref: number) => new ApiError(`Channel with ID '${ref}' does not exist`, 'STREAM_DOES_NOT_EXIST', 400, { stream_id: ref });

/**
 * Throws unless the sender may post to the channel. `hidden`: the error for a sender who may not even see the
 * channel (a private one they are not subscribed to), for callers that named it by ID: the answer for a channel
 * that does not exist, since the original's "Not authorized" names the channel. Without it (named by name), the original's text.
 */
export async function checkCanSendToStream(tx: Tx, sender: User, stream: Stream, hidden?: () => ApiError): Promise<void> {
  const denied = async (subscribed?: boolean) => {
    if (hidden && !canSeeStream(sender, stream, subscribed ?? (await isSubscribed(tx, sender.id, stream.id)))) return hidden();
    return badRequest(`Not authorized to send to channel '${stream.name}'`);
  };
  if (stream.is_archived) throw await denied();
  if (stream.invite_only || sender.role === Role.GUEST) {
    // A bot may post where its owner is subscribed, as the owner could have posted themselves.
    const subscribed = await isSubscribed(tx, sender.id, stream.id);
    const ownerSubscribed = !subscribed && sender.is_bot === 1 && sender.bot_owner_id !== null && (await isSubscribed(tx, sender.bot_owner_id, stream.id));
    if (!subscribed && !ownerSubscribed) throw await denied(subscribed);
  }
  const group = streamPermission(stream, 'can_send_message_group');
  if (group !== undefined && !(await isUserInGroup(tx, sender, group))) throw badRequest('You do not have permission to post in this channel.');
}

export interface AccessedMessage {
  message: Message;
  /** The viewer's flags; null when the message is seen through channel history (no row). */
  flags: number | null;
  stream: Stream | null;
}

/** Message rows with the viewer's user_messages flags as `um_flags` (null when the viewer has no row). */
export function messagesWithViewerFlags(tx: Tx, userId: number) {
  return tx
    .selectFrom('messages as m')
    .leftJoin('user_messages as um', (j) => j.onRef('um.message_id', '=', 'm.id').on('um.user_id', '=', userId))
    .selectAll('m')
    .select('um.flags as um_flags');
}

/** Loads a message the user may read, or fails with "Invalid message(s)". */
export async function accessMessage(tx: Tx, user: User, messageId: number): Promise<AccessedMessage> {
  if (!isDbId(messageId)) throw invalidMessage();
  const row = await messagesWithViewerFlags(tx, user.id)
    .where('m.id', '=', messageId)
    .where('m.realm_id', '=', user.realm_id)
    .executeTakeFirst();
  if (!row) throw invalidMessage();
  const { um_flags, ...message } = row;
  const stream = message.stream_id !== null ? ((await streamById(tx, user.realm_id, message.stream_id)) ?? null) : null;
  if (um_flags !== null) return { message, flags: um_flags, stream };
  if (!stream) throw invalidMessage();
  const subscribed = await isSubscribed(tx, user.id, stream.id);
  if (!canAccessStreamHistory(user, stream, subscribed)) throw invalidMessage();
  return { message, flags: null, stream };
}

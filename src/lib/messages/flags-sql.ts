// Per-recipient flags: what rendering adds, the bit updates that apply them, and reading them back.
import type { Tx } from '../../store/store.js';
import { FLAG_BITS, flagNames } from '../../models/flags.js';
import type { RenderResult } from '../markdown/index.js';

export const MENTION_BITS = FLAG_BITS.mentioned | FLAG_BITS.stream_wildcard_mentioned | FLAG_BITS.topic_wildcard_mentioned;

/** Sets bits on the rows of these users for one message (one statement). */
export async function orFlags(tx: Tx, messageIds: number[], userIds: number[] | 'all', bits: number): Promise<void> {
  if (!messageIds.length || (userIds !== 'all' && !userIds.length) || !bits) return;
  let q = tx
    .updateTable('user_messages')
    .set((eb) => ({ flags: eb('flags', '|', bits) }))
    .where('message_id', 'in', messageIds);
  if (userIds !== 'all') q = q.where('user_id', 'in', userIds);
  await q.execute();
}

/** Clears bits on every row of these messages. */
export async function clearFlags(tx: Tx, messageIds: number[], bits: number): Promise<void> {
  if (!messageIds.length) return;
  await tx
    .updateTable('user_messages')
    .set((eb) => ({ flags: eb('flags', '&', ~bits) }))
    .where('message_id', 'in', messageIds)
    .execute();
}

/**
 * Applies a rendering's mention flags to a message's rows: direct mentions, the channel wildcard
 * for everyone, the topic wildcard for the topic's participants.
 */
export async function applyMentionFlags(tx: Tx, messageId: number, r: RenderResult, topicParticipants: () => Promise<number[]>): Promise<void> {
  await orFlags(tx, [messageId], r.mentionedUserIds, FLAG_BITS.mentioned);
  if (r.streamWildcardMentioned) await orFlags(tx, [messageId], 'all', FLAG_BITS.stream_wildcard_mentioned);
  if (r.topicWildcardMentioned) await orFlags(tx, [messageId], await topicParticipants(), FLAG_BITS.topic_wildcard_mentioned);
}

/** Every recipient of a message with its flag bits. */
export async function recipientFlags(tx: Tx, messageId: number): Promise<Map<number, number>> {
  const rows = await tx.selectFrom('user_messages').select(['user_id', 'flags']).where('message_id', '=', messageId).execute();
  return new Map(rows.map((r) => [r.user_id, r.flags]));
}

/** API flag names per user, for a notice. */
export function flagNameMap(bits: Map<number, number>): Record<number, string[]> {
  const out: Record<number, string[]> = {};
  for (const [u, b] of bits) out[u] = flagNames(b);
  return out;
}

/** Users who took part in a topic: its senders (who a topic wildcard reaches). */
export async function topicParticipantIds(tx: Tx, recipientId: number, topicKey: string, extra: number[]): Promise<number[]> {
  const rows = await tx.selectFrom('messages').select('sender_id').distinct().where('recipient_id', '=', recipientId).where('topic_key', '=', topicKey).execute();
  return [...new Set([...rows.map((r) => r.sender_id), ...extra])];
}

// Per-recipient flags: what rendering adds, the bit updates that apply them, and reading them back.
import type { Tx } from '../../store/store.js';
import { FLAG_BITS, flagNames } from '../../models/flags.js';
import type { RenderResult } from '../markdown/index.js';
import { topicKey } from './topic.js';

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

/**
 * The mention bits a rendering gives each user of a new message: direct mentions, the channel
 * wildcard for everyone (key -1), the topic wildcard for the topic's participants.
 */
export function mentionBitsFor(r: RenderResult, topicParticipants: number[] | null): Map<number, number> {
  const out = new Map<number, number>();
  for (const id of r.mentionedUserIds) out.set(id, FLAG_BITS.mentioned);
  if (r.streamWildcardMentioned) out.set(-1, FLAG_BITS.stream_wildcard_mentioned);
  if (r.topicWildcardMentioned) for (const id of topicParticipants ?? []) out.set(id, (out.get(id) ?? 0) | FLAG_BITS.topic_wildcard_mentioned);
  return out;
}

/** Participants of the topic, fetched only when the message uses the topic wildcard. */
export async function wildcardTopicParticipants(tx: Tx, r: RenderResult, recipientId: number, topic: string, senderId: number): Promise<number[] | null> {
  return r.topicWildcardMentioned ? topicParticipantIds(tx, recipientId, topicKey(topic), [senderId]) : null;
}

/** Writes mentionBitsFor's result onto a new message's rows (key -1: every row). */
export async function applyMentionBits(tx: Tx, messageId: number, bits: Map<number, number>): Promise<void> {
  const all = bits.get(-1) ?? 0;
  if (all) await orFlags(tx, [messageId], 'all', all);
  const byBits = new Map<number, number[]>();
  for (const [userId, b] of bits) {
    if (userId === -1) continue;
    const list = byBits.get(b) ?? [];
    list.push(userId);
    byBits.set(b, list);
  }
  for (const [b, users] of byBits) await orFlags(tx, [messageId], users, b);
}

/** API flag names per user, for a notice. */
export function flagNameMap(bits: Map<number, number>): Record<number, string[]> {
  const out: Record<number, string[]> = {};
  // Readers take a missing entry as no flags: a 10,000-recipient message carries a handful of entries, not 10,000 arrays.
  for (const [u, b] of bits) if (b !== 0) out[u] = flagNames(b);
  return out;
}

/** Users who took part in a topic: its senders (who a topic wildcard reaches). */
export async function topicParticipantIds(tx: Tx, recipientId: number, topicKey: string, extra: number[]): Promise<number[]> {
  const rows = await tx.selectFrom('messages').select('sender_id').distinct().where('recipient_id', '=', recipientId).where('topic_key', '=', topicKey).execute();
  return [...new Set([...rows.map((r) => r.sender_id), ...extra])];
}

// unread_msgs computed the plain way (every unread row of the user, grouped in JavaScript), for the register tests to compare with.
import { sql, type SqlBool } from 'kysely';
import type { TestServer } from './server.js';

export const CAP = 50_000;
const MENTION_BITS = 8 | 16 | 32;
export const MUTED = 1;
export const UNMUTED = 2;
export const FOLLOWED = 3;
const byNumber = (a: number, b: number) => a - b;
const byString = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * unread_msgs computed the plain way: every unread row of the user (a scan), the newest CAP kept,
 * grouped in JavaScript; mute state read from the tables.
 */
export async function plainUnreadMsgs(s: TestServer, c: { userId: number }, emptyTopicName: string | null): Promise<Record<string, unknown>> {
  const db = s.running.app.store.db;
  const rows = await db
    .selectFrom('user_messages as um')
    .innerJoin('messages as m', 'm.id', 'um.message_id')
    .select(['um.message_id', 'um.flags', 'm.stream_id', 'm.topic', 'm.recipient_id'])
    .where('um.user_id', '=', c.userId)
    .where(sql<SqlBool>`(um.flags & 1) = 0`)
    .orderBy('um.message_id', 'desc')
    .execute();
  const kept = rows.slice(0, CAP).reverse();
  const mutedStreams = new Set((await db.selectFrom('subscriptions').select('stream_id').where('user_id', '=', c.userId).where('active', '=', 1).where('is_muted', '=', 1).execute()).map((r) => r.stream_id));
  const policies = new Map((await db.selectFrom('user_topics').select(['stream_id', 'topic_key', 'visibility_policy']).where('user_id', '=', c.userId).execute()).map((r) => [`${r.stream_id}:${r.topic_key}`, r.visibility_policy]));
  const muted = (streamId: number, topic: string) => {
    const p = policies.get(`${streamId}:${topic.toLowerCase()}`) ?? 0;
    return mutedStreams.has(streamId) ? p !== UNMUTED && p !== FOLLOWED : p === MUTED;
  };
  const groups = new Map((await db.selectFrom('direct_message_groups').select(['recipient_id', 'user_ids_key']).execute()).map((g) => [g.recipient_id, g.user_ids_key.split(',').map(Number)]));
  const streams = new Map<string, { stream_id: number; topic: string; unread_message_ids: number[] }>();
  const pms = new Map<number, number[]>();
  const huddles = new Map<string, number[]>();
  const mentions: number[] = [];
  let count = 0;
  for (const r of kept) {
    if (r.flags & MENTION_BITS) mentions.push(r.message_id);
    if (r.stream_id !== null) {
      if (!muted(r.stream_id, r.topic)) count++;
      const topic = r.topic === '' && emptyTopicName !== null ? emptyTopicName : r.topic;
      const key = `${r.stream_id}|${topic}`;
      if (!streams.has(key)) streams.set(key, { stream_id: r.stream_id, topic, unread_message_ids: [] });
      streams.get(key)!.unread_message_ids.push(r.message_id);
      continue;
    }
    count++;
    const people = groups.get(r.recipient_id)!;
    if (people.length <= 2) {
      const other = people.find((id) => id !== c.userId) ?? c.userId;
      pms.set(other, [...(pms.get(other) ?? []), r.message_id]);
    } else {
      const key = [...people].sort(byNumber).join(',');
      huddles.set(key, [...(huddles.get(key) ?? []), r.message_id]);
    }
  }
  return {
    count,
    pms: [...pms.entries()].sort((a, b) => a[0] - b[0]).map(([other, ids]) => ({ other_user_id: other, sender_id: other, unread_message_ids: ids })),
    streams: [...streams.values()].sort((a, b) => a.stream_id - b.stream_id || byString(a.topic, b.topic)),
    huddles: [...huddles.entries()].sort((a, b) => byString(a[0], b[0])).map(([k, ids]) => ({ user_ids_string: k, unread_message_ids: ids })),
    mentions,
    old_unreads_missing: rows.length > CAP,
  };
}

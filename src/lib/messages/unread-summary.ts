// A user's unread messages for register, grouped in SQL: channel unreads by (channel, topic) from the
// subscription floors, direct messages and mentions from the partial index, the newest `cap` kept.
import { sql } from 'kysely';
import type { Tx } from '../../store/store.js';
import type { Dialect } from '../../store/dialect.js';
import { MENTION_BITS } from './flags-sql.js';
import { UNREAD_PERSONAL, type UnreadRow } from './unread.js';
import { sqliteChannelUnreads } from './unread-cache.js';

/** One channel topic's unread IDs (ascending); `topic` is the stored text. */
export interface TopicUnreads {
  streamId: number;
  topic: string;
  ids: number[];
}

export interface UnreadSummary {
  topics: TopicUnreads[];
  /** Unread direct and group-direct messages, ascending. */
  direct: UnreadRow[];
  /** Unread IDs with a mention or wildcard mention, ascending. */
  mentions: number[];
  /** More than `cap` messages were unread: the oldest were left out. */
  oldMissing: boolean;
}

/** Channel unreads by (channel, topic) from the kept per-user state (unread-cache.ts). */
async function sqliteChannelGroups(tx: Tx, userId: number, realmId: number, floors: Map<number, number>, cached: boolean): Promise<Map<string, TopicUnreads>> {
  const out = new Map<string, TopicUnreads>();
  for (const [sid, ch] of await sqliteChannelUnreads(tx, userId, realmId, floors, cached)) {
    for (const [topic, ids] of ch.topics) out.set(groupKey(sid, topic), { streamId: sid, topic, ids });
  }
  return out;
}

/** The same on PostgreSQL: one index range per subscription (LATERAL, see unreadRows), grouped by topic there. */
async function pgChannelGroups(tx: Tx, userId: number): Promise<Map<string, TopicUnreads>> {
  const { rows } = await sql<{ sid: number; topic: string; ids: string }>`
    SELECT s.stream_id AS sid, x.topic, string_agg(x.id::text, ',' ORDER BY x.id) AS ids
    FROM subscriptions s
    JOIN streams st ON st.id = s.stream_id
    CROSS JOIN LATERAL (
      SELECT m.id, m.topic FROM messages m
      JOIN user_messages um ON um.message_id = m.id
      WHERE m.recipient_id = st.recipient_id AND m.id >= s.unread_floor AND um.user_id = s.user_id AND (um.flags & 1) = 0
    ) x
    WHERE s.user_id = ${userId}
    GROUP BY s.stream_id, x.topic`.execute(tx);
  const out = new Map<string, TopicUnreads>();
  for (const r of rows) out.set(groupKey(r.sid, r.topic), { streamId: r.sid, topic: r.topic, ids: JSON.parse(`[${r.ids}]`) as number[] });
  return out;
}

const byNumber = (a: number, b: number) => a - b;
const groupKey = (streamId: number, topic: string) => `${streamId}\u0000${topic}`;

/**
 * The newest `cap` unread messages of the user, grouped. Same rows as unreadRows(…, cap + 1) less
 * the oldest: channel rows at or above a floor come from the floors (on SQLite kept between calls
 * unless `cached` is false), and the partial index's rows (direct messages, mentions, unfloored
 * channel rows) are added unless a floor already covers them.
 */
export async function unreadSummary(tx: Tx, dialect: Dialect, user: { id: number; realm_id: number }, cap: number, cached = true): Promise<UnreadSummary> {
  const userId = user.id;
  const floors = new Map((await tx.selectFrom('subscriptions').select(['stream_id', 'unread_floor']).where('user_id', '=', userId).execute()).map((s) => [s.stream_id, s.unread_floor]));
  const groups = dialect === 'postgres' ? await pgChannelGroups(tx, userId) : await sqliteChannelGroups(tx, userId, user.realm_id, floors, cached);
  const personal = (
    await tx
      .selectFrom('user_messages as um')
      .innerJoin('messages as m', 'm.id', 'um.message_id')
      .select(['um.message_id', 'um.flags', 'm.stream_id', 'm.topic', 'm.recipient_id'])
      .where('um.user_id', '=', userId)
      .where(UNREAD_PERSONAL)
      .orderBy('um.message_id', 'desc')
      .limit(cap + 1)
      .execute()
  ).reverse();
  let direct: UnreadRow[] = [];
  let mentionRows: UnreadRow[] = [];
  const touched = new Set<TopicUnreads>();
  for (const r of personal) {
    if (r.flags & MENTION_BITS) mentionRows.push(r);
    if (r.stream_id === null) {
      direct.push(r);
      continue;
    }
    const floor = floors.get(r.stream_id);
    if (floor !== undefined && r.message_id >= floor) continue;
    // An unfloored channel row (no subscription row, e.g. moved in): not in the floors' groups.
    const key = groupKey(r.stream_id, r.topic);
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { streamId: r.stream_id, topic: r.topic, ids: [] }));
    // The floors' lists are shared with the cache: copied before the first change.
    else if (!touched.has(g)) g.ids = g.ids.slice();
    g.ids.push(r.message_id);
    touched.add(g);
  }
  for (const g of touched) g.ids.sort(byNumber);

  let topics = [...groups.values()];
  let total = direct.length;
  for (const g of topics) total += g.ids.length;
  const oldMissing = total > cap;
  if (oldMissing) {
    const cutoff = smallestKept([...topics.map((g) => g.ids), direct.map((r) => r.message_id)], total - cap);
    topics = topics.map((g) => (g.ids[0] >= cutoff ? g : { ...g, ids: g.ids.slice(firstAtLeast(g.ids, cutoff)) })).filter((g) => g.ids.length > 0);
    direct = direct.filter((r) => r.message_id >= cutoff);
    mentionRows = mentionRows.filter((r) => r.message_id >= cutoff);
  }
  return { topics, direct, mentions: mentionRows.map((r) => r.message_id), oldMissing };
}

/**
 * The smallest ID left after dropping the `drop` smallest of these ascending lists (IDs are
 * distinct across them): a merge of the lists' heads through a binary heap, so only the dropped
 * IDs are visited, not all 50,000.
 */
function smallestKept(lists: number[][], drop: number): number {
  const heap: { list: number[]; at: number }[] = lists.filter((l) => l.length > 0).map((list) => ({ list, at: 0 }));
  const key = (i: number) => heap[i].list[heap[i].at];
  const down = (i: number) => {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < heap.length && key(l) < key(m)) m = l;
      if (r < heap.length && key(r) < key(m)) m = r;
      if (m === i) return;
      [heap[i], heap[m]] = [heap[m], heap[i]];
      i = m;
    }
  };
  for (let i = (heap.length >> 1) - 1; i >= 0; i--) down(i);
  for (let n = 0; n < drop; n++) {
    const top = heap[0];
    if (++top.at === top.list.length) {
      heap[0] = heap[heap.length - 1];
      heap.pop();
    }
    if (heap.length) down(0);
  }
  return key(0);
}

/** Index of the first element ≥ x in an ascending list. */
function firstAtLeast(ids: number[], x: number): number {
  let lo = 0;
  let hi = ids.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ids[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// A user's unread messages for register, grouped in SQL: channel unreads by (channel, topic) from the
// subscription floors, direct messages and mentions from the partial index, the newest `cap` kept.
import { sql } from 'kysely';
import type { Tx } from '../../store/store.js';
import type { Dialect } from '../../store/dialect.js';
import { MENTION_BITS } from './flags-sql.js';
import { UNREAD_PERSONAL, type UnreadRow } from './unread.js';

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

interface StreamGroupRow {
  sid: number;
  ids: string;
  topics: string;
}

/**
 * Channel unreads from the floors, one row per channel: the IDs as text and the topics as a JSON
 * array, in the same (ascending ID) order. Returning 50,000 rows cost more than finding them; each
 * topic comes from the messages_recipient_topic_text index, not the message row.
 */
async function sqliteChannelGroups(tx: Tx, userId: number): Promise<Map<string, TopicUnreads>> {
  const { rows } = await sql<StreamGroupRow>`
    SELECT s.stream_id AS sid, group_concat(m.id) AS ids, json_group_array(m.topic) AS topics
    FROM subscriptions s
    JOIN streams st ON st.id = s.stream_id
    JOIN messages m ON m.recipient_id = st.recipient_id AND m.id >= s.unread_floor
    JOIN user_messages um ON um.message_id = m.id AND um.user_id = s.user_id
    WHERE s.user_id = ${userId} AND (um.flags & 1) = 0
    GROUP BY s.stream_id`.execute(tx);
  const out = new Map<string, TopicUnreads>();
  for (const r of rows) {
    const ids = JSON.parse(`[${r.ids}]`) as number[];
    const topics = JSON.parse(r.topics) as string[];
    const byTopic = new Map<string, TopicUnreads>();
    for (let k = 0; k < ids.length; k++) {
      let g = byTopic.get(topics[k]);
      if (!g) byTopic.set(topics[k], (g = { streamId: r.sid, topic: topics[k], ids: [] }));
      g.ids.push(ids[k]);
    }
    for (const g of byTopic.values()) {
      // The rows arrive in index order (ascending IDs); sorting is only a guard.
      if (!isAscending(g.ids)) g.ids.sort(byNumber);
      out.set(groupKey(g.streamId, g.topic), g);
    }
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

function isAscending(ids: number[]): boolean {
  for (let i = 1; i < ids.length; i++) if (ids[i] <= ids[i - 1]) return false;
  return true;
}

/**
 * The newest `cap` unread messages of the user, grouped. Same rows as unreadRows(…, cap + 1) less
 * the oldest: channel rows under a floor come from the floors, and the partial index's rows
 * (direct messages, mentions, unfloored channel rows) are added unless a floor already covers them.
 */
export async function unreadSummary(tx: Tx, dialect: Dialect, userId: number, cap: number): Promise<UnreadSummary> {
  const groups = dialect === 'postgres' ? await pgChannelGroups(tx, userId) : await sqliteChannelGroups(tx, userId);
  const floors = new Map((await tx.selectFrom('subscriptions').select(['stream_id', 'unread_floor']).where('user_id', '=', userId).execute()).map((s) => [s.stream_id, s.unread_floor]));
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

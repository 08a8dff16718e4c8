// SQLite: each user's channel unreads by (channel, topic), kept between registers and read again only
// past the newest message already seen, unless migration 030's counters say more than that changed.
import { sql } from 'kysely';
import { storeOf, type Store, type Tx } from '../../store/store.js';

/** One subscription's unread IDs by stored topic (each list ascending), as of its floor. */
export interface ChannelUnreads {
  floor: number;
  topics: Map<string, number[]>;
}

/**
 * A user's channel unreads as of a snapshot: `versions` (unread_versions by channel: a channel row's
 * read bit changed, or an unread one was deleted; channel 0: a row whose message was gone), `epoch`
 * (message_versions: a message of the organization changed channel or topic, or was deleted) and
 * `maxId` (the newest message ID then). With the epoch unchanged, a channel whose counter and floor
 * are unchanged differs in a later snapshot only by messages past `maxId`; the others are read
 * whole. Lists are never changed in place: a register still serializing an older answer may hold them.
 */
interface Entry {
  versions: Map<number, number>;
  epoch: number;
  maxId: number;
  channels: Map<number, ChannelUnreads>;
  ids: number;
}

interface StoreCache {
  /** By user ID; the map's order is the recency order eviction follows. */
  entries: Map<number, Entry>;
  ids: number;
}
const caches = new WeakMap<Store, StoreCache>();
/**
 * `maxIds`: entries are dropped, least recently used first, beyond this many IDs in all (4–8 bytes
 * each). `minIds`: fewer channel unreads than this are read afresh each time (a few milliseconds at
 * most), not kept. Tests lower it to reach the cache with small fixtures.
 */
export const unreadCacheLimits = { maxIds: 4_000_000, minIds: 1_000 };

interface GroupRow {
  sid: number;
  ids: string;
  topics: string;
}

/**
 * Channel unreads from the floors (and at or past `since`), one row per channel: the IDs as text and
 * the topics as a JSON array in the same ascending-ID order. Returning 50,000 rows cost more than
 * finding them; each topic comes from the messages_recipient_topic_text index, not the message row.
 */
async function groupRows(tx: Tx, userId: number, since: number, streams: number[] | null): Promise<GroupRow[]> {
  if (streams && !streams.length) return [];
  const only = streams ? sql`AND s.stream_id IN (${sql.join(streams)})` : sql``;
  const { rows } = await sql<GroupRow>`
    SELECT s.stream_id AS sid, group_concat(m.id) AS ids, json_group_array(m.topic) AS topics
    FROM subscriptions s
    JOIN streams st ON st.id = s.stream_id
    JOIN messages m ON m.recipient_id = st.recipient_id AND m.id >= max(s.unread_floor, ${since})
    JOIN user_messages um ON um.message_id = m.id AND um.user_id = s.user_id
    WHERE s.user_id = ${userId} AND (um.flags & 1) = 0 ${only}
    GROUP BY s.stream_id`.execute(tx);
  return rows;
}

/** Adds rows (IDs past everything already in `channels`) to copies of the channels they touch; returns the IDs added. */
function addRows(channels: Map<number, ChannelUnreads>, rows: GroupRow[], skip: Set<number> | null): number {
  let added = 0;
  for (const r of rows) {
    if (skip?.has(r.sid)) continue;
    const ch = channels.get(r.sid);
    if (!ch) continue;
    const ids = JSON.parse(`[${r.ids}]`) as number[];
    const topics = JSON.parse(r.topics) as string[];
    const fresh = new Map<string, number[]>();
    for (let k = 0; k < ids.length; k++) {
      const list = fresh.get(topics[k]);
      if (list) list.push(ids[k]);
      else fresh.set(topics[k], [ids[k]]);
    }
    const next = new Map(ch.topics);
    for (const [topic, list] of fresh) {
      // Rows come in index order (ascending IDs); sorting is only a guard.
      if (!isAscending(list)) list.sort(byNumber);
      const old = next.get(topic);
      next.set(topic, old ? old.concat(list) : list);
    }
    channels.set(r.sid, { floor: ch.floor, topics: next });
    added += ids.length;
  }
  return added;
}

const byNumber = (a: number, b: number) => a - b;

function isAscending(ids: number[]): boolean {
  for (let i = 1; i < ids.length; i++) if (ids[i] <= ids[i - 1]) return false;
  return true;
}

function countIds(channels: Map<number, ChannelUnreads>): number {
  let n = 0;
  for (const ch of channels.values()) for (const list of ch.topics.values()) n += list.length;
  return n;
}

async function counters(tx: Tx, userId: number, realmId: number): Promise<{ versions: Map<number, number>; epoch: number; maxId: number }> {
  const { rows } = await sql<{ e: number | null; m: number | null }>`
    SELECT (SELECT version FROM message_versions WHERE realm_id = ${realmId}) AS e, (SELECT max(id) FROM messages) AS m`.execute(tx);
  const { rows: versions } = await sql<{ sid: number; v: number }>`SELECT stream_id AS sid, version AS v FROM unread_versions WHERE user_id = ${userId}`.execute(tx);
  return { versions: new Map(versions.map((r) => [Number(r.sid), Number(r.v)])), epoch: Number(rows[0].e ?? 0), maxId: Number(rows[0].m ?? 0) };
}

/**
 * The user's channel unreads (SQLite), one entry per subscription in `floors` (stream ID → floor),
 * read in the register's snapshot `tx`. `cached: false` reads everything afresh and keeps nothing
 * (tests compare the two). The maps and lists returned are shared: callers do not change them.
 */
export async function sqliteChannelUnreads(tx: Tx, userId: number, realmId: number, floors: Map<number, number>, cached = true): Promise<Map<number, ChannelUnreads>> {
  const store = cached ? storeOf(tx) : undefined;
  const channels = new Map<number, ChannelUnreads>();
  for (const [sid, floor] of floors) channels.set(sid, { floor, topics: new Map() });
  if (!store) {
    addRows(channels, await groupRows(tx, userId, 0, null), null);
    return channels;
  }
  let c = caches.get(store);
  if (!c) caches.set(store, (c = { entries: new Map(), ids: 0 }));
  const now = await counters(tx, userId, realmId);
  const kept = c.entries.get(userId);
  if (kept) {
    c.entries.delete(userId);
    c.ids -= kept.ids;
  }
  const sameVersion = (sid: number) => kept!.versions.get(sid) === now.versions.get(sid);
  if (kept && kept.epoch === now.epoch && kept.maxId <= now.maxId && sameVersion(0)) {
    // Channels whose counter or floor moved, or new subscriptions whose floor is below what was seen, are read whole.
    const whole: number[] = [];
    for (const [sid, floor] of floors) {
      const ch = kept.channels.get(sid);
      if (ch && ch.floor === floor && sameVersion(sid)) channels.set(sid, ch);
      else if (ch || floor <= kept.maxId) whole.push(sid);
    }
    const skip = new Set(whole);
    if (now.maxId > kept.maxId) addRows(channels, await groupRows(tx, userId, kept.maxId + 1, null), skip);
    addRows(channels, await groupRows(tx, userId, 0, whole), null);
  } else {
    addRows(channels, await groupRows(tx, userId, 0, null), null);
  }
  const ids = countIds(channels);
  // A register of the same user that ran alongside may have kept its own state meanwhile.
  const other = c.entries.get(userId);
  if (other) {
    c.entries.delete(userId);
    c.ids -= other.ids;
  }
  if (ids >= unreadCacheLimits.minIds) {
    c.entries.set(userId, { ...now, channels, ids });
    c.ids += ids;
    for (const [id, e] of c.entries) {
      if (c.ids <= unreadCacheLimits.maxIds) break;
      c.entries.delete(id);
      c.ids -= e.ids;
    }
  }
  return channels;
}

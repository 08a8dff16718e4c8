// The event log: each committed transaction's notices as one row, in commit order (durable events).
// Written inside the mutation's transaction (the send path) or just after its commit (publishCommitted).
import { sql, type Kysely } from 'kysely';
import type { DB } from '../store/schema.js';
import type { Dialect } from '../store/dialect.js';
import type { CommitStamp, Store, Tx } from '../store/store.js';
import type { Notice, Outgoing } from './types.js';

/**
 * A notice's place in the delivery order: its row's id times NOTICES_PER_ROW plus its index in the
 * row. Row ids stay below 2^37 (137 billion rows) before a position passes Number.MAX_SAFE_INTEGER.
 */
export const NOTICES_PER_ROW = 65536;

/** One log row on its way to the queues: its id, organization, commit stamp and notices. */
export interface LogBatch {
  id: number;
  realmId: number;
  stamp: CommitStamp | null;
  notices: Outgoing[];
}

/** PostgreSQL: the key of the transaction lock that orders log ids by commit ("plog"). */
const LOG_LOCK_KEY = 0x706c6f67;

const INSERT_SQLITE = 'INSERT INTO event_log (realm_id, stamp, created_at, body) VALUES (?, ?, ?, ?)';

export function stampText(stamp: CommitStamp | null): string | null {
  if (!stamp) return null;
  return stamp.kind === 'seq' ? String(stamp.seq) : stamp.xid;
}

export function stampFromText(text: string | null, dialect: Dialect): CommitStamp | null {
  if (text === null) return null;
  return dialect === 'sqlite' ? { kind: 'seq', seq: Number(text) } : { kind: 'xid', xid: text };
}

/**
 * Appends one row and returns its id. stamp: the commit that the notices describe; null inside that
 * very transaction on PostgreSQL (its own transaction id is written), or a stamp-less notice.
 * PostgreSQL takes a transaction lock first, held until commit, so ids are assigned in commit
 * order: a reader that sees row n knows every row below n has committed or never will.
 */
export async function insertLogRow(store: Store, tx: Tx, realmId: number, stamp: string | null, body: string, now: number, ownTransaction: boolean): Promise<number> {
  // SQLite: the write's group holds the one connection, so the raw statement runs in its transaction.
  if (store.dialect === 'sqlite') return store.sqliteInsert(INSERT_SQLITE, [realmId, stamp, now, body]);
  const stampSql = ownTransaction ? sql`pg_current_xact_id()::text` : sql`${stamp}::text`;
  const r = await sql<{ id: string }>`INSERT INTO event_log (realm_id, stamp, created_at, body) SELECT ${realmId}::int, ${stampSql}, ${now}::bigint, ${body}::text FROM (SELECT pg_advisory_xact_lock(${LOG_LOCK_KEY})) l RETURNING id`.execute(tx);
  return Number(r.rows[0].id);
}

export interface LogRow {
  id: number;
  realm_id: number;
  stamp: string | null;
  body: string;
}

/** Rows after afterId, oldest first (at most limit). */
export async function readLog(db: Kysely<DB>, afterId: number, limit: number): Promise<LogRow[]> {
  const rows = await db.selectFrom('event_log').select(['id', 'realm_id', 'stamp', 'body']).where('id', '>', afterId).orderBy('id').limit(limit).execute();
  return rows.map((r) => ({ ...r, id: Number(r.id) }));
}

/** A message notice with more recipients than this keeps them in user_messages only, not in its log row. */
const COPIED_RECIPIENTS = 8;

/**
 * The log row's text of a transaction's notices: a message to many recipients names its message
 * instead of listing them (its user_messages rows are that list), which keeps a busy channel's
 * row small. Null when nothing was left out (the notices' own text serves both the log and the bus).
 */
export function compactBody(items: Outgoing[]): string | null {
  let compact: Outgoing[] | null = null;
  for (let i = 0; i < items.length; i++) {
    const n = items[i];
    if (n.event.type !== 'message' || n.users.length <= COPIED_RECIPIENTS) continue;
    compact ??= items.slice();
    compact[i] = { ...n, users: [], recipientsOf: (n.event.message as { id: number }).id, flags: n.flags && nonEmptyFlags(n.flags) };
  }
  return compact && JSON.stringify(compact);
}

/** Stands for a message ID in messageLogText's JSON before the mark replaces it. */
const ID_SENTINEL = Number.MIN_SAFE_INTEGER;

/**
 * A message notice's log-row text before its message exists (PostgreSQL's one-statement send
 * writes the row in the message's own statement): recipients named by the message (its
 * user_messages rows), and the message ID written as `mark`, which the statement replaces. Only
 * the ID's two places are marked: inside JSON strings a quote is escaped, so `"id":` followed by
 * the sentinel cannot come from a message's text.
 */
export function messageLogText(notice: Outgoing, mark: string): string {
  const event = { ...notice.event, message: { ...(notice.event.message as object), id: ID_SENTINEL } };
  const text = JSON.stringify([{ ...notice, event, users: [], recipientsOf: ID_SENTINEL, flags: notice.flags && nonEmptyFlags(notice.flags) }]);
  return text.replace(`"id":${ID_SENTINEL}`, `"id":${mark}`).replace(`"recipientsOf":${ID_SENTINEL}`, `"recipientsOf":${mark}`);
}

/**
 * A message's flags without the recipients who have none (most of a channel's): a missing entry
 * reads as no flags (transform.ts), so the row says the same in far less text.
 */
function nonEmptyFlags(flags: Record<number, string[]>): Record<number, string[]> {
  const out: Record<number, string[]> = {};
  for (const k in flags) if (flags[k].length) out[k] = flags[k];
  return out;
}

/** Puts back the recipients that compactBody left out, from user_messages. */
export async function fillRecipients(db: Kysely<DB>, batches: LogBatch[]): Promise<void> {
  const wanted = new Map<number, Outgoing[]>();
  for (const b of batches) for (const n of b.notices) if (n.recipientsOf !== undefined) wanted.set(n.recipientsOf, [...(wanted.get(n.recipientsOf) ?? []), n]);
  const ids = [...wanted.keys()];
  for (let i = 0; i < ids.length; i += 500) {
    const rows = await db.selectFrom('user_messages').select(['message_id', 'user_id']).where('message_id', 'in', ids.slice(i, i + 500)).execute();
    for (const r of rows) for (const n of wanted.get(r.message_id) ?? []) n.users.push(r.user_id);
  }
  for (const list of wanted.values()) for (const n of list) delete n.recipientsOf;
}

export function batchOfRow(row: LogRow, dialect: Dialect): LogBatch {
  return { id: row.id, realmId: row.realm_id, stamp: stampFromText(row.stamp, dialect), notices: JSON.parse(row.body) as Outgoing[] };
}

export async function maxLogId(db: Kysely<DB>): Promise<number> {
  const r = await db.selectFrom('event_log').select((eb) => eb.fn.max('id').as('m')).executeTakeFirst();
  return Number(r?.m ?? 0);
}

/** The notices of a batch with their realm, stamp and delivery positions. */
export function noticesOf(batch: LogBatch): Notice[] {
  const base = batch.id * NOTICES_PER_ROW;
  return batch.notices.map((n, i) => ({ ...n, realmId: batch.realmId, stamp: batch.stamp, pos: base + i }));
}

/** Rows deleted per transaction by pruneLog, so pruning never holds the write lock long. */
const PRUNE_CHUNK = 5000;

/**
 * Deletes rows up to oldEnough (a row id old enough to go, from the feed's own marks: no scan of
 * the log by time) that no stored queue needs (below every stored queue's base), in chunks of
 * PRUNE_CHUNK ids, each its own write. The newest row always stays: SQLite's next id is the
 * largest plus one, and ids must keep growing.
 */
export async function pruneLog(store: Store, oldEnough: number): Promise<number> {
  const db = store.db;
  const minBase = await db.selectFrom('event_queues').select((eb) => eb.fn.min('base_pos').as('m')).executeTakeFirst();
  let upTo = Math.min(oldEnough, (await maxLogId(db)) - 1);
  if (minBase?.m !== null && minBase?.m !== undefined) upTo = Math.min(upTo, Math.floor(Number(minBase.m) / NOTICES_PER_ROW) - 1);
  const oldest = await db.selectFrom('event_log').select((eb) => eb.fn.min('id').as('m')).executeTakeFirst();
  let deleted = 0;
  for (let from = Number(oldest?.m ?? upTo + 1); from <= upTo; from += PRUNE_CHUNK) {
    const to = Math.min(upTo, from + PRUNE_CHUNK - 1);
    const { result } = await store.write((tx) => tx.deleteFrom('event_log').where('id', '>=', from).where('id', '<=', to).executeTakeFirst());
    deleted += Number(result.numDeletedRows);
  }
  return deleted;
}

// Unread bookkeeping without a per-user index on every row: channel unreads start at each
// subscription's unread_floor; direct messages, mentions and unfloored rows come from a partial index.
import { sql, type SqlBool } from 'kysely';
import type { Tx } from '../../store/store.js';
import type { Dialect } from '../../store/dialect.js';
import { FLAG_BITS } from '../../models/flags.js';

/** Same text as the user_messages_unread_personal index predicate (824 = private | mentions | unfloored). */
export const UNREAD_PERSONAL = sql<SqlBool>`(um.flags & 1) = 0 AND (um.flags & 824) <> 0`;
const UNREAD = sql<SqlBool>`(um.flags & 1) = 0`;

export interface UnreadRow {
  message_id: number;
  flags: number;
  stream_id: number | null;
  topic: string;
  recipient_id: number;
}

/**
 * PostgreSQL commits sequence-numbered messages out of order, so a floor set to "newest + 1"
 * could pass a send still in flight. Sends hold their channel FOR SHARE; floor raisers take it
 * FOR UPDATE first. SQLite serializes writers, so there is nothing to lock.
 */
export async function lockStreams(tx: Tx, dialect: Dialect, streamIds: number[], mode: 'share' | 'update'): Promise<void> {
  if (dialect !== 'postgres' || !streamIds.length) return;
  const q = tx.selectFrom('streams').select('id').where('id', 'in', [...new Set(streamIds)].sort((a, b) => a - b)).orderBy('id');
  await (mode === 'share' ? q.forShare() : q.forUpdate()).execute();
}

/** Floor for a new subscription: after every message so far (the caller holds the channel lock). */
export async function nextMessageId(tx: Tx): Promise<number> {
  const row = await tx.selectFrom('messages').select((eb) => eb.fn.max<number>('id').as('max')).executeTakeFirst();
  return Number(row?.max ?? 0) + 1;
}

/**
 * After rows were marked read: raises each (user, channel) floor to the smallest unread ID still
 * at or above it, else past the channel's newest message.
 */
export async function raiseFloors(tx: Tx, dialect: Dialect, userId: number, streamIds: number[]): Promise<void> {
  const ids = [...new Set(streamIds)].sort((a, b) => a - b);
  if (!ids.length) return;
  await lockStreams(tx, dialect, ids, 'update');
  const streams = await tx.selectFrom('streams').select(['id', 'recipient_id']).where('id', 'in', ids).execute();
  for (const s of streams) {
    await tx
      .updateTable('subscriptions as s')
      .set((eb) => ({
        unread_floor: eb.fn.coalesce(
          eb
            .selectFrom('messages as m')
            .innerJoin('user_messages as um', (j) => j.onRef('um.message_id', '=', 'm.id').on('um.user_id', '=', userId))
            .select((e) => e.fn.min<number>('m.id').as('f'))
            .where('m.recipient_id', '=', s.recipient_id)
            .whereRef('m.id', '>=', 's.unread_floor')
            .where(UNREAD),
          eb
            .selectFrom('messages as m2')
            .select(sql<number>`coalesce(max(m2.id), 0) + 1`.as('n'))
            .where('m2.recipient_id', '=', s.recipient_id),
        ).$notNull(),
      }))
      .where('s.user_id', '=', userId)
      .where('s.stream_id', '=', s.id)
      .execute();
  }
}

/**
 * After channel rows became unread (marked unread, or moved in): lowers the holders' floors; rows
 * of a user with no subscription row for the channel are marked unfloored so the partial index finds them.
 * The channel lock orders this after any raise that could not see the rows (PostgreSQL).
 */
export async function lowerFloors(tx: Tx, dialect: Dialect, rows: { userId: number; streamId: number; messageId: number }[]): Promise<void> {
  if (!rows.length) return;
  await lockStreams(
    tx,
    dialect,
    rows.map((r) => r.streamId),
    'update',
  );
  const low = new Map<string, { userId: number; streamId: number; min: number; ids: number[] }>();
  for (const r of rows) {
    const k = `${r.userId}:${r.streamId}`;
    const e = low.get(k);
    if (e) {
      e.min = Math.min(e.min, r.messageId);
      e.ids.push(r.messageId);
    } else low.set(k, { userId: r.userId, streamId: r.streamId, min: r.messageId, ids: [r.messageId] });
  }
  for (const e of low.values()) {
    const res = await tx
      .updateTable('subscriptions')
      .set((eb) => ({ unread_floor: sql<number>`CASE WHEN ${eb.ref('unread_floor')} > ${e.min} THEN CAST(${e.min} AS integer) ELSE ${eb.ref('unread_floor')} END` }))
      .where('user_id', '=', e.userId)
      .where('stream_id', '=', e.streamId)
      .executeTakeFirst();
    if (Number(res.numUpdatedRows) === 0) {
      await tx
        .updateTable('user_messages')
        .set((eb) => ({ flags: eb('flags', '|', FLAG_BITS.unfloored) }))
        .where('message_id', 'in', e.ids)
        .where('user_id', '=', e.userId)
        .execute();
    }
  }
}

/** Lowest ID any unread row of the user can have: a bound that keeps unread scans off old history. */
export async function lowestUnreadId(tx: Tx, userId: number): Promise<number> {
  const floor = await tx.selectFrom('subscriptions').select((eb) => eb.fn.min<number>('unread_floor').as('f')).where('user_id', '=', userId).executeTakeFirst();
  const personal = await tx.selectFrom('user_messages as um').select((eb) => eb.fn.min<number>('um.message_id').as('f')).where('um.user_id', '=', userId).where(UNREAD_PERSONAL).executeTakeFirst();
  const vals = [floor?.f, personal?.f].filter((v) => v !== null && v !== undefined).map(Number);
  return vals.length ? Math.min(...vals) : Number.MAX_SAFE_INTEGER;
}

export interface UnreadScope {
  recipientId?: number;
  topicKey?: string;
}

/** The user's unread rows in a scope, newest first (at most `limit`): channel rows from the floors, the rest from the partial index. */
export async function unreadRows(tx: Tx, dialect: Dialect, userId: number, scope: UnreadScope = {}, limit?: number): Promise<UnreadRow[]> {
  const cols = ['um.message_id', 'um.flags', 'm.stream_id', 'm.topic', 'm.recipient_id'] as const;
  const subs = tx
    .selectFrom('subscriptions as s')
    .innerJoin('streams as st', 'st.id', 's.stream_id')
    .where('s.user_id', '=', userId)
    .$if(scope.recipientId !== undefined, (q) => q.where('st.recipient_id', '=', scope.recipientId!));
  // PostgreSQL cannot estimate `m.id >= s.unread_floor` and may hash-join a scan of the whole
  // table instead; LATERAL keeps it to one index range per subscription. SQLite nests loops anyway.
  const channel: UnreadRow[] =
    dialect === 'postgres'
      ? await subs
          .innerJoinLateral(
            (eb) =>
              eb
                .selectFrom('messages as m')
                .innerJoin('user_messages as um', 'um.message_id', 'm.id')
                .select(cols)
                .whereRef('m.recipient_id', '=', 'st.recipient_id')
                .whereRef('m.id', '>=', 's.unread_floor')
                .whereRef('um.user_id', '=', 's.user_id')
                .where(UNREAD)
                .$if(scope.topicKey !== undefined, (q) => q.where('m.topic_key', '=', scope.topicKey!))
                .as('x'),
            (j) => j.onTrue(),
          )
          .select(['x.message_id', 'x.flags', 'x.stream_id', 'x.topic', 'x.recipient_id'])
          .orderBy('x.message_id', 'desc')
          .$if(limit !== undefined, (q) => q.limit(limit!))
          .execute()
      : await subs
          .innerJoin('messages as m', (j) => j.onRef('m.recipient_id', '=', 'st.recipient_id').onRef('m.id', '>=', 's.unread_floor'))
          .innerJoin('user_messages as um', (j) => j.onRef('um.message_id', '=', 'm.id').onRef('um.user_id', '=', 's.user_id'))
          .select(cols)
          .where(UNREAD)
          .$if(scope.topicKey !== undefined, (q) => q.where('m.topic_key', '=', scope.topicKey!))
          .orderBy('um.message_id', 'desc')
          .$if(limit !== undefined, (q) => q.limit(limit!))
          .execute();
  let personal = tx
    .selectFrom('user_messages as um')
    .innerJoin('messages as m', 'm.id', 'um.message_id')
    .select(cols)
    .where('um.user_id', '=', userId)
    .where(UNREAD_PERSONAL)
    .orderBy('um.message_id', 'desc');
  if (scope.recipientId !== undefined) personal = personal.where('m.recipient_id', '=', scope.recipientId);
  if (scope.topicKey !== undefined) personal = personal.where('m.topic_key', '=', scope.topicKey);
  if (limit !== undefined) personal = personal.limit(limit);
  const byId = new Map<number, UnreadRow>();
  for (const r of [...channel, ...(await personal.execute())]) byId.set(r.message_id, r);
  const out = [...byId.values()].sort((a, b) => b.message_id - a.message_id);
  return limit === undefined ? out : out.slice(0, limit);
}

/** Newest message the user has a row for, or -1: the realm's messages newest first, probed by primary key. */
export async function maxMessageIdFor(tx: Tx, realmId: number, userId: number): Promise<number> {
  const row = await tx
    .selectFrom('messages as m')
    .innerJoin('user_messages as um', (j) => j.onRef('um.message_id', '=', 'm.id').on('um.user_id', '=', userId))
    .select('m.id')
    .where('m.realm_id', '=', realmId)
    .orderBy('m.id', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row ? Number(row.id) : -1;
}

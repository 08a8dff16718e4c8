// The statements every channel send runs, compiled once (store/compiled-query.ts): building and compiling them with Kysely cost about a fifth of a send.
import { sql, type Kysely, type QueryCreator, type RawBuilder } from 'kysely';
import type { DB, Message, Stream } from '../../store/schema.js';
import type { Dialect } from '../../store/dialect.js';
import { prepared } from '../../store/compiled-query.js';
import { noteTransactionId } from '../../store/store.js';
import { rememberChannelForSend } from './send-one-statement.js';

const streamById = prepared((db, p: { id: number; realmId: number }) => db.selectFrom('streams').selectAll().where('id', '=', p.id).where('realm_id', '=', p.realmId));

/** A channel of the organization by ID (what requireStream reads for a numeric reference). */
export function findStreamById(tx: Kysely<DB>, dialect: Dialect, realmId: number, id: number): Promise<Stream | undefined> {
  return streamById.first(tx, dialect, { id, realmId });
}

// The first statement of a channel send: it travels with the BEGIN. Its row version (xmin) lets the next sends go in one statement (send-one-statement.ts).
const streamWithMessagesForShare = prepared(
  (db, p: { id: number; realmId: number }) =>
    db
      .selectFrom('streams')
      .selectAll()
      .select(sql<string>`xmin::text`.as('row_version'))
      .where('id', '=', p.id)
      .where('realm_id', '=', p.realmId)
      .where('first_message_id', 'is not', null)
      .forShare(),
  { withBegin: true },
);

/**
 * PostgreSQL: the channel read and held FOR SHARE (see lib/messages/unread.ts) in one statement,
 * when it already has messages. Undefined when it has none (its first send must take the row FOR
 * UPDATE before anything else, so two first sends cannot deadlock upgrading shared locks; no lock
 * was taken then) or does not exist. A row being changed is waited for and read as committed.
 * The row is remembered with its version for the next sends (send-one-statement.ts).
 */
export async function findStreamForSend(tx: Kysely<DB>, realmId: number, id: number): Promise<Stream | undefined> {
  const row = await streamWithMessagesForShare.first(tx, 'postgres', { id, realmId });
  if (!row) return undefined;
  const { row_version, ...stream } = row;
  rememberChannelForSend(stream, row_version);
  return stream;
}

function messageInsert(db: QueryCreator<DB>, p: Omit<Message, 'id'>) {
  return db.insertInto('messages').values({
    realm_id: p.realm_id,
    type: p.type,
    recipient_id: p.recipient_id,
    stream_id: p.stream_id,
    sender_id: p.sender_id,
    topic: p.topic,
    topic_key: p.topic_key,
    content: p.content,
    rendered_content: p.rendered_content,
    date_sent: p.date_sent,
    sending_client: p.sending_client,
    last_edit_time: p.last_edit_time,
    last_moved_time: p.last_moved_time,
    edit_history: p.edit_history,
    is_me_message: p.is_me_message,
    has_link: p.has_link,
    has_image: p.has_image,
    has_attachment: p.has_attachment,
  });
}

// SQLite runs RETURNING as a per-row trigger into a buffer: its inserted row ID is cheaper.
const insertMessageSqlite = prepared((db, p: Omit<Message, 'id'>) => messageInsert(db, p));
// The transaction's ID rides along: the commit stamp then needs no statement of its own.
const insertMessageReturning = prepared((db, p: Omit<Message, 'id'>) => messageInsert(db, p).returning(['id', sql<string>`pg_current_xact_id()::text`.as('xid')]));

/** Inserts the message row (every column but the ID is the caller's) and returns its ID. */
export async function insertMessage(tx: Kysely<DB>, dialect: Dialect, row: Omit<Message, 'id'>): Promise<number> {
  if (dialect === 'sqlite') return Number((await insertMessageSqlite.result(tx, dialect, row)).insertId);
  const { id, xid } = (await insertMessageReturning.first(tx, dialect, row))!;
  noteTransactionId(tx, xid);
  return id;
}

interface SubscriberRowsValues {
  streamId: number;
  messageId: number;
  senderId: number;
  readBit: number;
}

/**
 * The active subscribers of a channel who are active users, each with their new row's flags (the
 * sender's may be read). The subscription's copy of its user's active state (user_active) answers
 * from the subscriptions_stream index alone: looking each subscriber's user up took a quarter of
 * PostgreSQL's work for a send to 100 subscribers, and a join let a named statement's generic plan
 * hash a scan of every user in the database.
 *
 * opaqueChannel: the channel's ID reaches the planner only through a scalar subquery, so no plan
 * estimates one channel's size. PostgreSQL then keeps the named statement's generic plan instead
 * of planning it again on every send: with the value visible, every channel smaller than the
 * average was estimated cheaper than the generic plan, so each send paid a custom plan (a quarter
 * of PostgreSQL's work for a 100-recipient send).
 */
function subscriberRows(db: QueryCreator<DB>, p: Omit<SubscriberRowsValues, 'messageId'> & { messageId: number | RawBuilder<number> }, opaqueChannel = false) {
  return db
    .selectFrom('subscriptions as s')
    .select([
      's.user_id',
      sql<number>`CAST(${p.messageId} AS integer)`.as('message_id'),
      sql<number>`CASE WHEN s.user_id = ${p.senderId} THEN CAST(${p.readBit} AS integer) ELSE 0 END`.as('flags'),
    ])
    .where('s.stream_id', '=', opaqueChannel ? sql<number>`(SELECT CAST(${p.streamId} AS integer))` : p.streamId)
    .where('s.active', '=', 1)
    .where('s.user_active', '=', 1);
}

function subscriberInsert(db: Kysely<DB>, p: SubscriberRowsValues) {
  return db.insertInto('user_messages').columns(['user_id', 'message_id', 'flags']).expression(subscriberRows(db, p));
}

const insertSubscriberRowsPlain = prepared((db, p: SubscriberRowsValues) => subscriberInsert(db, p));
const insertSubscriberRowsReturning = prepared((db, p: SubscriberRowsValues) => subscriberInsert(db, p).returning('user_id'));
/** The users holding a row of the message, as one JSON array: one result row instead of one object per recipient. */
const messageUsersJson = prepared((db, p: { messageId: number }) =>
  db.selectFrom('user_messages').select(sql<string>`json_group_array(user_id)`.as('ids')).where('message_id', '=', p.messageId),
);

/**
 * Every subscriber's user_messages row in one INSERT … SELECT; returns the recipients. This must
 * be the message's first user_messages write. On SQLite, RETURNING (a trigger per row, then a
 * row object each) cost as much as the insert itself; reading the IDs back as one JSON array in
 * the same transaction costs a fraction of it. PostgreSQL returns them with the insert.
 */
export async function insertSubscriberRows(tx: Kysely<DB>, dialect: Dialect, values: SubscriberRowsValues): Promise<number[]> {
  if (dialect === 'postgres') return (await insertSubscriberRowsReturning.rows(tx, dialect, values)).map((r) => r.user_id);
  await insertSubscriberRowsPlain.result(tx, dialect, values);
  const row = await messageUsersJson.first(tx, dialect, { messageId: values.messageId });
  return row ? (JSON.parse(row.ids) as number[]) : [];
}

/**
 * PostgreSQL: the message row and every subscriber's user_messages row in one statement (the second
 * insert takes the new ID from the first's RETURNING), with the transaction's ID and the recipients.
 */
const insertMessageAndSubscribers = prepared((db, p: Omit<Message, 'id'> & { streamId: number; senderId: number; readBit: number }) =>
  db
    .with('m', (qc) => messageInsert(qc, p).returning(['id', sql<string>`pg_current_xact_id()::text`.as('xid')]))
    .with('um', (qc) =>
      qc
        .insertInto('user_messages')
        .columns(['user_id', 'message_id', 'flags'])
        .expression(subscriberRows(qc, { streamId: p.streamId, senderId: p.senderId, readBit: p.readBit, messageId: sql<number>`(SELECT id FROM m)` }, true))
        .returning('user_id'),
    )
    .selectFrom('m')
    .select(['m.id', 'm.xid', sql<number[] | null>`(SELECT json_agg(user_id) FROM um)`.as('recipients')]),
);

/**
 * PostgreSQL: inserts a channel message and its subscribers' rows in one round trip (see
 * insertMessageAndSubscribers); returns the ID and the recipients. For channels small enough for
 * one statement (the caller's choice); this must be the message's first user_messages write.
 */
export async function insertChannelMessage(tx: Kysely<DB>, row: Omit<Message, 'id'> & { stream_id: number }, senderId: number, readBit: number): Promise<{ id: number; recipients: number[] }> {
  const r = (await insertMessageAndSubscribers.first(tx, 'postgres', { ...row, streamId: row.stream_id, senderId, readBit }))!;
  noteTransactionId(tx, r.xid);
  return { id: r.id, recipients: r.recipients ?? [] };
}

type ChunkValues = SubscriberRowsValues & { after: number; limit: number };

function subscriberChunk(db: Kysely<DB>, p: ChunkValues) {
  return db
    .insertInto('user_messages')
    .columns(['user_id', 'message_id', 'flags'])
    .expression(subscriberRows(db, p).where('s.user_id', '>', p.after).orderBy('s.user_id').limit(p.limit));
}

const subscriberChunkInsertPlain = prepared((db, p: ChunkValues) => subscriberChunk(db, p));
const subscriberChunkInsertReturning = prepared((db, p: ChunkValues) => subscriberChunk(db, p).returning('user_id'));
/** The message's rows after user ID `after`, as one JSON array: right after a chunk's insert, exactly that chunk's users. */
const messageUsersAfterJson = prepared((db, p: { messageId: number; after: number; limit: number }) =>
  db
    .selectFrom(db.selectFrom('user_messages').select('user_id').where('message_id', '=', p.messageId).where('user_id', '>', p.after).orderBy('user_id').limit(p.limit).as('chunk'))
    .select(sql<string>`json_group_array(user_id)`.as('ids')),
);

/**
 * The same for a big channel: the next `limit` subscribers after user ID `after`, in user-ID order;
 * returns them. On SQLite read back as one JSON array, as insertSubscriberRows does: with RETURNING,
 * a 10,000-person channel's send made 10,000 row objects (about 3 % of the server's time while
 * delivering to 10,000 listeners). The chunks go in user-ID order and nothing else writes rows of
 * the message before they are done, so the rows after `after` are this chunk's.
 */
export async function insertSubscriberChunk(tx: Kysely<DB>, dialect: Dialect, values: ChunkValues): Promise<number[]> {
  if (dialect === 'postgres') return (await subscriberChunkInsertReturning.rows(tx, dialect, values)).map((r) => r.user_id);
  await subscriberChunkInsertPlain.result(tx, dialect, values);
  const row = await messageUsersAfterJson.first(tx, dialect, { messageId: values.messageId, after: values.after, limit: values.limit });
  return row ? (JSON.parse(row.ids) as number[]) : [];
}

// The statements every channel send runs, compiled once (store/compiled-query.ts): building and compiling them with Kysely cost about a fifth of a send.
import { sql, type Kysely } from 'kysely';
import type { DB, Message, Stream } from '../../store/schema.js';
import type { Dialect } from '../../store/dialect.js';
import { prepared } from '../../store/compiled-query.js';

const streamById = prepared((db, p: { id: number; realmId: number }) => db.selectFrom('streams').selectAll().where('id', '=', p.id).where('realm_id', '=', p.realmId));

/** A channel of the organization by ID (what requireStream reads for a numeric reference). */
export function findStreamById(tx: Kysely<DB>, dialect: Dialect, realmId: number, id: number): Promise<Stream | undefined> {
  return streamById.first(tx, dialect, { id, realmId });
}

function messageInsert(db: Kysely<DB>, p: Omit<Message, 'id'>) {
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
const insertMessageReturning = prepared((db, p: Omit<Message, 'id'>) => messageInsert(db, p).returning('id'));

/** Inserts the message row (every column but the ID is the caller's) and returns its ID. */
export async function insertMessage(tx: Kysely<DB>, dialect: Dialect, row: Omit<Message, 'id'>): Promise<number> {
  if (dialect === 'sqlite') return Number((await insertMessageSqlite.result(tx, dialect, row)).insertId);
  return (await insertMessageReturning.first(tx, dialect, row))!.id;
}

interface SubscriberRowsValues {
  streamId: number;
  messageId: number;
  senderId: number;
  readBit: number;
}

/** The active subscribers of a channel who are active users, each with their new row's flags (the sender's may be read). */
function subscriberRows(db: Kysely<DB>, p: SubscriberRowsValues) {
  return db
    .selectFrom('subscriptions as s')
    .innerJoin('users as u', 'u.id', 's.user_id')
    .select([
      's.user_id',
      sql<number>`CAST(${p.messageId} AS integer)`.as('message_id'),
      sql<number>`CASE WHEN s.user_id = ${p.senderId} THEN CAST(${p.readBit} AS integer) ELSE 0 END`.as('flags'),
    ])
    .where('s.stream_id', '=', p.streamId)
    .where('s.active', '=', 1)
    .where('u.is_active', '=', 1);
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

const subscriberChunkInsert = prepared((db, p: SubscriberRowsValues & { after: number; limit: number }) =>
  db
    .insertInto('user_messages')
    .columns(['user_id', 'message_id', 'flags'])
    .expression(subscriberRows(db, p).where('s.user_id', '>', p.after).orderBy('s.user_id').limit(p.limit))
    .returning('user_id'),
);

/** The same for a big channel: the next `limit` subscribers after user ID `after`, in user-ID order; returns them. */
export async function insertSubscriberChunk(tx: Kysely<DB>, dialect: Dialect, values: SubscriberRowsValues & { after: number; limit: number }): Promise<number[]> {
  return (await subscriberChunkInsert.rows(tx, dialect, values)).map((r) => r.user_id);
}

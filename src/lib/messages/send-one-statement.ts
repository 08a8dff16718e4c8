// PostgreSQL: a channel send in one autocommitted statement, checked against the channel row this
// node last read for a send. Three round trips (BEGIN with the channel read, the insert, COMMIT)
// become one, and both the server and PostgreSQL wake once per send instead of three times.
import { sql, type Kysely } from 'kysely';
import type { DB, Message, Stream } from '../../store/schema.js';
import { prepared } from '../../store/compiled-query.js';
import { FLAG_BITS } from '../../models/flags.js';

/** A channel row as a send read it, with its row version (PostgreSQL's xmin, which every UPDATE changes). */
interface RememberedChannel {
  stream: Stream;
  version: string;
}

const channels = new Map<number, RememberedChannel>();
const MAX_CHANNELS = 10_000;

/** Keeps a channel row read for a send (one with messages, read FOR SHARE), with its row version. */
export function rememberChannelForSend(stream: Stream, version: string): void {
  if (channels.size >= MAX_CHANNELS && !channels.has(stream.id)) channels.clear();
  channels.set(stream.id, { stream, version });
}

/** The channel as this node last read it for a send, if it is the organization's; it may have changed since. */
export function rememberedChannel(realmId: number, streamId: number): RememberedChannel | undefined {
  const c = channels.get(streamId);
  return c && c.stream.realm_id === realmId ? c : undefined;
}

export function forgetChannel(streamId: number): void {
  channels.delete(streamId);
}

interface OneStatementValues extends Omit<Message, 'id'> {
  streamId: number;
  version: string;
  senderId: number;
  readBit: number;
}

/**
 * The channel row, held FOR SHARE (see lib/messages/unread.ts) only if its version is still the one
 * the checks saw; then the message; every active subscriber's row; and the sender's own row when
 * the sender is not among them (unread without a subscription row: no floor covers it). When the
 * channel changed, nothing is written and no row comes back. The channel's ID reaches the
 * subscriber scan through a scalar subquery, so the named statement keeps its generic plan
 * (send-statements.ts, subscriberRows).
 */
const sendStatement = prepared((db, p: OneStatementValues) => {
  const statement = sql<{ id: number; xid: string; recipients: number[] | null; sender_added: boolean }>`
WITH c AS (SELECT id FROM streams WHERE id = ${p.streamId} AND xmin = CAST(${p.version} AS xid) FOR SHARE),
m AS (
  INSERT INTO messages (realm_id, type, recipient_id, stream_id, sender_id, topic, topic_key, content, rendered_content, date_sent, sending_client, last_edit_time, last_moved_time, edit_history, is_me_message, has_link, has_image, has_attachment)
  SELECT ${p.realm_id}, ${p.type}, ${p.recipient_id}, ${p.stream_id}, ${p.sender_id}, ${p.topic}, ${p.topic_key}, ${p.content}, ${p.rendered_content}, ${p.date_sent}, ${p.sending_client}, ${p.last_edit_time}, ${p.last_moved_time}, ${p.edit_history}, ${p.is_me_message}, ${p.has_link}, ${p.has_image}, ${p.has_attachment}
  FROM c
  RETURNING id, pg_current_xact_id()::text AS xid
),
um AS (
  INSERT INTO user_messages (user_id, message_id, flags)
  SELECT s.user_id, m.id, CASE WHEN s.user_id = ${p.senderId} THEN CAST(${p.readBit} AS integer) ELSE 0 END
  FROM m, subscriptions AS s
  WHERE s.stream_id = (SELECT CAST(${p.streamId} AS integer)) AND s.active = 1
    AND (SELECT u.is_active FROM users AS u WHERE u.id = s.user_id) = 1
  RETURNING user_id
),
own AS (
  INSERT INTO user_messages (user_id, message_id, flags)
  SELECT ${p.senderId}, m.id, CAST(${p.readBit} AS integer) | CASE
      WHEN CAST(${p.readBit} AS integer) <> 0 OR EXISTS (SELECT 1 FROM subscriptions WHERE user_id = ${p.senderId} AND stream_id = ${p.streamId}) THEN 0
      ELSE ${sql.lit(FLAG_BITS.unfloored)} END
  FROM m
  WHERE NOT EXISTS (SELECT 1 FROM um WHERE um.user_id = ${p.senderId})
  RETURNING user_id
)
SELECT m.id, m.xid, (SELECT array_agg(user_id) FROM um) AS recipients, EXISTS (SELECT 1 FROM own) AS sender_added FROM m`;
  return { compile: () => statement.compile(db) };
});

export interface OneStatementSend {
  id: number;
  /** The writing transaction's ID, the commit stamp of the message's events. */
  xid: string;
  /** Users who got a row, the sender always among them. */
  recipients: number[];
}

/**
 * Sends a channel message in one autocommitted statement, if the channel row is still at the
 * version given; undefined (nothing written) when it changed. The caller checked the send against
 * that version of the row, and nothing else of the send may need a statement of its own (mentions,
 * alert words, uploads: those take the transaction path).
 */
let sends = 0;

/** How many sends this process made in one statement (for tests: a change to the channel must be seen on that path). */
export function oneStatementSends(): number {
  return sends;
}

export async function sendInOneStatement(db: Kysely<DB>, row: Omit<Message, 'id'> & { stream_id: number }, version: string, senderId: number, readBit: number): Promise<OneStatementSend | undefined> {
  const r = await sendStatement.first(db, 'postgres', { ...row, streamId: row.stream_id, version, senderId, readBit });
  if (!r) return undefined;
  sends++;
  const recipients = r.recipients ?? [];
  if (r.sender_added) recipients.push(senderId);
  return { id: r.id, xid: r.xid, recipients };
}

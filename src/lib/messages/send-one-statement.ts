// PostgreSQL: channel sends in one autocommitted statement (with their event-log rows), checked
// against the channel row this node last read for a send, and batched with the others that arrive
// in the same turn. Three round
// trips per send (BEGIN with the channel read, the insert, COMMIT) become one per batch, and the
// server and PostgreSQL wake once, with one commit, for all of them.
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

/** One send of a batch: the message row and what the statement checks and writes for it. */
interface BatchedSend {
  row: Omit<Message, 'id'> & { stream_id: number };
  version: string;
  readBit: number;
  /** Its event-log row's text, the message ID written as LOG_ID_MARK (see messageLogText). */
  logBody: string;
}

/**
 * Stands for the message ID in a log row's text until the statement knows it: a character JSON
 * text never holds unescaped, so no message content can contain it.
 */
export const LOG_ID_MARK = '\u0001';
/** PostgreSQL: the key of the transaction lock that orders log ids by commit (event-log.ts). */
const LOG_LOCK_KEY = 0x706c6f67;

/** The batch's values, one array per column, in arrival order. */
interface BatchValues {
  streamIds: number[];
  versions: string[];
  realmIds: number[];
  types: number[];
  recipientIds: number[];
  senderIds: number[];
  topics: string[];
  topicKeys: string[];
  contents: string[];
  renderedContents: string[];
  datesSent: number[];
  sendingClients: string[];
  isMeMessages: number[];
  hasLinks: number[];
  hasImages: number[];
  hasAttachments: number[];
  readBits: number[];
  logBodies: string[];
}

const INPUT_COLUMNS = ['stream_id', 'version', 'realm_id', 'type', 'recipient_id', 'sender_id', 'topic', 'topic_key', 'content', 'rendered_content', 'date_sent', 'sending_client', 'is_me_message', 'has_link', 'has_image', 'has_attachment', 'read_bit', 'log_body', 'ord'];
/** The columns listed, prefixed: a statement with `*` would stay unnamed (store/pg-statements.ts), planned on every run. */
const inputColumns = (prefix: string) => sql.raw(INPUT_COLUMNS.map((c) => `${prefix}${c}`).join(', '));

/**
 * The sends that arrived together, in one statement. For each: its channel row, held FOR SHARE (see
 * lib/messages/unread.ts) only if its version is still the one the checks saw; then the message,
 * with an ID from the sequence in arrival order; every active subscriber's row; and the sender's
 * own row when the sender is not among them (the same test as for the subscribers, by key; unread
 * without a subscription row: no floor covers it). A send whose channel changed writes nothing and
 * gets no result row. The subscribers are read per message through a fenced LATERAL subquery, so
 * the one generic plan PostgreSQL keeps for the statement is an index lookup per channel, whatever
 * the statistics say. The recipients come back as JSON (json_agg), which the driver reads with
 * JSON.parse: its parser of array literals, character by character, took 1.4 % of the server's
 * samples under full load.
 */
const batchStatement = prepared((db, p: BatchValues) => {
  const statement = sql<{ ord: string; id: number; log_id: string; xid: string; recipients: number[] | null; sender_added: boolean }>`
WITH input AS (
  SELECT ${inputColumns('')} FROM unnest(
    CAST(${p.streamIds} AS integer[]), CAST(${p.versions} AS text[]), CAST(${p.realmIds} AS integer[]), CAST(${p.types} AS integer[]),
    CAST(${p.recipientIds} AS integer[]), CAST(${p.senderIds} AS integer[]), CAST(${p.topics} AS text[]), CAST(${p.topicKeys} AS text[]),
    CAST(${p.contents} AS text[]), CAST(${p.renderedContents} AS text[]), CAST(${p.datesSent} AS integer[]), CAST(${p.sendingClients} AS text[]),
    CAST(${p.isMeMessages} AS integer[]), CAST(${p.hasLinks} AS integer[]), CAST(${p.hasImages} AS integer[]), CAST(${p.hasAttachments} AS integer[]),
    CAST(${p.readBits} AS integer[]), CAST(${p.logBodies} AS text[])
  ) WITH ORDINALITY AS t(${inputColumns('')})
),
c AS (SELECT id, xmin::text AS version FROM streams WHERE id = ANY (CAST(${p.streamIds} AS integer[])) FOR SHARE),
lk AS (SELECT pg_advisory_xact_lock(${sql.lit(LOG_LOCK_KEY)}) AS locked),
ok AS (
  SELECT nextval('messages_id_seq')::integer AS id, nextval('event_log_id_seq') AS log_id, ${inputColumns('v.')}
  FROM (SELECT ${inputColumns('i.')} FROM input AS i JOIN c ON c.id = i.stream_id AND c.version = i.version ORDER BY i.ord) AS v
  CROSS JOIN lk
),
ev AS (
  INSERT INTO event_log (id, realm_id, stamp, created_at, body)
  SELECT ok.log_id, ok.realm_id, pg_current_xact_id()::text, ok.date_sent, replace(ok.log_body, chr(1), ok.id::text)
  FROM ok
),
m AS (
  INSERT INTO messages (id, realm_id, type, recipient_id, stream_id, sender_id, topic, topic_key, content, rendered_content, date_sent, sending_client, last_edit_time, last_moved_time, edit_history, is_me_message, has_link, has_image, has_attachment)
  SELECT id, realm_id, type, recipient_id, stream_id, sender_id, topic, topic_key, content, rendered_content, date_sent, sending_client, NULL, NULL, NULL, is_me_message, has_link, has_image, has_attachment
  FROM ok
),
um AS (
  INSERT INTO user_messages (user_id, message_id, flags)
  SELECT s.user_id, ok.id, CASE WHEN s.user_id = ok.sender_id THEN ok.read_bit ELSE 0 END
  FROM ok CROSS JOIN LATERAL (
    SELECT sub.user_id FROM subscriptions AS sub
    WHERE sub.stream_id = ok.stream_id AND sub.active = 1 AND sub.user_active = 1
    OFFSET 0
  ) AS s
  RETURNING user_id, message_id
),
own AS (
  INSERT INTO user_messages (user_id, message_id, flags)
  SELECT ok.sender_id, ok.id, ok.read_bit | CASE
      WHEN ok.read_bit <> 0 OR EXISTS (SELECT 1 FROM subscriptions AS x WHERE x.user_id = ok.sender_id AND x.stream_id = ok.stream_id) THEN 0
      ELSE ${sql.lit(FLAG_BITS.unfloored)} END
  FROM ok
  WHERE NOT EXISTS (
    SELECT 1 FROM subscriptions AS y
    WHERE y.user_id = ok.sender_id AND y.stream_id = ok.stream_id AND y.active = 1 AND y.user_active = 1
  )
  RETURNING message_id
),
r AS (SELECT message_id, json_agg(user_id) AS recipients FROM um GROUP BY message_id)
SELECT ok.ord, ok.id, ok.log_id, pg_current_xact_id()::text AS xid, r.recipients, EXISTS (SELECT 1 FROM own WHERE own.message_id = ok.id) AS sender_added
FROM ok LEFT JOIN r ON r.message_id = ok.id`;
  return { compile: () => statement.compile(db) };
});

export interface OneStatementSend {
  id: number;
  /** Its event-log row (written by the same statement). */
  logId: number;
  /** The writing transaction's ID, the commit stamp of the message's events. */
  xid: string;
  /** Users who got a row, the sender always among them. */
  recipients: number[];
}

/** Sends in one statement at most: the statement's arrays and its result stay small. */
const MAX_BATCH = 64;

interface Waiting {
  send: BatchedSend;
  resolve: (sent: OneStatementSend | undefined) => void;
  reject: (error: unknown) => void;
}

/**
 * Collects the sends that arrive in the same turn of the event loop (the I/O phase's requests) and
 * writes them with one statement: one round trip, one commit and one WAL flush for all of them,
 * where each alone took its own. A batch in flight does not hold back the next one.
 */
class SendBatcher {
  private waiting: Waiting[] = [];
  private scheduled = false;

  constructor(private readonly db: Kysely<DB>) {}

  add(send: BatchedSend): Promise<OneStatementSend | undefined> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ send, resolve, reject });
      if (this.scheduled) return;
      this.scheduled = true;
      setImmediate(() => {
        this.scheduled = false;
        while (this.waiting.length) void this.write(this.waiting.splice(0, MAX_BATCH));
      });
    });
  }

  private async write(batch: Waiting[]): Promise<void> {
    let rows: Awaited<ReturnType<typeof batchStatement.rows>>;
    try {
      rows = await batchStatement.rows(this.db, 'postgres', columns(batch.map((w) => w.send)));
    } catch (error) {
      // PostgreSQL refused the statement, so nothing was written (one statement, one transaction):
      // each send takes the transaction path, which reports its own error if there is one. A lost
      // connection leaves the outcome unknown (the commit may have happened): the sends fail, as a
      // transaction whose COMMIT got no answer does, rather than risk writing them twice.
      const refused = typeof (error as { severity?: unknown }).severity === 'string';
      for (const w of batch) {
        if (refused) w.resolve(undefined);
        else w.reject(error);
      }
      return;
    }
    const byOrder = new Map(rows.map((r) => [Number(r.ord), r]));
    batch.forEach((w, i) => {
      const r = byOrder.get(i + 1);
      if (!r) return w.resolve(undefined);
      sends++;
      const recipients = r.recipients ?? [];
      if (r.sender_added) recipients.push(w.send.row.sender_id);
      w.resolve({ id: r.id, logId: Number(r.log_id), xid: r.xid, recipients });
    });
  }
}

function columns(sends: BatchedSend[]): BatchValues {
  return {
    streamIds: sends.map((s) => s.row.stream_id),
    versions: sends.map((s) => s.version),
    realmIds: sends.map((s) => s.row.realm_id),
    types: sends.map((s) => s.row.type),
    recipientIds: sends.map((s) => s.row.recipient_id),
    senderIds: sends.map((s) => s.row.sender_id),
    topics: sends.map((s) => s.row.topic),
    topicKeys: sends.map((s) => s.row.topic_key),
    contents: sends.map((s) => s.row.content),
    renderedContents: sends.map((s) => s.row.rendered_content),
    datesSent: sends.map((s) => s.row.date_sent),
    sendingClients: sends.map((s) => s.row.sending_client),
    isMeMessages: sends.map((s) => s.row.is_me_message),
    hasLinks: sends.map((s) => s.row.has_link),
    hasImages: sends.map((s) => s.row.has_image),
    hasAttachments: sends.map((s) => s.row.has_attachment),
    readBits: sends.map((s) => s.readBit),
    logBodies: sends.map((s) => s.logBody),
  };
}

/** A batcher per database handle (a test may hand in a transaction). */
const batchers = new WeakMap<Kysely<DB>, SendBatcher>();

let sends = 0;

/** How many sends this process made in one statement (for tests: a change to the channel must be seen on that path). */
export function oneStatementSends(): number {
  return sends;
}

/**
 * Sends a channel message with the others of this turn in one autocommitted statement, if the
 * channel row is still at the version given; undefined (nothing written for it) when it changed or
 * PostgreSQL refused the statement; rejects when the connection failed. The caller checked the send against that version of the row, and nothing
 * else of the send may need a statement of its own (mentions, alert words, uploads: those take the
 * transaction path). The row's last edit, move and history are empty, as a new message's are.
 */
export function sendInOneStatement(db: Kysely<DB>, row: Omit<Message, 'id'> & { stream_id: number }, version: string, readBit: number, logBody: string): Promise<OneStatementSend | undefined> {
  let batcher = batchers.get(db);
  if (!batcher) batchers.set(db, (batcher = new SendBatcher(db)));
  return batcher.add({ row, version, readBit, logBody });
}

// Sending a message: checks, Markdown rendering (before the transaction), the message row, every
// recipient's user_messages row in one INSERT … SELECT (on PostgreSQL in the message's own
// statement), and the message events; search indexing follows in batches (search-indexer.ts).
// A channel send's own statements are compiled once (lib/messages/send-statements.ts). On PostgreSQL
// a plain send to a channel this node read for an earlier send goes in one statement with the other
// such sends of its turn (send-one-statement.ts).
import type { Transaction } from 'kysely';
import type { AppContext } from '../context.js';
import type { DB, Message, Realm, Stream, User } from '../store/schema.js';
import type { Dialect } from '../store/dialect.js';
import type { Outgoing } from '../events/publish.js';
import { logInTransaction, publishLogged } from '../events/publish.js';
import { FLAG_BITS } from '../models/flags.js';
import { missing } from '../core/params.js';
import { loadRenderContext, renderMessage, type RenderResult } from '../lib/markdown/index.js';
import { renderOptionsFor } from '../lib/markdown/render-options.js';
import { normalizeContent } from '../lib/messages/content.js';
import { linkAttachments } from '../lib/uploads.js';
import { checkCanSendToStream, isDbId, noStreamWithId, requireStream } from '../lib/messages/access.js';
import { findStreamById, findStreamForSend, insertChannelMessage, insertMessage, insertSubscriberChunk, insertSubscriberRows as insertAllSubscriberRows } from '../lib/messages/send-statements.js';
import { getOrCreateDmRecipient, resolveDmParticipants } from '../lib/messages/recipients.js';
import { checkTopicAllowed, normalizeTopicInput, topicKey } from '../lib/messages/topic.js';
import { messageDict, MESSAGE_TYPE_PRIVATE, MESSAGE_TYPE_STREAM } from '../lib/messages/dicts.js';
import { applyMentionBits, flagNameMap, mentionBitsFor, orFlags, wildcardTopicParticipants } from '../lib/messages/flags-sql.js';
import { alertedUserIds, realmAlertWords, type RealmAlertWords } from '../lib/personal/alert-words.js';
import { mutersOf } from '../lib/muted-users.js';
import { triggerOutgoingWebhooks } from './outgoing-webhooks.js';
import { withGroupMentions } from '../lib/messages/group-mentions.js';
import { emptyTopicDisplayName } from '../lib/realm-settings.js';
import { streamPeerAudience } from '../lib/streams/access.js';
import { firstMessageEvent } from './messages-common.js';
import { attachmentEvents } from './attachments.js';
import { lockStreams } from '../lib/messages/unread.js';
import { forgetChannel, LOG_ID_MARK, rememberedChannel, sendInOneStatement } from '../lib/messages/send-one-statement.js';
import { messageLogText } from '../events/event-log.js';
import { noteSentForEmail, type SentMessage } from '../lib/mail/pending.js';

export interface SendInput {
  kind: 'stream' | 'private';
  /** Channel ID or name (channel messages). */
  stream?: number | string;
  /** User IDs or emails (direct messages). */
  dmTo?: number[] | string[];
  /** Raw topic as the client sent it; undefined when absent. */
  topic?: string;
  content: string;
  readBySender: boolean;
  clientName: string;
  /** A system bot's notice to a channel the server chose (moderation requests): no posting check for the bot. */
  internal?: boolean;
  queueId?: string;
  localId?: string;
  /** Runs first inside the sending transaction (an aborting throw sends nothing); its events go out with the message's. */
  beforeInsert?: (tx: Transaction<DB>) => Promise<Outgoing[]>;
}

export async function doSendMessage(app: AppContext, realm: Realm, sender: User, input: SendInput): Promise<{ id: number }> {
  const content = normalizeContent(input.content);
  const rendered = renderMessage(content, await loadRenderContext(app.store.db, realm.id, content, await renderOptionsFor(app, realm, sender)));
  const now = app.clock.now();
  const dialect = app.store.dialect;
  // From memory after the realm's first send (reloaded when someone's words change): no query per send.
  const alertWords = await realmAlertWords(app, realm.id);
  // Recipients who muted the sender get the message already read; from memory as the alert words are.
  const muters = await mutersOf(app, realm.id, sender.id);
  if (dialect === 'postgres' && !muters.length) {
    const sent = await sendToRememberedChannel(app, realm, sender, input, content, rendered, now, alertWords);
    if (sent) return sent;
  }

  const { result, stamp } = await app.store.write(async (tx) => {
    const extra = input.beforeInsert ? await input.beforeInsert(tx) : [];
    let stream: Stream | null = null;
    let recipientId: number;
    let topic = '';
    let participants: User[] = [];
    if (input.kind === 'stream') {
      if (input.stream === undefined) throw missing('to');
      const ref = input.stream;
      const byId = typeof ref === 'number' && isDbId(ref);
      // PostgreSQL: the usual channel, one with messages, comes read and locked FOR SHARE in one statement.
      stream = byId && dialect === 'postgres' ? ((await findStreamForSend(tx, realm.id, ref)) ?? null) : null;
      if (!stream) {
        // The usual numeric reference through the compiled statement; a name, or a channel not found, takes requireStream's path and errors.
        stream = (byId ? await findStreamById(tx, dialect, realm.id, ref) : undefined) ?? (await requireStream(tx, realm.id, ref));
        // Holds off floor raisers until this message commits (PostgreSQL; see lib/messages/unread.ts).
        // The channel's first message also updates the channel row: take that lock up front, so two
        // first sends cannot deadlock upgrading their shared locks.
        await lockStreams(tx, dialect, [stream.id], stream.first_message_id === null ? 'update' : 'share');
        // Read again under the lock: another first send may have committed between the read and the lock.
        if (stream.first_message_id === null && dialect === 'postgres') stream = (await findStreamById(tx, dialect, realm.id, stream.id)) ?? stream;
      }
      if (!input.internal) await checkCanSendToStream(tx, sender, stream, byId ? () => noStreamWithId(ref as number) : undefined);
      if (input.topic === undefined) throw missing('topic');
      topic = normalizeTopicInput(input.topic, realm);
      checkTopicAllowed(topic, realm, stream);
      recipientId = stream.recipient_id;
    } else {
      participants = await resolveDmParticipants(tx, realm, sender, input.dmTo ?? []);
      recipientId = await getOrCreateDmRecipient(
        tx,
        realm.id,
        participants.map((u) => u.id),
      );
    }

    const row = messageRow(realm, sender, stream, recipientId, topic, content, rendered, now, input.clientName);
    const readBit = input.readBySender ? FLAG_BITS.read : 0;
    // Before the insert (they read no new row): on PostgreSQL the message and its recipients' rows then go in one statement.
    const mentions = await withGroupMentions(tx, sender, rendered);
    const mentionBits = mentionBitsFor(mentions, stream ? await wildcardTopicParticipants(tx, mentions, recipientId, topic, sender.id) : null);
    let id: number;
    let recipients: number[] | undefined;
    if (stream && dialect === 'postgres' && !isBigChannel(stream.id)) {
      ({ id, recipients } = await insertChannelMessage(tx, { ...row, stream_id: stream.id }, sender.id, readBit));
      remember(stream.id, recipients.length);
    } else id = await insertMessage(tx, dialect, row);
    const message: Message = { id, ...row };
    const bits = new Map<number, number>();

    if (stream) {
      for (const userId of recipients ?? (await insertSubscriberRows(tx, dialect, stream.id, id, sender.id, readBit))) bits.set(userId, userId === sender.id ? readBit : 0);
      if (!bits.has(sender.id)) {
        // The sender always has the message, subscribed or not; unread without a subscription row, no floor covers it.
        const subRow = readBit ? true : !!(await tx.selectFrom('subscriptions').select('id').where('user_id', '=', sender.id).where('stream_id', '=', stream.id).executeTakeFirst());
        await tx
          .insertInto('user_messages')
          .values({ user_id: sender.id, message_id: id, flags: readBit | (subRow ? 0 : FLAG_BITS.unfloored) })
          .execute();
        bits.set(sender.id, readBit);
      }
      if (mentionBits.size) {
        const all = mentionBits.get(-1) ?? 0;
        for (const [userId, b] of bits) bits.set(userId, b | all | (mentionBits.get(userId) ?? 0));
        await applyMentionBits(tx, id, mentionBits);
      }
      const alerted = alertedUserIds(alertWords, bits.keys(), sender.id, content);
      for (const userId of alerted) bits.set(userId, bits.get(userId)! | FLAG_BITS.has_alert_word);
      await orFlags(tx, [id], alerted, FLAG_BITS.has_alert_word);
      const mutedFor = muters.filter((userId) => bits.has(userId));
      for (const userId of mutedFor) bits.set(userId, bits.get(userId)! | FLAG_BITS.read);
      await orFlags(tx, [id], mutedFor, FLAG_BITS.read);
    } else {
      const all = mentionBits.get(-1) ?? 0;
      for (const u of participants) bits.set(u.id, FLAG_BITS.is_private | (u.id === sender.id ? readBit : 0) | all | (mentionBits.get(u.id) ?? 0));
      for (const userId of alertedUserIds(alertWords, bits.keys(), sender.id, content)) bits.set(userId, bits.get(userId)! | FLAG_BITS.has_alert_word);
      for (const userId of muters) if (bits.has(userId)) bits.set(userId, bits.get(userId)! | FLAG_BITS.read);
      await tx
        .insertInto('user_messages')
        .values([...bits].map(([userId, flags]) => ({ user_id: userId, message_id: id, flags })))
        .execute();
    }
    // A substring test first: most messages link no upload and pay nothing more.
    const linked = content.includes('/user_uploads/') ? await linkAttachments(tx, sender, id, content) : [];

    const outgoing: Outgoing[] = [];
    if (stream && stream.first_message_id === null) {
      await tx.updateTable('streams').set({ first_message_id: id }).where('id', '=', stream.id).execute();
      outgoing.push({ users: await streamPeerAudience(tx, stream), event: firstMessageEvent(stream, id) });
    }
    outgoing.unshift(messageNotice(message, realm, sender, stream, participants, bits, input));
    outgoing.push(...extra);
    if (linked.length) outgoing.push(...(await attachmentEvents(tx, 'update', linked)));
    const email: SentMessage = { realmId: realm.id, id, senderId: sender.id, streamId: stream?.id ?? null, topicKey: row.topic_key, bits, mayMention: mentionBits.size > 0 };
    // The events go into the event log with the message: a crash after the commit loses none.
    const logged = await logInTransaction(app, tx, realm.id, outgoing);
    return { id, outgoing, email, logged };
  });
  app.counters.sendCommits++;
  publishLogged(app, result.logged, stamp);
  app.search.noteCommitted(result.id);
  // Outgoing-webhook bots mentioned or written to: called after this returns (the one-statement path
  // above takes no message with mentions, and channel messages trigger only by mention).
  triggerOutgoingWebhooks(app, realm, sender, result.outgoing[0], rendered.mentionedUserIds, doSendMessage);
  noteSentForEmail(app, result.email);
  return { id: result.id };
}

/**
 * PostgreSQL: a channel send in one statement (lib/messages/send-one-statement.ts), when this node
 * has read the channel for an earlier send and the message needs nothing but its rows: no
 * mention, alert word or upload, no extra work before the insert, not a big channel. The checks run
 * against the remembered row; the statement writes only if the row is still at that version.
 * Undefined when the send must take the transaction path (which then checks it afresh, so a
 * remembered row that fails a check is never the reason for an error).
 */
async function sendToRememberedChannel(app: AppContext, realm: Realm, sender: User, input: SendInput, content: string, rendered: RenderResult, now: number, alertWords: RealmAlertWords): Promise<{ id: number } | undefined> {
  if (input.kind !== 'stream' || input.beforeInsert || typeof input.stream !== 'number' || input.topic === undefined) return undefined;
  if (rendered.mentionedUserIds.length || rendered.mentionedGroupIds.length || rendered.streamWildcardMentioned || rendered.topicWildcardMentioned) return undefined;
  if (content.includes('/user_uploads/') || alertedUserIds(alertWords, alertWords.keys(), sender.id, content).length) return undefined;
  const remembered = rememberedChannel(realm.id, input.stream);
  if (!remembered || isBigChannel(remembered.stream.id)) return undefined;
  const stream = remembered.stream;
  let topic: string;
  try {
    await checkCanSendToStream(app.store.db, sender, stream);
    topic = normalizeTopicInput(input.topic, realm);
    checkTopicAllowed(topic, realm, stream);
  } catch {
    return undefined;
  }
  const row = messageRow(realm, sender, stream, stream.recipient_id, topic, content, rendered, now, input.clientName);
  const readBit = input.readBySender ? FLAG_BITS.read : 0;
  // The event-log row goes in the same statement: the notice made now, with the sender as its one
  // known recipient (the others are the message's user_messages rows, and have no flags on this path).
  const logBody = messageLogText(messageNotice({ id: 0, ...row }, realm, sender, stream, [], new Map([[sender.id, readBit]]), input), LOG_ID_MARK);
  const sent = await sendInOneStatement(app.store.db, { ...row, stream_id: stream.id }, remembered.version, readBit, logBody);
  if (!sent) {
    // The channel changed since (or PostgreSQL refused the statement): the transaction path reads
    // it again (and remembers the new row).
    forgetChannel(stream.id);
    return undefined;
  }
  remember(stream.id, sent.recipients.length);
  const bits = new Map<number, number>();
  for (const userId of sent.recipients) bits.set(userId, userId === sender.id ? readBit : 0);
  app.counters.sendCommits++;
  app.feed.committedRow(sent.logId, realm.id, [messageNotice({ id: sent.id, ...row }, realm, sender, stream, [], bits, input)], { kind: 'xid', xid: sent.xid });
  app.search.noteCommitted(sent.id);
  noteSentForEmail(app, { realmId: realm.id, id: sent.id, senderId: sender.id, streamId: stream.id, topicKey: row.topic_key, bits, mayMention: false });
  return { id: sent.id };
}

/** A new message's row: everything but its ID. */
function messageRow(realm: Realm, sender: User, stream: Stream | null, recipientId: number, topic: string, content: string, rendered: RenderResult, now: number, clientName: string): Omit<Message, 'id'> {
  return {
    realm_id: realm.id,
    type: stream ? MESSAGE_TYPE_STREAM : MESSAGE_TYPE_PRIVATE,
    recipient_id: recipientId,
    stream_id: stream?.id ?? null,
    sender_id: sender.id,
    topic,
    topic_key: topicKey(topic),
    content,
    rendered_content: rendered.html,
    date_sent: now,
    sending_client: clientName,
    last_edit_time: null,
    last_moved_time: null,
    edit_history: null,
    is_me_message: rendered.isMeMessage ? 1 : 0,
    has_link: rendered.hasLink ? 1 : 0,
    has_image: 0,
    has_attachment: 0,
  };
}

/** The message event for everyone who got a row, each with their flags (bits). */
function messageNotice(message: Message, realm: Realm, sender: User, stream: Stream | null, participants: User[], bits: Map<number, number>, input: SendInput): Outgoing {
  const displayRecipient = stream ? stream.name : participants.map((u) => ({ id: u.id, email: u.email, full_name: u.full_name, is_mirror_dummy: false }));
  const dict = messageDict(message, realm, sender, displayRecipient, []);
  return {
    users: [...bits.keys()],
    event: { type: 'message', message: dict, __empty_topic_name: emptyTopicDisplayName(realm) },
    flags: flagNameMap(bits),
    ...(stream && !stream.invite_only ? { publicStreamId: stream.id } : {}),
    ...(input.queueId !== undefined && input.localId !== undefined ? { senderQueueId: input.queueId, localId: input.localId } : {}),
  };
}

/** Subscriber rows written per statement in a big channel; between statements the send yields the event loop. */
const ROWS_PER_STATEMENT = 1000;

/**
 * Recipients of each channel's last message sent through this node. A channel last seen with more
 * than ROWS_PER_STATEMENT is written in chunks; others in one statement, which is measurably
 * cheaper than an ordered, limited one (about 15 % of a 100-recipient send). A channel that grew
 * since is chunked from its next message on.
 */
const lastRecipients = new Map<number, number>();
const MAX_REMEMBERED = 100_000;

/**
 * Every active subscriber gets a row (the sender's marked read), by INSERT … SELECT. A big
 * channel's rows go a thousand per statement in user-id order, with the event loop free between
 * statements. Returns the recipients, for the event.
 */
async function insertSubscriberRows(tx: Transaction<DB>, dialect: Dialect, streamId: number, messageId: number, senderId: number, readBit: number): Promise<number[]> {
  const values = { streamId, messageId, senderId, readBit };
  if (!isBigChannel(streamId)) {
    const recipients = await insertAllSubscriberRows(tx, dialect, values);
    remember(streamId, recipients.length);
    return recipients;
  }
  const recipients: number[] = [];
  let after = 0;
  for (;;) {
    const chunk = await insertSubscriberChunk(tx, dialect, { ...values, after, limit: ROWS_PER_STATEMENT });
    for (const userId of chunk) {
      recipients.push(userId);
      if (userId > after) after = userId;
    }
    if (chunk.length < ROWS_PER_STATEMENT) break;
    await new Promise((r) => setImmediate(r));
  }
  remember(streamId, recipients.length);
  return recipients;
}

/** Whether the channel's rows go in chunks (see lastRecipients). */
function isBigChannel(streamId: number): boolean {
  return (lastRecipients.get(streamId) ?? 0) > ROWS_PER_STATEMENT;
}

function remember(streamId: number, count: number): void {
  if (lastRecipients.size >= MAX_REMEMBERED) lastRecipients.clear();
  lastRecipients.set(streamId, count);
}

// Imported messages in date order with new IDs: rendered as if sent, every recipient's row with its
// flags, reactions, upload links, then unread floors and each channel's first message.
import { CompiledQuery, sql, type Insertable, type Transaction } from 'kysely';
import type { DB, Realm } from '../store/schema.js';
import type { Dialect } from '../store/dialect.js';
import { FLAG_BITS } from '../models/flags.js';
import { renderMessage, type RenderContext } from '../lib/markdown/index.js';
import { dmKey, getOrCreateDmRecipient } from '../lib/messages/recipients.js';
import { topicKey } from '../lib/messages/topic.js';
import { MESSAGE_TYPE_PRIVATE, MESSAGE_TYPE_STREAM } from '../lib/messages/dicts.js';
import { sourceEmoji } from './emoji-names.js';
import { MAX_MESSAGE_LENGTH } from '../models/limits.js';
import { insertMany } from './bulk.js';
import type { ImportBundle, ImportMessage } from './bundle.js';
import type { ChannelRef, WrittenAttachment } from './write.js';

export interface MessageWriteContext {
  tx: Transaction<DB>;
  dialect: Dialect;
  realm: Realm;
  userIds: Map<string, number>;
  channelIds: Map<string, ChannelRef>;
  /** Channel ID → its active subscribers' IDs. */
  subscriptions: Map<number, Set<number>>;
  attachments: Map<string, WrittenAttachment>;
  /** Custom emoji name → code (its ID). */
  emojiCodes: Map<string, string>;
  renderCtx: RenderContext;
  progress?: (done: number, total: number) => void;
}

/** Messages rendered and written per batch; large enough that statements are few, small enough to stay in memory. */
const BATCH = 2000;
const MENTION_BITS = FLAG_BITS.mentioned;
/** Most messages mention nobody: one shared empty set, not one per message. */
const NO_MENTIONS: ReadonlySet<number> = new Set();
const { read: READ, is_private: PRIVATE, unfloored: UNFLOORED } = FLAG_BITS;

/** IDs for n new messages, ascending; the transaction keeps anyone else from taking them. */
async function reserveMessageIds(tx: Transaction<DB>, dialect: Dialect, n: number): Promise<number[]> {
  if (n === 0) return [];
  if (dialect === 'postgres') {
    const { rows } = await sql<{ id: string }>`SELECT nextval(pg_get_serial_sequence('messages', 'id')) AS id FROM generate_series(1, ${n})`.execute(tx);
    return rows.map((r) => Number(r.id)).sort((a, b) => a - b);
  }
  // SQLite AUTOINCREMENT never reuses an ID: start past both the newest row and the sequence.
  const { rows } = await sql<{ next: number }>`SELECT max(coalesce((SELECT max(id) FROM messages), 0), coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'messages'), 0)) + 1 AS next`.execute(tx);
  const first = Number(rows[0].next);
  return Array.from({ length: n }, (_, i) => first + i);
}

/** Control characters other than tab and newline break clients and search; the original drops them too. */
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g;

function prepareContent(m: ImportMessage, ctx: MessageWriteContext): { content: string; attachmentIds: number[] } {
  let content = m.content.replace(/\r\n?/g, '\n').replace(CONTROL, '').trimEnd();
  const attachmentIds: number[] = [];
  const links: string[] = [];
  for (const key of m.attachmentKeys ?? []) {
    const a = ctx.attachments.get(key)!;
    attachmentIds.push(a.id);
    if (a.oldPathId && content.includes(`/user_uploads/${a.oldPathId}`)) content = content.split(`/user_uploads/${a.oldPathId}`).join(`/user_uploads/${a.pathId}`);
    else links.push(`[${a.fileName.replace(/[[\]]/g, '')}](/user_uploads/${a.pathId})`);
  }
  if (links.length) content = content ? `${content}\n${links.join('\n')}` : links.join('\n');
  if (!content.trim()) content = '(empty message)';
  // UTF-16 length bounds the code-point count from above: only long texts need counting.
  if (content.length > MAX_MESSAGE_LENGTH && [...content].length > MAX_MESSAGE_LENGTH) content = [...content].slice(0, MAX_MESSAGE_LENGTH - 3).join('') + '...';
  return { content, attachmentIds };
}

export async function writeMessages(ctx: MessageWriteContext, bundle: ImportBundle): Promise<{ channelMessages: number; directMessages: number; reactions: number; reactionsSkipped: number; maxId: number }> {
  const { tx, realm, userIds } = ctx;
  const order = bundle.messages.map((m, i) => ({ m, i }));
  order.sort((a, b) => a.m.dateSent - b.m.dateSent || a.i - b.i);
  const ids = await reserveMessageIds(tx, ctx.dialect, order.length);
  const dmRecipients = new Map<string, number>();
  /** (user, channel) → smallest unread message ID. */
  const unreadFloor = new Map<string, number>();
  const firstMessage = new Map<number, number>();
  let channelMessages = 0;
  let directMessages = 0;
  let reactions = 0;
  let reactionsSkipped = 0;

  for (let start = 0; start < order.length; start += BATCH) {
    const messages: Insertable<DB['messages']>[] = [];
    const userMessages: DB['user_messages'][] = [];
    const plainChannelIds: number[] = [];
    const reactionRows: Insertable<DB['reactions']>[] = [];
    const attachmentLinks: DB['attachment_messages'][] = [];
    for (let k = start; k < Math.min(order.length, start + BATCH); k++) {
      const m = order[k].m;
      const id = ids[k];
      const senderId = userIds.get(m.senderKey)!;
      const { content, attachmentIds } = prepareContent(m, ctx);
      const rendered = renderMessage(content, ctx.renderCtx);
      const channel = m.channelKey !== undefined ? ctx.channelIds.get(m.channelKey)! : null;
      let recipientId: number;
      let recipients: number[] | null;
      if (channel) {
        recipientId = channel.recipientId;
        recipients = m.flags ? [...m.flags.keys()].map((key) => userIds.get(key)!) : null;
        if (!firstMessage.has(channel.id)) firstMessage.set(channel.id, id);
        channelMessages++;
      } else {
        const members = [...new Set([senderId, ...m.dmUserKeys!.map((key) => userIds.get(key)!)])];
        const key = dmKey(members);
        let r = dmRecipients.get(key);
        if (r === undefined) dmRecipients.set(key, (r = await getOrCreateDmRecipient(tx, realm.id, members)));
        recipientId = r;
        recipients = members;
        directMessages++;
      }
      const mentioned = rendered.mentionedUserIds.length ? new Set(rendered.mentionedUserIds) : NO_MENTIONS;
      const wildcard = (rendered.streamWildcardMentioned ? FLAG_BITS.stream_wildcard_mentioned : 0) | (rendered.topicWildcardMentioned ? FLAG_BITS.topic_wildcard_mentioned : 0);
      const subscribed = channel ? ctx.subscriptions.get(channel.id)! : null;
      if (channel && !recipients && !mentioned.size && !wildcard) {
        // Most messages: every active subscriber has it, read. The database makes those rows from
        // the subscriptions (plainChannelIds); only a sender outside the channel needs a row from here.
        plainChannelIds.push(id);
        if (!subscribed!.has(senderId)) userMessages.push({ message_id: id, user_id: senderId, flags: READ });
      } else {
        recipients ??= [...subscribed!];
        if (!recipients.includes(senderId)) recipients.push(senderId);
        const given = m.flags ? new Map([...m.flags].map(([key, f]) => [userIds.get(key)!, f])) : null;
        for (const userId of new Set(recipients)) {
          const exported = given?.get(userId);
          // History is read unless the export says otherwise (the original's flags).
          let flags = exported !== undefined ? exported & ~(PRIVATE | UNFLOORED) : READ | (mentioned.has(userId) ? MENTION_BITS : 0) | wildcard;
          if (!channel) flags |= PRIVATE;
          else if (!(flags & READ)) {
            if (subscribed!.has(userId)) {
              const fk = `${userId}:${channel.id}`;
              if (!unreadFloor.has(fk)) unreadFloor.set(fk, id);
            } else flags |= UNFLOORED;
          }
          userMessages.push({ message_id: id, user_id: userId, flags });
        }
      }
      const seen = m.reactions.length > 1 ? new Set<string>() : null;
      for (const r of m.reactions) {
        const userId = userIds.get(r.userKey)!;
        const custom = ctx.emojiCodes.get(r.emojiName);
        const unicode = custom ? null : sourceEmoji(r.emojiName);
        // A reaction whose emoji the import does not have (a workspace's custom emoji without its image) is dropped, and counted.
        if (!custom && !unicode) {
          reactionsSkipped++;
          continue;
        }
        const code = custom ?? unicode!.code;
        const type = custom ? 'realm_emoji' : 'unicode_emoji';
        const dup = `${userId}:${type}:${code}`;
        if (seen?.has(dup)) continue;
        seen?.add(dup);
        reactionRows.push({ message_id: id, user_id: userId, emoji_name: custom ? r.emojiName : unicode!.name, emoji_code: code, reaction_type: type });
      }
      for (const attachmentId of attachmentIds) attachmentLinks.push({ attachment_id: attachmentId, message_id: id });
      messages.push({
        id,
        realm_id: realm.id,
        type: channel ? MESSAGE_TYPE_STREAM : MESSAGE_TYPE_PRIVATE,
        recipient_id: recipientId,
        stream_id: channel?.id ?? null,
        sender_id: senderId,
        topic: channel ? m.topic : '',
        topic_key: channel ? topicKey(m.topic) : '',
        content,
        rendered_content: rendered.html,
        date_sent: m.dateSent,
        sending_client: m.sendingClient ?? 'import',
        last_edit_time: m.lastEditTime ?? null,
        last_moved_time: null,
        edit_history: m.editHistory?.length ? JSON.stringify(m.editHistory.map((e) => remapHistory(e, ctx))) : null,
        is_me_message: rendered.isMeMessage ? 1 : 0,
        has_link: rendered.hasLink ? 1 : 0,
        has_image: rendered.hasImage ? 1 : 0,
        has_attachment: attachmentIds.length ? 1 : 0,
      });
    }
    await insertMany(tx, 'messages', messages);
    await insertMany(tx, 'user_messages', userMessages);
    await insertSubscriberRows(tx, ctx.dialect, plainChannelIds);
    await insertMany(tx, 'reactions', reactionRows);
    await insertMany(tx, 'attachment_messages', attachmentLinks);
    reactions += reactionRows.length;
    ctx.progress?.(Math.min(order.length, start + BATCH), order.length);
  }

  await setFloorsAndFirstMessages(ctx, unreadFloor, firstMessage, ids.length ? ids[ids.length - 1] + 1 : 0);
  return { channelMessages, directMessages, reactions, reactionsSkipped, maxId: ids.length ? ids[ids.length - 1] : 0 };
}

/**
 * Rows of every active subscriber, read, for these channel messages (already inserted), made by the
 * database from the subscriptions: no row travels from here. Measured with npm run bench:import:
 * building, binding and collecting the rows in JavaScript cost about as much as inserting them.
 */
async function insertSubscriberRows(tx: Transaction<DB>, dialect: Dialect, messageIds: number[]): Promise<void> {
  if (!messageIds.length) return;
  const select = `SELECT m.id, s.user_id, ${READ} FROM messages m JOIN subscriptions s ON s.stream_id = m.stream_id AND s.active = 1`;
  await tx.executeQuery(
    dialect === 'postgres'
      ? CompiledQuery.raw(`INSERT INTO user_messages (message_id, user_id, flags) ${select} WHERE m.id = ANY($1::int[])`, [messageIds])
      : CompiledQuery.raw(`INSERT INTO user_messages (message_id, user_id, flags) ${select} WHERE m.id IN (SELECT value FROM json_each(?))`, [JSON.stringify(messageIds)]),
  );
}

/** Edit-history entries carry source keys; the stored ones carry the new IDs. */
function remapHistory(e: Record<string, unknown>, ctx: MessageWriteContext): Record<string, unknown> {
  const out = { ...e };
  if (out.user_id !== undefined && out.user_id !== null) out.user_id = ctx.userIds.get(String(out.user_id)) ?? null;
  for (const k of ['prev_stream', 'stream']) if (out[k] !== undefined) out[k] = ctx.channelIds.get(String(out[k]))?.id ?? out[k];
  return out;
}

/**
 * Every subscription's floor: its smallest unread message, else past the import's newest message
 * (no unread row below it, the rule of lib/messages/unread.ts); each channel's first message ID.
 */
async function setFloorsAndFirstMessages(ctx: MessageWriteContext, unreadFloor: Map<string, number>, firstMessage: Map<number, number>, pastNewest: number): Promise<void> {
  const { tx } = ctx;
  const streamIds = [...ctx.channelIds.values()].map((c) => c.id);
  if (streamIds.length && pastNewest) {
    await tx.updateTable('subscriptions').set({ unread_floor: pastNewest }).where('stream_id', 'in', streamIds).execute();
  }
  for (const [key, floor] of unreadFloor) {
    const [userId, streamId] = key.split(':').map(Number);
    await tx.updateTable('subscriptions').set({ unread_floor: floor }).where('user_id', '=', userId).where('stream_id', '=', streamId).execute();
  }
  for (const [streamId, id] of firstMessage) await tx.updateTable('streams').set({ first_message_id: id }).where('id', '=', streamId).execute();
}

// Editing a message: content (the author, within the limit), topic and channel moves (one, later
// or all messages of the topic), edit history, recipients' rows on channel moves, and the events.
import { sql, type SqlBool, type Transaction } from 'kysely';
import type { AppContext } from '../context.js';
import type { DB, Message, Realm, Stream, User } from '../store/schema.js';
import { writeWithEvents, type Outgoing } from '../events/publish.js';
import { badRequest } from '../core/api-error.js';
import { FLAG_BITS } from '../models/flags.js';
import { Role } from '../models/roles.js';
import { loadRenderContext, renderMessage, type RenderResult } from '../lib/markdown/index.js';
import { renderOptionsFor } from '../lib/markdown/render-options.js';
import { normalizeContent } from '../lib/messages/content.js';
import { accessMessage, canAccessStreamHistory, checkCanSendToStream, streamById } from '../lib/messages/access.js';
import { checkTopicAllowed, isResolveToggle, normalizeTopicInput, topicKey } from '../lib/messages/topic.js';
import { checkCanChangeTopic, checkCanEditContent, checkCanMoveChannel } from '../lib/messages/edit-rules.js';
import { applyMentionFlags, clearFlags, MENTION_BITS, topicParticipantIds } from '../lib/messages/flags-sql.js';
import { indexMessages } from '../lib/messages/search.js';
import { withGroupMentions } from '../lib/messages/group-mentions.js';
import { MESSAGE_TYPE_PRIVATE } from '../lib/messages/dicts.js';
import { emptyTopicDisplayName } from '../lib/realm-settings.js';
import { isSubscribed, subscriberIds } from '../lib/streams/access.js';
import { byFlags, refreshFirstMessageIds } from './messages-common.js';
import { lowerFloors } from '../lib/messages/unread.js';
import type { Dialect } from '../store/dialect.js';
import { linkAttachments } from '../lib/uploads.js';
import { attachmentEvents } from './attachments.js';

export type PropagateMode = 'change_one' | 'change_later' | 'change_all';

export interface EditInput {
  content?: string;
  topic?: string;
  streamId?: number;
  propagateMode: PropagateMode;
}

interface Move {
  from: Stream;
  to: Stream;
  oldTopic: string;
  newTopic: string;
  topicChanged: boolean;
  streamChanged: boolean;
  ids: number[];
}

export async function doUpdateMessage(app: AppContext, realm: Realm, user: User, messageId: number, input: EditInput): Promise<void> {
  if (input.content === undefined && input.topic === undefined && input.streamId === undefined) throw badRequest('Nothing to change');
  if (input.content !== undefined && input.streamId !== undefined) throw badRequest('Cannot change message content while changing channel');
  if (input.propagateMode !== 'change_one' && input.topic === undefined && input.streamId === undefined) throw badRequest('Invalid propagate_mode without topic edit');
  const content = input.content === undefined ? undefined : normalizeContent(input.content);
  // Rendered with the editor's settings, which are the sender's: only the author may change content (checkCanEditContent).
  const rendered = content === undefined ? undefined : renderMessage(content, await loadRenderContext(app.store.db, realm.id, content, await renderOptionsFor(app, realm, user)));
  const now = app.clock.now();

  await writeWithEvents(
    app,
    realm.id,
    async (tx) => {
      const { message, stream } = await accessMessage(tx, user, messageId);
      if (message.type === MESSAGE_TYPE_PRIVATE) {
        if (input.streamId !== undefined) throw badRequest('Direct messages cannot be moved to channels.');
        if (input.topic !== undefined) throw badRequest('Direct messages cannot have topics.');
      }
      if (content !== undefined) checkCanEditContent(realm, user, message, now);
      const move = stream ? await planMove(tx, realm, user, message, stream, input, now) : null;
      if (content === undefined && !move) throw badRequest('Nothing to change');

      const outgoing: Outgoing[] = [];
      const event: Record<string, unknown> = {
        type: 'update_message',
        user_id: user.id,
        edit_timestamp: now,
        message_id: message.id,
        message_ids: move ? move.ids : [message.id],
        rendering_only: false,
        __empty_topic_name: emptyTopicDisplayName(realm),
      };
      if (stream) Object.assign(event, { stream_id: stream.id, stream_name: stream.name });
      if (content !== undefined && rendered) {
        await applyContentEdit(tx, user, message, content, rendered, now, move);
        // Links are added, never dropped: earlier versions stay readable in the edit history.
        if (content.includes('/user_uploads/')) outgoing.push(...(await attachmentEvents(tx, 'update', await linkAttachments(tx, user, message.id, content))));
        Object.assign(event, {
          orig_content: message.content,
          orig_rendered_content: message.rendered_content,
          content,
          rendered_content: rendered.html,
          is_me_message: rendered.isMeMessage,
        });
      }
      // Users who could see the messages before the move, so a move away still reaches them.
      let audience = await holders(tx, move ? move.ids : [message.id]);
      if (move) {
        Object.assign(event, { propagate_mode: input.propagateMode, orig_subject: move.oldTopic });
        if (move.topicChanged) Object.assign(event, { subject: move.newTopic, topic_links: [] });
        if (move.streamChanged) event.new_stream_id = move.to.id;
        const losing = await applyMove(tx, app.store.dialect, user, message, move, now, content !== undefined);
        if (losing.length) {
          outgoing.push({
            users: losing,
            event: { type: 'delete_message', message_ids: move.ids, message_type: 'stream', stream_id: move.from.id, topic: move.oldTopic, __empty_topic_name: emptyTopicDisplayName(realm) },
          });
          const gone = new Set(losing);
          audience = audience.filter((u) => !gone.has(u));
        }
        audience = [...new Set([...audience, ...(await holders(tx, move.ids))])];
        if (move.streamChanged) outgoing.push(...(await refreshFirstMessageIds(tx, [move.from.id, move.to.id])));
      }
      await indexMessages(tx, app.store.dialect, move ? move.ids : [message.id]);
      const targetFlags = await tx.selectFrom('user_messages').select(['user_id', 'flags']).where('message_id', '=', message.id).execute();
      outgoing.unshift(
        ...byFlags(
          new Map(targetFlags.map((r) => [r.user_id, r.flags])),
          audience,
          event as { type: string },
        ),
      );
      return outgoing;
    },
    (events) => events,
  );
}

/** Validates a topic or channel change and picks the messages it applies to; null when nothing moves. */
async function planMove(tx: Transaction<DB>, realm: Realm, user: User, message: Message, stream: Stream, input: EditInput, now: number): Promise<Move | null> {
  const newTopic = input.topic === undefined ? message.topic : normalizeTopicInput(input.topic, realm);
  const topicChanged = newTopic !== message.topic;
  const streamChanged = input.streamId !== undefined && input.streamId !== stream.id;
  if (!topicChanged && !streamChanged) return null;
  let to = stream;
  if (streamChanged) {
    const target = await streamById(tx, realm.id, input.streamId!);
    if (!target) throw badRequest('Invalid channel ID');
    await checkCanMoveChannel(tx, realm, user, message, stream, now);
    await checkCanSendToStream(tx, user, target, () => badRequest('Invalid channel ID'));
    to = target;
  }
  if (topicChanged) await checkCanChangeTopic(tx, realm, user, message, stream, !streamChanged && isResolveToggle(message.topic, newTopic), now);
  checkTopicAllowed(newTopic, realm, to, true);

  let q = tx.selectFrom('messages as m').select('m.id').where('m.recipient_id', '=', message.recipient_id).where('m.topic_key', '=', message.topic_key);
  if (input.propagateMode === 'change_one') q = q.where('m.id', '=', message.id);
  else if (input.propagateMode === 'change_later') q = q.where('m.id', '>=', message.id);
  // In a channel with protected history, only messages the mover received can move.
  if (!canAccessStreamHistory(user, stream, await isSubscribed(tx, user.id, stream.id))) {
    q = q.where((eb) => eb.exists(eb.selectFrom('user_messages as um').select('um.message_id').whereRef('um.message_id', '=', 'm.id').where('um.user_id', '=', user.id)));
  }
  const ids = (await q.orderBy('m.id').execute()).map((r) => r.id);
  return { from: stream, to, oldTopic: message.topic, newTopic, topicChanged, streamChanged, ids };
}

/** Prepends an entry to edit_history in SQL, so many moved messages take one statement. */
async function prependHistory(tx: Transaction<DB>, ids: number[], entry: Record<string, unknown>): Promise<void> {
  if (!ids.length) return;
  const json = JSON.stringify(entry);
  await tx
    .updateTable('messages')
    .set({
      edit_history: sql<string>`CASE WHEN edit_history IS NULL OR edit_history = '[]' THEN ${'[' + json + ']'} ELSE ${'[' + json + ','} || substr(edit_history, 2) END`,
    })
    .where('id', 'in', ids)
    .execute();
}

async function applyContentEdit(tx: Transaction<DB>, user: User, message: Message, content: string, rendered: RenderResult, now: number, move: Move | null): Promise<void> {
  await tx
    .updateTable('messages')
    .set({ content, rendered_content: rendered.html, last_edit_time: now, is_me_message: rendered.isMeMessage ? 1 : 0, has_link: rendered.hasLink ? 1 : 0 })
    .where('id', '=', message.id)
    .execute();
  // When the target also moves, its single history entry records both changes.
  if (!move) await prependHistory(tx, [message.id], { user_id: user.id, timestamp: now, prev_content: message.content, prev_rendered_content: message.rendered_content });
  await clearFlags(tx, [message.id], MENTION_BITS);
  const topic = move ? move.newTopic : message.topic;
  const recipient = move ? move.to.recipient_id : message.recipient_id;
  const mentions = await withGroupMentions(tx, user, rendered);
  await applyMentionFlags(tx, message.id, mentions, () => topicParticipantIds(tx, recipient, topicKey(topic), [message.sender_id]));
}

/** Moves the messages; returns users who lost access (their rows are gone). */
async function applyMove(tx: Transaction<DB>, dialect: Dialect, user: User, message: Message, move: Move, now: number, contentEdited: boolean): Promise<number[]> {
  const entry: Record<string, unknown> = { user_id: user.id, timestamp: now };
  if (move.topicChanged) Object.assign(entry, { prev_topic: move.oldTopic, topic: move.newTopic });
  if (move.streamChanged) Object.assign(entry, { prev_stream: move.from.id, stream: move.to.id });
  const others = move.ids.filter((id) => id !== message.id);
  await prependHistory(tx, others, entry);
  await prependHistory(tx, move.ids.includes(message.id) ? [message.id] : [], contentEdited ? { ...entry, prev_content: message.content, prev_rendered_content: message.rendered_content } : entry);
  // Resolving or unresolving a topic is not a move.
  const isMove = move.streamChanged || !isResolveToggle(move.oldTopic, move.newTopic);
  await tx
    .updateTable('messages')
    .set({
      topic: move.newTopic,
      topic_key: topicKey(move.newTopic),
      stream_id: move.to.id,
      recipient_id: move.to.recipient_id,
      ...(isMove ? { last_moved_time: now } : {}),
    })
    .where('id', 'in', move.ids)
    .execute();
  if (!move.streamChanged) return [];

  const newSubs = new Set(await subscriberIds(tx, move.to.id));
  const old = await tx
    .selectFrom('user_messages as um')
    .innerJoin('users as u', 'u.id', 'um.user_id')
    .select(['um.user_id', 'u.role'])
    .distinct()
    .where('um.message_id', 'in', move.ids)
    .execute();
  // Without a subscription, a private channel (or any channel, for a guest) is out of reach.
  const losing = old.filter((o) => !newSubs.has(o.user_id) && (move.to.invite_only === 1 || o.role === Role.GUEST)).map((o) => o.user_id);
  if (losing.length) await tx.deleteFrom('user_messages').where('message_id', 'in', move.ids).where('user_id', 'in', losing).execute();
  if (newSubs.size) {
    // Subscribers of the destination get the moved messages as already read, in one statement.
    await tx
      .insertInto('user_messages')
      .columns(['user_id', 'message_id', 'flags'])
      .expression((eb) =>
        eb
          .selectFrom('subscriptions as s')
          .innerJoin('users as u', 'u.id', 's.user_id')
          .innerJoin('messages as m', (j) => j.on('m.id', 'in', move.ids))
          .select(['s.user_id', 'm.id', sql.lit(FLAG_BITS.read).as('flags')])
          .where('s.stream_id', '=', move.to.id)
          .where('s.active', '=', 1)
          .where('u.is_active', '=', 1),
      )
      .onConflict((oc) => oc.columns(['message_id', 'user_id']).doNothing())
      .execute();
  }
  // Unread rows that moved in must sit at or above their holders' floors for the destination;
  // holders without a subscription row there get the rows marked unfloored instead.
  const unread = await tx
    .selectFrom('user_messages')
    .select(['user_id', 'message_id'])
    .where('message_id', 'in', move.ids)
    .where(sql<SqlBool>`(flags & 1) = 0`)
    .execute();
  await lowerFloors(
    tx,
    dialect,
    unread.map((r) => ({ userId: r.user_id, streamId: move.to.id, messageId: r.message_id })),
  );
  return losing;
}

async function holders(tx: Transaction<DB>, ids: number[]): Promise<number[]> {
  if (!ids.length) return [];
  const rows = await tx.selectFrom('user_messages').select('user_id').distinct().where('message_id', 'in', ids).execute();
  return rows.map((r) => r.user_id);
}

// Messages: send, fetch (range and single), edit, delete and render.
import type { RouteList } from '../http/router.js';
import { endpoint } from '../http/endpoint.js';
import { badRequest } from '../core/api-error.js';
import { invalidParam, missing, vIntList } from '../core/params.js';
import { IdList, Type, bool, id, int, json, loose, oneOf, str } from '../core/param-types.js';
import { NarrowSchema, parseNarrow } from '../lib/narrow-parse.js';
import { MAX_MESSAGES_PER_FETCH } from '../models/limits.js';
import { doSendMessage, type SendInput } from '../actions/messages-send.js';
import { doUpdateMessage, type PropagateMode } from '../actions/messages-edit.js';
import { doDeleteMessage } from '../actions/messages-delete.js';
import { planNarrow } from '../lib/messages/narrow.js';
import { searchReady } from '../lib/messages/search-indexer.js';
import { fetchListed, fetchRange, loadMessages, type AnchorSpec } from '../lib/messages/fetch.js';
import { presentMessages } from '../lib/messages/present.js';
import { accessMessage } from '../lib/messages/access.js';
import { loadRenderContext, renderMessage } from '../lib/markdown/index.js';
import { renderOptionsFor } from '../lib/markdown/render-options.js';
import { normalizeContent } from '../lib/messages/content.js';

/** `to` for a channel: an ID or a name, JSON-encoded or plain, possibly as a one-element list. */
function channelTarget(raw: string): number | string {
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch {
    return raw.trim();
  }
  if (Array.isArray(v)) {
    if (v.length !== 1) throw badRequest('Must specify exactly 1 channel ID for channel messages');
    v = v[0];
  }
  if (typeof v === 'number' && Number.isSafeInteger(v)) return v;
  if (typeof v === 'string') return v.trim();
  throw invalidParam('Invalid to', 'to');
}

/** `to` for a direct message: a JSON list of IDs or emails, one ID, or comma-separated emails. */
function dmTarget(raw: string): number[] | string[] {
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch {
    return raw.split(',').map((s) => s.trim()).filter(Boolean);
  }
  if (typeof v === 'number' && Number.isSafeInteger(v)) return [v];
  if (typeof v === 'string') return v.split(',').map((s) => s.trim()).filter(Boolean);
  if (Array.isArray(v) && v.every((x) => typeof x === 'number' && Number.isSafeInteger(x))) return v as number[];
  if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v as string[];
  throw invalidParam('Invalid to', 'to');
}

const messageId = { message_id: id({ invalid: () => badRequest('Invalid message(s)') }) };
const TYPES = ['stream', 'channel', 'private', 'direct'] as const;

/** A message as the fetch endpoints present it (src/lib/messages/present.ts). */
const Message = loose(
  Type.Object({
    id: Type.Integer(),
    sender_id: Type.Integer(),
    content: Type.String(),
    type: Type.Union([Type.Literal('stream'), Type.Literal('private')]),
    timestamp: Type.Integer(),
    flags: Type.Array(Type.String()),
  }),
);

const sendMessage = endpoint({
  summary: 'Send a message',
  params: {
    type: oneOf(TYPES, { required: true, invalid: () => badRequest('Invalid message type') }),
    to: str({ required: true, description: 'Channel: its ID or name (JSON or plain). Direct: a JSON list of user IDs or emails, or comma-separated emails.' }),
    // NUL bytes in a topic or content are dropped, as the original does, not refused.
    topic: str({ aliases: ['subject'], allowNul: true }),
    content: str({ required: true, allowNul: true }),
    read_by_sender: bool({ default: true }),
    queue_id: str(),
    local_id: str(),
  },
  response: Type.Object({ id: Type.Integer() }),
  run: async (req, a) => {
    const kind = a.type === 'stream' || a.type === 'channel' ? 'stream' : 'private';
    const input: SendInput = { kind, topic: a.topic, content: a.content, readBySender: a.read_by_sender, clientName: req.clientName, queueId: a.queue_id, localId: a.local_id };
    if (kind === 'stream') input.stream = channelTarget(a.to);
    else input.dmTo = dmTarget(a.to);
    return doSendMessage(req.app, req.realm, req.user, input);
  },
});

function parseAnchor(raw: string | undefined, useFirstUnread: boolean): AnchorSpec {
  if (raw === undefined) {
    if (useFirstUnread) return 'first_unread';
    throw badRequest("Missing 'anchor' argument.");
  }
  const t = raw.trim().replace(/^"(.*)"$/, '$1');
  if (t === 'newest' || t === 'oldest' || t === 'first_unread') return t;
  if (!/^-?\d+$/.test(t)) throw badRequest('Invalid anchor');
  const n = Number(t);
  if (!Number.isSafeInteger(n)) throw badRequest('Invalid anchor');
  // An anchor past the largest ID means "after every message" (fetchRange bounds it for SQL).
  return Math.max(0, n);
}

const present = {
  apply_markdown: bool({ default: true }),
  client_gravatar: bool({ default: true }),
  allow_empty_topic_name: bool({ default: false }),
};

const getMessages = endpoint({
  summary: 'Get messages',
  params: {
    narrow: json(NarrowSchema, { validate: parseNarrow }),
    ...present,
    message_ids: json(IdList, { validate: vIntList }),
    anchor: str({ description: 'A message ID, or newest, oldest, first_unread.' }),
    use_first_unread_anchor: bool({ default: false }),
    num_before: int({ min: 0 }),
    num_after: int({ min: 0 }),
    include_anchor: bool({ default: true }),
  },
  response: Type.Object({
    messages: Type.Array(Message),
    anchor: Type.Optional(Type.Integer()),
    found_anchor: Type.Optional(Type.Boolean()),
    found_oldest: Type.Optional(Type.Boolean()),
    found_newest: Type.Optional(Type.Boolean()),
    history_limited: Type.Boolean(),
  }),
  run: async (req, a) => {
    const p = req.params;
    const narrow = a.narrow ?? [];
    const opts = { applyMarkdown: a.apply_markdown, clientGravatar: a.client_gravatar, allowEmptyTopic: a.allow_empty_topic_name };
    const listed = a.message_ids;
    const { app, realm, user } = req;
    await searchReady(app.search, narrow);
    if (listed !== undefined) {
      if (['anchor', 'num_before', 'num_after', 'include_anchor', 'use_first_unread_anchor'].some((k) => p.has(k))) {
        throw badRequest('Unsupported parameter combination: anchor, include_anchor, num_after, num_before, message_ids');
      }
      return app.store.read(async (tx) => {
        const plan = await planNarrow(tx, app.store.dialect, realm, user, narrow);
        const ids = await fetchListed(tx, plan, listed);
        return { messages: presentMessages(realm, await loadMessages(tx, realm, user, ids, app.store.dialect), opts), history_limited: false };
      });
    }
    const anchor = parseAnchor(a.anchor, a.use_first_unread_anchor);
    if (a.num_before === undefined) throw missing('num_before');
    if (a.num_after === undefined) throw missing('num_after');
    const numBefore = a.num_before;
    const numAfter = a.num_after;
    if (numBefore + numAfter > MAX_MESSAGES_PER_FETCH) throw badRequest(`Too many messages requested (maximum ${MAX_MESSAGES_PER_FETCH}).`);
    return app.store.read(async (tx) => {
      const plan = await planNarrow(tx, app.store.dialect, realm, user, narrow);
      const range = await fetchRange(tx, plan, anchor, numBefore, numAfter, a.include_anchor);
      const messages = presentMessages(realm, await loadMessages(tx, realm, user, range.ids, app.store.dialect), opts);
      return {
        messages,
        anchor: range.anchor,
        found_anchor: range.found_anchor,
        found_oldest: range.found_oldest,
        found_newest: range.found_newest,
        history_limited: false,
      };
    });
  },
});

const getMessage = endpoint({
  summary: 'Fetch a single message',
  path: messageId,
  params: { apply_markdown: present.apply_markdown, allow_empty_topic_name: present.allow_empty_topic_name },
  response: Type.Object({ raw_content: Type.String(), message: Message }),
  run: async (req, a) => {
    const opts = { applyMarkdown: a.apply_markdown, clientGravatar: false, allowEmptyTopic: a.allow_empty_topic_name };
    const id = a.message_id;
    return req.app.store.read(async (tx) => {
      const { message } = await accessMessage(tx, req.user, id);
      const [item] = await loadMessages(tx, req.realm, req.user, [id]);
      const [presented] = presentMessages(req.realm, [item], opts);
      return { raw_content: message.content, message: presented };
    });
  },
});

const updateMessage = endpoint({
  summary: 'Edit a message',
  path: messageId,
  params: {
    stream_id: id(),
    propagate_mode: oneOf(['change_one', 'change_later', 'change_all'], { default: 'change_one' }),
    // Notification messages about moves are not sent yet; the parameters are accepted.
    send_notification_to_old_thread: bool({ default: false }),
    send_notification_to_new_thread: bool({ default: true }),
    content: str({ allowNul: true }),
    topic: str({ aliases: ['subject'], allowNul: true }),
  },
  response: Type.Object({}),
  run: async (req, a) => {
    await doUpdateMessage(req.app, req.realm, req.user, a.message_id, {
      content: a.content,
      topic: a.topic,
      streamId: a.stream_id,
      propagateMode: a.propagate_mode as PropagateMode,
    });
    return {};
  },
});

const deleteMessage = endpoint({
  summary: 'Delete a message',
  path: messageId,
  response: Type.Object({}),
  run: async (req, a) => {
    await doDeleteMessage(req.app, req.realm, req.user, a.message_id);
    return {};
  },
});

const renderView = endpoint({
  summary: 'Render a message',
  params: { content: str({ required: true, allowNul: true }) },
  response: Type.Object({ rendered: Type.String() }),
  run: async (req, a) => {
    const content = normalizeContent(a.content);
    const ctx = await loadRenderContext(req.app.store.db, req.realm.id, content, await renderOptionsFor(req.app, req.realm, req.user));
    return { rendered: renderMessage(content, ctx).html };
  },
});

export const routes: RouteList = [
  ['messages', { GET: getMessages, POST: sendMessage }],
  ['messages/render', { POST: renderView }],
  ['messages/{message_id:int}', { GET: getMessage, PATCH: updateMessage, DELETE: deleteMessage }],
];

// Messages: send, fetch (range and single), edit, delete and render.
import type { RouteList } from '../http/router.js';
import { authed } from '../http/handlers.js';
import { badRequest } from '../core/api-error.js';
import { invalidParam, missing, oneOf, vIntList, type Params } from '../core/params.js';
import { parseNarrow } from '../lib/narrow-parse.js';
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

const sendMessage = authed(async (req) => {
  const p = req.params;
  const type = p.reqStr('type');
  const kind = type === 'stream' || type === 'channel' ? 'stream' : type === 'private' || type === 'direct' ? 'private' : null;
  if (!kind) throw badRequest('Invalid message type');
  const to = p.reqStr('to');
  const input: SendInput = {
    kind,
    topic: p.str('topic', { aliases: ['subject'] }),
    content: p.reqStr('content'),
    readBySender: p.bool('read_by_sender', true),
    clientName: req.clientName,
    queueId: p.str('queue_id'),
    localId: p.str('local_id'),
  };
  if (kind === 'stream') input.stream = channelTarget(to);
  else input.dmTo = dmTarget(to);
  return doSendMessage(req.app, req.realm, req.user, input);
});

function parseAnchor(p: Params): AnchorSpec {
  const raw = p.str('anchor');
  const useFirstUnread = p.bool('use_first_unread_anchor', false);
  if (raw === undefined) {
    if (useFirstUnread) return 'first_unread';
    throw badRequest("Missing 'anchor' argument.");
  }
  const t = raw.trim().replace(/^"(.*)"$/, '$1');
  if (t === 'newest' || t === 'oldest' || t === 'first_unread') return t;
  if (!/^-?\d+$/.test(t)) throw badRequest('Invalid anchor');
  const n = Number(t);
  if (!Number.isSafeInteger(n)) throw badRequest('Invalid anchor');
  return Math.max(0, n);
}

function nonNegative(p: Params, name: string): number {
  const v = p.int(name);
  if (v === undefined) throw missing(name);
  if (v < 0) throw invalidParam(`${name} is too small`, name);
  return v;
}

function presentOptions(p: Params) {
  return {
    applyMarkdown: p.bool('apply_markdown', true),
    clientGravatar: p.bool('client_gravatar', true),
    allowEmptyTopic: p.bool('allow_empty_topic_name', false),
  };
}

const getMessages = authed(async (req) => {
  const p = req.params;
  const narrow = p.json('narrow', parseNarrow) ?? [];
  const opts = presentOptions(p);
  const listed = p.json('message_ids', vIntList);
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
  const anchor = parseAnchor(p);
  const numBefore = nonNegative(p, 'num_before');
  const numAfter = nonNegative(p, 'num_after');
  const includeAnchor = p.bool('include_anchor', true);
  if (numBefore + numAfter > MAX_MESSAGES_PER_FETCH) throw badRequest(`Too many messages requested (maximum ${MAX_MESSAGES_PER_FETCH}).`);
  return app.store.read(async (tx) => {
    const plan = await planNarrow(tx, app.store.dialect, realm, user, narrow);
    const range = await fetchRange(tx, plan, anchor, numBefore, numAfter, includeAnchor);
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
});

function messageIdOf(req: { pathParams: Record<string, string> }): number {
  const id = Number(req.pathParams.message_id);
  if (!Number.isSafeInteger(id)) throw badRequest('Invalid message(s)');
  return id;
}

const getMessage = authed(async (req) => {
  const p = req.params;
  const opts = { applyMarkdown: p.bool('apply_markdown', true), clientGravatar: false, allowEmptyTopic: p.bool('allow_empty_topic_name', false) };
  const id = messageIdOf(req);
  return req.app.store.read(async (tx) => {
    const { message } = await accessMessage(tx, req.user, id);
    const [item] = await loadMessages(tx, req.realm, req.user, [id]);
    const [presented] = presentMessages(req.realm, [item], opts);
    return { raw_content: message.content, message: presented };
  });
});

const updateMessage = authed(async (req) => {
  const p = req.params;
  const streamId = p.int('stream_id');
  const mode = oneOf(p.str('propagate_mode') ?? 'change_one', ['change_one', 'change_later', 'change_all'] as const, 'propagate_mode') as PropagateMode;
  // Notification messages about moves are not sent yet; the parameters are accepted.
  p.bool('send_notification_to_old_thread', false);
  p.bool('send_notification_to_new_thread', true);
  await doUpdateMessage(req.app, req.realm, req.user, messageIdOf(req), {
    content: p.str('content'),
    topic: p.str('topic', { aliases: ['subject'] }),
    streamId,
    propagateMode: mode,
  });
  return {};
});

const deleteMessage = authed(async (req) => {
  await doDeleteMessage(req.app, req.realm, req.user, messageIdOf(req));
  return {};
});

const renderView = authed(async (req) => {
  const content = normalizeContent(req.params.reqStr('content'));
  const ctx = await loadRenderContext(req.app.store.db, req.realm.id, content, await renderOptionsFor(req.app, req.realm, req.user));
  return { rendered: renderMessage(content, ctx).html };
});

export const routes: RouteList = [
  ['messages', { GET: getMessages, POST: sendMessage }],
  ['messages/render', { POST: renderView }],
  ['messages/{message_id:int}', { GET: getMessage, PATCH: updateMessage, DELETE: deleteMessage }],
];

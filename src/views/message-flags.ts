// Personal flags: POST /messages/flags, /messages/flags/narrow, and the legacy mark-as-read endpoints.
import type { RouteList } from '../http/router.js';
import { authed } from '../http/handlers.js';
import { badRequest } from '../core/api-error.js';
import { oneOf, missing, vIntList, type Params } from '../core/params.js';
import { parseNarrow } from '../lib/narrow-parse.js';
import { checkEditableFlag, doMarkRead, doUpdateFlags, doUpdateFlagsForNarrow, type FlagOp } from '../actions/flags.js';
import type { AnchorSpec } from '../lib/messages/fetch.js';
import { streamById } from '../lib/messages/access.js';
import { normalizeTopicInput, topicKey } from '../lib/messages/topic.js';
import type { AuthedRequest } from '../http/types.js';

/** The most messages one narrow request changes; clients continue from last_processed_id. */
const MAX_NARROW_BATCH = 5000;

const updateFlags = authed(async (req) => {
  const p = req.params;
  const ids = p.reqJson('messages', vIntList);
  const op = oneOf(p.reqStr('op'), ['add', 'remove'] as const, 'op') as FlagOp;
  const flag = checkEditableFlag(p.reqStr('flag'));
  return { messages: await doUpdateFlags(req.app, req.realm, req.user, ids, op, flag) };
});

function anchorOf(p: Params): AnchorSpec {
  const raw = p.reqStr('anchor').trim().replace(/^"(.*)"$/, '$1');
  if (raw === 'newest' || raw === 'oldest' || raw === 'first_unread') return raw;
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(Number(raw))) throw badRequest('Invalid anchor');
  return Number(raw);
}

function count(p: Params, name: string): number {
  const v = p.int(name);
  if (v === undefined) throw missing(name);
  if (v < 0) throw badRequest(`${name} is too small`);
  return Math.min(v, MAX_NARROW_BATCH);
}

const updateFlagsForNarrow = authed(async (req) => {
  const p = req.params;
  const anchor = anchorOf(p);
  const numBefore = count(p, 'num_before');
  const numAfter = count(p, 'num_after');
  const includeAnchor = p.bool('include_anchor', true);
  const narrow = p.reqJson('narrow', parseNarrow);
  const op = oneOf(p.reqStr('op'), ['add', 'remove'] as const, 'op') as FlagOp;
  const flag = checkEditableFlag(p.reqStr('flag'));
  const result = await doUpdateFlagsForNarrow(req.app, req.realm, req.user, { narrow, anchor, numBefore, numAfter, includeAnchor, op, flag });
  const ids = result.range.ids;
  return {
    processed_count: ids.length,
    updated_count: result.changed.length,
    first_processed_id: ids.length ? ids[0] : null,
    last_processed_id: ids.length ? ids[ids.length - 1] : null,
    found_oldest: result.range.found_oldest,
    found_newest: result.range.found_newest,
  };
});

const markAllAsRead = authed(async (req) => {
  await doMarkRead(req.app, req.realm, req.user, {});
  return { complete: true };
});

async function streamOf(req: AuthedRequest) {
  const id = req.params.reqInt('stream_id');
  const stream = await streamById(req.app.store.db, req.realm.id, id);
  if (!stream) throw badRequest('Invalid channel ID');
  return stream;
}

const markStreamAsRead = authed(async (req) => {
  const stream = await streamOf(req);
  await doMarkRead(req.app, req.realm, req.user, { recipientId: stream.recipient_id });
  return {};
});

const markTopicAsRead = authed(async (req) => {
  const stream = await streamOf(req);
  const topic = normalizeTopicInput(req.params.reqStr('topic_name'), req.realm);
  await doMarkRead(req.app, req.realm, req.user, { recipientId: stream.recipient_id, topicKey: topicKey(topic) });
  return {};
});

export const routes: RouteList = [
  ['messages/flags', { POST: updateFlags }],
  ['messages/flags/narrow', { POST: updateFlagsForNarrow }],
  ['mark_all_as_read', { POST: markAllAsRead }],
  ['mark_stream_as_read', { POST: markStreamAsRead }],
  ['mark_topic_as_read', { POST: markTopicAsRead }],
];

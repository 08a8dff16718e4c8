// Personal flags: POST /messages/flags, /messages/flags/narrow, and the legacy mark-as-read endpoints.
import type { RouteList } from '../http/router.js';
import { endpoint } from '../http/endpoint.js';
import { badRequest } from '../core/api-error.js';
import { toInt, vIntList } from '../core/params.js';
import { INT32_MAX, INT32_MIN, Type, bool, id, json, oneOf, str } from '../core/param-types.js';
import { custom } from '../core/param-custom.js';
import { NarrowSchema, parseNarrow } from '../lib/narrow-parse.js';
import { checkEditableFlag, doMarkRead, doUpdateFlags, doUpdateFlagsForNarrow } from '../actions/flags.js';
import type { AnchorSpec } from '../lib/messages/fetch.js';
import { streamById } from '../lib/messages/access.js';
import { normalizeTopicInput, topicKey } from '../lib/messages/topic.js';
import type { AuthedRequest } from '../http/types.js';

/** The most messages one narrow request changes; clients continue from last_processed_id. */
const MAX_NARROW_BATCH = 5000;

/** Message IDs as the original reads them: any 32-bit integers (an unknown one is refused by the action). */
const MessageIds = Type.Array(Type.Integer({ minimum: INT32_MIN, maximum: INT32_MAX }));
const op = oneOf(['add', 'remove'], { required: true });
const flag = str({ required: true, description: 'A flag a user may change (read, starred, …).' });

const updateFlags = endpoint({
  summary: 'Update personal message flags',
  params: { messages: json(MessageIds, { required: true, validate: vIntList }), op, flag },
  response: Type.Object({ messages: Type.Array(Type.Integer()) }),
  run: async (req, a) => ({ messages: await doUpdateFlags(req.app, req.realm, req.user, a.messages, a.op, checkEditableFlag(a.flag)) }),
});

function anchorOf(text: string): AnchorSpec {
  const raw = text.trim().replace(/^"(.*)"$/, '$1');
  if (raw === 'newest' || raw === 'oldest' || raw === 'first_unread') return raw;
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(Number(raw))) throw badRequest('Invalid anchor');
  return Number(raw);
}

/** A count of messages: negative is refused, more than a batch is one batch. */
const count = () =>
  custom(
    Type.Integer({ minimum: 0 }),
    (text, name) => {
      const v = toInt(text, name);
      if (v < 0) throw badRequest(`${name} is too small`);
      return Math.min(v, MAX_NARROW_BATCH);
    },
    { required: true },
  );

const updateFlagsForNarrow = endpoint({
  summary: 'Update personal message flags for narrow',
  params: {
    anchor: custom(Type.Union([Type.Integer({ minimum: 0 }), Type.Union([Type.Literal('newest'), Type.Literal('oldest'), Type.Literal('first_unread')])]), anchorOf, { required: true }),
    num_before: count(),
    num_after: count(),
    include_anchor: bool({ default: true }),
    narrow: json(NarrowSchema, { required: true, validate: parseNarrow }),
    op,
    flag,
  },
  response: Type.Object({
    processed_count: Type.Integer(),
    updated_count: Type.Integer(),
    first_processed_id: Type.Union([Type.Integer(), Type.Null()]),
    last_processed_id: Type.Union([Type.Integer(), Type.Null()]),
    found_oldest: Type.Boolean(),
    found_newest: Type.Boolean(),
  }),
  run: async (req, a) => {
    const input = { narrow: a.narrow, anchor: a.anchor, numBefore: a.num_before, numAfter: a.num_after, includeAnchor: a.include_anchor, op: a.op, flag: checkEditableFlag(a.flag) };
    const result = await doUpdateFlagsForNarrow(req.app, req.realm, req.user, input);
    const ids = result.range.ids;
    return {
      processed_count: ids.length,
      updated_count: result.changed.length,
      first_processed_id: ids.length ? ids[0] : null,
      last_processed_id: ids.length ? ids[ids.length - 1] : null,
      found_oldest: result.range.found_oldest,
      found_newest: result.range.found_newest,
    };
  },
});

const markAllAsRead = endpoint({
  summary: 'Mark all messages as read',
  deprecated: true,
  response: Type.Object({ complete: Type.Boolean() }),
  run: async (req) => {
    await doMarkRead(req.app, req.realm, req.user, {});
    return { complete: true };
  },
});

/** The channel of a mark-as-read request: one of the organization's, whoever may read it. */
const streamId = id({ required: true, invalid: () => badRequest('Invalid channel ID') });

async function streamOf(req: AuthedRequest, id: number) {
  const stream = await streamById(req.app.store.db, req.realm.id, id);
  if (!stream) throw badRequest('Invalid channel ID');
  return stream;
}

const markStreamAsRead = endpoint({
  summary: 'Mark messages in a channel as read',
  deprecated: true,
  params: { stream_id: streamId },
  response: Type.Object({}),
  run: async (req, a) => {
    const stream = await streamOf(req, a.stream_id);
    await doMarkRead(req.app, req.realm, req.user, { recipientId: stream.recipient_id });
    return {};
  },
});

const markTopicAsRead = endpoint({
  summary: 'Mark messages in a topic as read',
  deprecated: true,
  params: { stream_id: streamId, topic_name: str({ required: true }) },
  response: Type.Object({}),
  run: async (req, a) => {
    const stream = await streamOf(req, a.stream_id);
    const topic = normalizeTopicInput(a.topic_name, req.realm);
    await doMarkRead(req.app, req.realm, req.user, { recipientId: stream.recipient_id, topicKey: topicKey(topic) });
    return {};
  },
});

export const routes: RouteList = [
  ['messages/flags', { POST: updateFlags }],
  ['messages/flags/narrow', { POST: updateFlagsForNarrow }],
  ['mark_all_as_read', { POST: markAllAsRead }],
  ['mark_stream_as_read', { POST: markStreamAsRead }],
  ['mark_topic_as_read', { POST: markTopicAsRead }],
];

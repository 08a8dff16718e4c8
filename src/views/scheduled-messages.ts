// Scheduled messages: GET and POST /scheduled_messages, PATCH and DELETE /scheduled_messages/{id}.
import type { RouteList } from '../http/router.js';
import { endpoint } from '../http/endpoint.js';
import { badRequest } from '../core/api-error.js';
import { INT32_MAX, Type, bool, id, int, json, loose, oneOf, str } from '../core/param-types.js';
import { doCreateScheduledMessage, doDeleteScheduledMessage, doEditScheduledMessage } from '../actions/scheduled-messages.js';
import { scheduledMessageMissing, userScheduledMessages } from '../lib/scheduled-messages.js';

const TYPES = ['direct', 'channel', 'stream', 'private'] as const;
const kindOf = (t: (typeof TYPES)[number]) => (t === 'stream' || t === 'channel' ? 'stream' : 'private') as 'stream' | 'private';
const DbId = Type.Integer({ minimum: 0, maximum: INT32_MAX });
/** A channel ID, or a list of user IDs (one ID is taken as a list of one for direct messages). */
const To = Type.Union([DbId, Type.Array(DbId)]);
// The schema checks the value after this; it only gives the declaration its TypeScript type.
const asTo = (v: unknown) => v as number | number[];

const ScheduledMessage = loose(
  Type.Object({
    scheduled_message_id: Type.Integer(),
    type: Type.Union([Type.Literal('stream'), Type.Literal('private')]),
    to: Type.Union([Type.Integer(), Type.Array(Type.Integer())]),
    topic: Type.Optional(Type.String()),
    content: Type.String(),
    rendered_content: Type.String(),
    scheduled_delivery_timestamp: Type.Integer(),
    failed: Type.Boolean(),
  }),
);

const list = endpoint({
  summary: 'Get scheduled messages',
  response: Type.Object({ scheduled_messages: Type.Array(ScheduledMessage) }),
  run: async (req) => ({ scheduled_messages: await req.app.store.read((tx) => userScheduledMessages(tx, req.user.id)) }),
});

const create = endpoint({
  summary: 'Create a scheduled message',
  params: {
    type: oneOf(TYPES, { required: true, invalid: () => badRequest('Invalid type') }),
    to: json(To, { required: true, validate: asTo }),
    // NUL bytes are dropped, as a send drops them.
    content: str({ required: true, allowNul: true }),
    topic: str({ allowNul: true }),
    scheduled_delivery_timestamp: int({ required: true, description: 'UNIX time in seconds.' }),
    read_by_sender: bool(),
  },
  response: Type.Object({ scheduled_message_id: Type.Integer() }),
  run: async (req, a) => ({
    scheduled_message_id: await doCreateScheduledMessage(req.app, req.realm, req.user, {
      kind: kindOf(a.type),
      to: a.to,
      topic: a.topic,
      content: a.content,
      scheduledAt: a.scheduled_delivery_timestamp,
      readBySender: a.read_by_sender,
    }),
  }),
});

const path = { scheduled_message_id: id({ invalid: scheduledMessageMissing }) };

const update = endpoint({
  summary: 'Edit a scheduled message',
  path,
  params: {
    type: oneOf(TYPES, { invalid: () => badRequest('Invalid type') }),
    to: json(To, { validate: asTo }),
    content: str({ allowNul: true }),
    topic: str({ allowNul: true }),
    scheduled_delivery_timestamp: int({ description: 'UNIX time in seconds; required to retry a failed message.' }),
  },
  response: Type.Object({}),
  run: async (req, a) => {
    await doEditScheduledMessage(req.app, req.realm, req.user, a.scheduled_message_id, {
      kind: a.type === undefined ? undefined : kindOf(a.type),
      to: a.to,
      topic: a.topic,
      content: a.content,
      scheduledAt: a.scheduled_delivery_timestamp,
    });
    return {};
  },
});

const remove = endpoint({
  summary: 'Delete a scheduled message',
  path,
  response: Type.Object({}),
  run: async (req, a) => {
    await doDeleteScheduledMessage(req.app, req.realm, req.user, a.scheduled_message_id);
    return {};
  },
});

export const routes: RouteList = [
  ['scheduled_messages', { GET: list, POST: create }],
  ['scheduled_messages/{scheduled_message_id:int}', { PATCH: update, DELETE: remove }],
];

// Topic operations: POST /user_topics, the deprecated PATCH /users/me/subscriptions/muted_topics,
// POST /streams/{stream_id}/delete_topic and GET/DELETE /messages/{message_id}/history.
import type { RouteList } from '../http/router.js';
import { endpoint } from '../http/endpoint.js';
import { badRequest } from '../core/api-error.js';
import { invalidParam } from '../core/params.js';
import { Type, bool, id, int, loose, oneOf, str } from '../core/param-types.js';
import { streamIdPath } from '../lib/streams/params.js';
import { doSetTopicVisibility } from '../actions/user-topics.js';
import { doDeleteTopic } from '../actions/delete-topic.js';
import { doDeleteMessageHistory } from '../actions/message-history-delete.js';
import { VISIBILITY_POLICIES, VisibilityPolicy } from '../lib/topics/visibility.js';
import { accessMessage } from '../lib/messages/access.js';
import { editHistoryPolicy, historyDeleter, messageSnapshots } from '../lib/messages/history.js';
import { emptyTopicDisplayName } from '../lib/realm-settings.js';

const setUserTopic = endpoint({
  summary: 'Update personal preferences for a topic',
  params: {
    stream_id: int({ required: true, invalid: () => badRequest('Invalid channel ID') }),
    topic: str({ required: true }),
    visibility_policy: int({ required: true, invalid: 'Invalid visibility_policy', description: '0 none, 1 muted, 2 unmuted, 3 followed.' }),
  },
  response: Type.Object({}),
  run: async (req, a) => {
    if (!VISIBILITY_POLICIES.includes(a.visibility_policy)) throw invalidParam('Invalid visibility_policy', 'visibility_policy');
    await doSetTopicVisibility(req.app, req.realm, req.user, { stream: a.stream_id, topic: a.topic, policy: a.visibility_policy });
    return {};
  },
});

const muteTopic = endpoint({
  summary: 'Topic muting',
  deprecated: true,
  params: {
    stream_id: int({ invalid: () => badRequest('Invalid channel ID') }),
    stream: str({ description: 'The channel’s name (or stream_id).' }),
    topic: str({ required: true }),
    op: oneOf(['add', 'remove'], { required: true }),
  },
  response: Type.Object({}),
  run: async (req, a) => {
    if (a.stream_id === undefined && a.stream === undefined) throw badRequest("Please supply 'stream'.");
    if (a.stream_id !== undefined && a.stream !== undefined) throw badRequest("Please choose one: 'stream' or 'stream_id'.");
    const policy = a.op === 'add' ? VisibilityPolicy.MUTED : VisibilityPolicy.NONE;
    await doSetTopicVisibility(req.app, req.realm, req.user, { stream: a.stream_id ?? a.stream!, topic: a.topic, policy });
    return {};
  },
});

const deleteTopic = endpoint({
  summary: 'Delete a topic',
  path: streamIdPath,
  params: { topic_name: str({ required: true }) },
  response: Type.Object({ complete: Type.Boolean() }),
  run: async (req, a) => doDeleteTopic(req.app, req.realm, req.user, a.stream_id, a.topic_name),
});

const messageHistory = endpoint({
  summary: "Get a message's edit history",
  path: { message_id: id({ invalid: () => badRequest('Invalid message(s)') }) },
  params: { allow_empty_topic_name: bool({ default: false }) },
  response: Type.Object({ message_history: Type.Array(loose(Type.Object({ timestamp: Type.Integer(), user_id: Type.Union([Type.Integer(), Type.Null()]), topic: Type.String() }))) }),
  run: async (req, a) => {
    const policy = editHistoryPolicy(req.realm);
    if (policy === 'none') throw badRequest('Message edit history is disabled in this organization');
    return req.app.store.read(async (tx) => {
      const { message } = await accessMessage(tx, req.user, a.message_id);
      const historyDeletedBy = await historyDeleter(tx, message.id);
      return { message_history: messageSnapshots(message, { allowEmptyTopic: a.allow_empty_topic_name, emptyTopicDisplayName: emptyTopicDisplayName(req.realm), policy, historyDeletedBy }) };
    });
  },
});

const deleteMessageHistory = endpoint({
  summary: "Delete a message's edit history",
  path: { message_id: id({ invalid: () => badRequest('Invalid message(s)') }) },
  response: Type.Object({}),
  run: async (req, a) => {
    await doDeleteMessageHistory(req.app, req.realm, req.user, a.message_id);
    return {};
  },
});

export const routes: RouteList = [
  ['user_topics', { POST: setUserTopic }],
  ['users/me/subscriptions/muted_topics', { PATCH: muteTopic }],
  ['streams/{stream_id:int}/delete_topic', { POST: deleteTopic }],
  ['messages/{message_id:int}/history', { GET: messageHistory, DELETE: deleteMessageHistory }],
];

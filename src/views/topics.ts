// Topic operations: POST /user_topics, the deprecated PATCH /users/me/subscriptions/muted_topics,
// POST /streams/{stream_id}/delete_topic and GET /messages/{message_id}/history.
import type { RouteList } from '../http/router.js';
import { authed } from '../http/handlers.js';
import { badRequest } from '../core/api-error.js';
import { invalidParam, oneOf } from '../core/params.js';
import { doSetTopicVisibility } from '../actions/user-topics.js';
import { doDeleteTopic } from '../actions/delete-topic.js';
import { VISIBILITY_POLICIES, VisibilityPolicy } from '../lib/topics/visibility.js';
import { accessMessage } from '../lib/messages/access.js';
import { editHistoryPolicy, messageSnapshots } from '../lib/messages/history.js';
import { emptyTopicDisplayName } from '../lib/realm-settings.js';

const setUserTopic = authed(async (req) => {
  const p = req.params;
  const streamId = p.reqInt('stream_id');
  const topic = p.reqStr('topic');
  const policy = p.reqInt('visibility_policy');
  if (!VISIBILITY_POLICIES.includes(policy)) throw invalidParam('Invalid visibility_policy', 'visibility_policy');
  await doSetTopicVisibility(req.app, req.realm, req.user, { stream: streamId, topic, policy });
  return {};
});

const muteTopic = authed(async (req) => {
  const p = req.params;
  const streamId = p.int('stream_id');
  const streamName = p.str('stream');
  const topic = p.reqStr('topic');
  const op = oneOf(p.reqStr('op'), ['add', 'remove'] as const, 'op');
  if (streamId === undefined && streamName === undefined) throw badRequest("Please supply 'stream'.");
  if (streamId !== undefined && streamName !== undefined) throw badRequest("Please choose one: 'stream' or 'stream_id'.");
  const policy = op === 'add' ? VisibilityPolicy.MUTED : VisibilityPolicy.NONE;
  await doSetTopicVisibility(req.app, req.realm, req.user, { stream: streamId ?? streamName!, topic, policy });
  return {};
});

const deleteTopic = authed(async (req) => {
  const topicName = req.params.reqStr('topic_name');
  return doDeleteTopic(req.app, req.realm, req.user, Number(req.pathParams.stream_id), topicName);
});

const messageHistory = authed(async (req) => {
  const allowEmptyTopic = req.params.bool('allow_empty_topic_name', false);
  const policy = editHistoryPolicy(req.realm);
  if (policy === 'none') throw badRequest('Message edit history is disabled in this organization');
  const id = Number(req.pathParams.message_id);
  return req.app.store.read(async (tx) => {
    const { message } = await accessMessage(tx, req.user, id);
    return { message_history: messageSnapshots(message, { allowEmptyTopic, emptyTopicDisplayName: emptyTopicDisplayName(req.realm), policy }) };
  });
});

export const routes: RouteList = [
  ['user_topics', { POST: setUserTopic }],
  ['users/me/subscriptions/muted_topics', { PATCH: muteTopic }],
  ['streams/{stream_id:int}/delete_topic', { POST: deleteTopic }],
  ['messages/{message_id:int}/history', { GET: messageHistory }],
];

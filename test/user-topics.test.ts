// Topic visibility: POST /user_topics, the legacy muted_topics endpoint, register state, events,
// and muted topics and channels left out of unread totals.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type Client, type TestServer } from './helpers/server.js';
import { newChannel } from './helpers/messages.js';
import { checkConsistency, drainEvents } from './helpers/events.js';

let s: TestServer;
let ann: Client;
let ben: Client;
let room: { id: number };
before(async () => {
  s = await startTestServer();
  ann = await s.user('Ann Topics');
  ben = await s.user('Ben Topics');
  room = await newChannel(s, 'topics-room', { subscribers: [ann, ben] });
});
after(async () => {
  await s.close();
});

const topicsOf = async (c: Client) => (await c.ok('POST', 'register', { fetch_event_types: ['user_topic'], client_capabilities: { empty_topic_name: true } })).user_topics as any[];
const setMuted = (c: Client, streamId: number, muted: boolean) =>
  s.running.app.store.db.updateTable('subscriptions').set({ is_muted: muted ? 1 : 0 }).where('user_id', '=', c.userId).where('stream_id', '=', streamId).execute();

test('POST /user_topics sets every policy, also for topics without messages, in every parameter form', async () => {
  await ann.ok('POST', 'user_topics', { stream_id: room.id, topic: 'No Messages Yet', visibility_policy: 1 });
  let list = await topicsOf(ann);
  assert.equal(list.length, 1);
  assert.deepEqual({ ...list[0], last_updated: 0 }, { stream_id: room.id, topic_name: 'No Messages Yet', last_updated: 0, visibility_policy: 1 });
  assert.equal(typeof list[0].last_updated, 'number');
  await ann.ok('POST', 'user_topics', { stream_id: room.id, topic: 'followed', visibility_policy: 3 }, { as: 'query' });
  await ann.ok('POST', 'user_topics', { stream_id: room.id, topic: 'no messages yet', visibility_policy: 0 }, { as: 'multipart' });
  list = await topicsOf(ann);
  assert.deepEqual(
    list.map((t) => [t.topic_name, t.visibility_policy]),
    [['followed', 3]],
  );
  // Setting the same policy again succeeds.
  await ann.ok('POST', 'user_topics', { stream_id: room.id, topic: 'followed', visibility_policy: 3 });
  await ann.ok('POST', 'user_topics', { stream_id: room.id, topic: 'followed', visibility_policy: 0 });
  assert.deepEqual(await topicsOf(ann), []);
});

test('unmuted is stored as none in an unmuted channel and as unmuted in a muted one', async () => {
  const q = await ann.ok('POST', 'register', { event_types: ['user_topic'] });
  await ann.ok('POST', 'user_topics', { stream_id: room.id, topic: 'plain', visibility_policy: 2 });
  assert.deepEqual(await topicsOf(ann), []);
  const events = await drainEvents(ann, q.queue_id);
  assert.equal(events.filter((e) => e.type === 'user_topic').length, 0, 'none → none changes nothing');
  await setMuted(ann, room.id, true);
  try {
    await ann.ok('POST', 'user_topics', { stream_id: room.id, topic: 'plain', visibility_policy: 2 });
    assert.deepEqual((await topicsOf(ann)).map((t) => t.visibility_policy), [2]);
    await ann.ok('POST', 'user_topics', { stream_id: room.id, topic: 'plain', visibility_policy: 0 });
  } finally {
    await setMuted(ann, room.id, false);
  }
});

test('errors: policy, topic length, missing parameters, channels the user cannot see', async () => {
  const bad = await ann.post('user_topics', { stream_id: room.id, topic: 't', visibility_policy: 4 });
  assert.equal(bad.status, 400);
  assert.equal(bad.body.code, 'BAD_REQUEST');
  assert.equal(bad.body.msg, 'Invalid visibility_policy');
  const long = await ann.post('user_topics', { stream_id: room.id, topic: 'x'.repeat(61), visibility_policy: 1 });
  assert.equal(long.body.code, 'BAD_REQUEST');
  assert.match(long.body.msg, /too long/);
  for (const missing of ['stream_id', 'topic', 'visibility_policy']) {
    const params: Record<string, unknown> = { stream_id: room.id, topic: 't', visibility_policy: 1 };
    delete params[missing];
    const r = await ann.post('user_topics', params as never);
    assert.equal(r.body.code, 'REQUEST_VARIABLE_MISSING', missing);
  }
  const unknown = await ann.post('user_topics', { stream_id: 999999, topic: 't', visibility_policy: 1 });
  assert.equal(unknown.body.msg, 'Invalid channel ID');
  const secret = await newChannel(s, 'topics-secret', { inviteOnly: true, subscribers: [ben] });
  const hidden = await ann.post('user_topics', { stream_id: secret.id, topic: 't', visibility_policy: 1 });
  assert.equal(hidden.body.msg, 'Invalid channel ID');
  const guest = await s.user('Gus Guest Topics', 600);
  const g = await guest.post('user_topics', { stream_id: room.id, topic: 't', visibility_policy: 1 });
  assert.equal(g.body.msg, 'Invalid channel ID');
  const other = await s.realm2('topicsorg');
  const x = await other.owner.post('user_topics', { stream_id: room.id, topic: 't', visibility_policy: 1 });
  assert.equal(x.body.msg, 'Invalid channel ID');
  // A subscribed guest may set policies.
  await newChannel(s, 'topics-guest', { subscribers: [guest] }).then((c) => guest.ok('POST', 'user_topics', { stream_id: c.id, topic: 't', visibility_policy: 1 }));
});

test('PATCH /users/me/subscriptions/muted_topics: by ID or name, re-muting and re-unmuting succeed', async () => {
  await ann.ok('PATCH', 'users/me/subscriptions/muted_topics', { stream_id: room.id, topic: 'legacy', op: 'add' });
  await ann.ok('PATCH', 'users/me/subscriptions/muted_topics', { stream_id: room.id, topic: 'legacy', op: 'add' });
  assert.deepEqual((await topicsOf(ann)).map((t) => [t.topic_name, t.visibility_policy]), [['legacy', 1]]);
  const reg = await ann.ok('POST', 'register', { fetch_event_types: ['muted_topics'] });
  assert.deepEqual(reg.muted_topics.map((m: any[]) => m.slice(0, 2)), [['topics-room', 'legacy']]);
  assert.equal(reg.user_topics, undefined);
  await ann.ok('PATCH', 'users/me/subscriptions/muted_topics', { stream: 'topics-room', topic: 'legacy', op: 'remove' }, { as: 'multipart' });
  await ann.ok('PATCH', 'users/me/subscriptions/muted_topics', { stream: 'topics-room', topic: 'legacy', op: 'remove' }, { as: 'query' });
  assert.deepEqual(await topicsOf(ann), []);
  const both = await ann.patch('users/me/subscriptions/muted_topics', { stream_id: room.id, stream: 'topics-room', topic: 'x', op: 'add' });
  assert.equal(both.body.msg, "Please choose one: 'stream' or 'stream_id'.");
  const neither = await ann.patch('users/me/subscriptions/muted_topics', { topic: 'x', op: 'add' });
  assert.equal(neither.body.msg, "Please supply 'stream'.");
  const op = await ann.patch('users/me/subscriptions/muted_topics', { stream_id: room.id, topic: 'x', op: 'toggle' });
  assert.equal(op.body.code, 'BAD_REQUEST');
  const name = await ann.patch('users/me/subscriptions/muted_topics', { stream: 'no-such-room', topic: 'x', op: 'add' });
  assert.equal(name.body.msg, "Invalid channel name 'no-such-room'");
});

test('register: user_topics and muted_topics as asked for', async () => {
  await ann.ok('POST', 'user_topics', { stream_id: room.id, topic: '', visibility_policy: 1 });
  const all = await ann.ok('POST', 'register', {});
  assert.deepEqual(all.user_topics.map((t: any) => t.topic_name), ['general chat']);
  assert.deepEqual(all.muted_topics.map((m: any[]) => m[1]), ['general chat']);
  const modern = await ann.ok('POST', 'register', { client_capabilities: { empty_topic_name: true } });
  assert.deepEqual(modern.user_topics.map((t: any) => t.topic_name), ['']);
  const both = await ann.ok('POST', 'register', { fetch_event_types: ['user_topic', 'muted_topics'] });
  assert.ok(Array.isArray(both.user_topics));
  assert.equal(both.muted_topics, undefined);
  await ann.ok('POST', 'user_topics', { stream_id: room.id, topic: 'general chat', visibility_policy: 0 });
  assert.deepEqual(await topicsOf(ann), []);
});

test('events: user_topic only to the user; muted_topics only to queues without user_topic', async () => {
  const modern = await ann.ok('POST', 'register', { event_types: ['user_topic', 'muted_topics'] });
  const legacy = await ann.ok('POST', 'register', { event_types: ['muted_topics'] });
  const other = await ben.ok('POST', 'register', {});
  await ann.ok('POST', 'user_topics', { stream_id: room.id, topic: 'Evented', visibility_policy: 1 });
  const m = await drainEvents(ann, modern.queue_id);
  assert.deepEqual(
    m.map((e) => e.type),
    ['user_topic'],
  );
  assert.equal(m[0].stream_id, room.id);
  assert.equal(m[0].topic_name, 'Evented');
  assert.equal(m[0].visibility_policy, 1);
  const l = await drainEvents(ann, legacy.queue_id);
  assert.deepEqual(l.map((e) => e.type), ['muted_topics']);
  assert.deepEqual(l[0].muted_topics.map((x: any[]) => x.slice(0, 2)), [['topics-room', 'Evented']]);
  assert.deepEqual((await drainEvents(ben, other.queue_id)).filter((e) => e.type !== 'heartbeat'), []);
  await ann.ok('POST', 'user_topics', { stream_id: room.id, topic: 'Evented', visibility_policy: 0 });
});

test('muted topics and muted channels do not count in unread totals', async () => {
  const quiet = await newChannel(s, 'topics-quiet', { subscribers: [ann, ben] });
  const send = (topic: string, to = 'topics-room') => ben.ok('POST', 'messages', { type: 'stream', to, topic, content: 'hello' });
  const count = async () => (await ann.ok('POST', 'register', { fetch_event_types: ['message', 'update_message_flags', 'subscription', 'user_topic'] })).unread_msgs;
  await ann.ok('POST', 'mark_all_as_read');
  await send('loud');
  await send('hushed');
  await send('hushed');
  await send('anything', 'topics-quiet');
  await send('wanted', 'topics-quiet');
  assert.equal((await count()).count, 5);
  await ann.ok('POST', 'user_topics', { stream_id: room.id, topic: 'HUSHED', visibility_policy: 1 });
  assert.equal((await count()).count, 3);
  await setMuted(ann, quiet.id, true);
  const u = await count();
  assert.equal(u.count, 1);
  // The lists still hold every unread message.
  assert.equal(u.streams.reduce((n: number, e: any) => n + e.unread_message_ids.length, 0), 5);
  await ann.ok('POST', 'user_topics', { stream_id: quiet.id, topic: 'wanted', visibility_policy: 3 });
  assert.equal((await count()).count, 2);
  await setMuted(ann, quiet.id, false);
});

test('events-consistency: user_topic and muted_topics, including the unread total', async () => {
  const LEGACY = { apply_markdown: false, include_subscribers: false, client_capabilities: {} };
  await ben.ok('POST', 'messages', { type: 'stream', to: 'topics-room', topic: 'consistent', content: 'unread for ann' });
  await ben.ok('POST', 'messages', { type: 'stream', to: 'topics-room', topic: '', content: 'unread for ann' });
  await checkConsistency(ann, () => ann.ok('POST', 'user_topics', { stream_id: room.id, topic: 'Consistent', visibility_policy: 1 }), { expect: ['user_topic'] });
  await checkConsistency(ann, () => ann.ok('POST', 'user_topics', { stream_id: room.id, topic: '', visibility_policy: 1 }), { register: LEGACY, expect: ['user_topic', 'muted_topics'] });
  await checkConsistency(ann, () => ann.ok('POST', 'user_topics', { stream_id: room.id, topic: 'consistent', visibility_policy: 3 }), { expect: ['user_topic', 'muted_topics'] });
  await checkConsistency(ann, () => ann.ok('PATCH', 'users/me/subscriptions/muted_topics', { stream_id: room.id, topic: 'general chat', op: 'remove' }), { register: LEGACY, expect: ['muted_topics'] });
  await setMuted(ann, room.id, true);
  try {
    await checkConsistency(ann, () => ann.ok('POST', 'user_topics', { stream_id: room.id, topic: 'consistent', visibility_policy: 2 }), { expect: ['user_topic'] });
    await checkConsistency(ann, () => ann.ok('POST', 'user_topics', { stream_id: room.id, topic: 'consistent', visibility_policy: 0 }), { expect: ['user_topic'] });
  } finally {
    await setMuted(ann, room.id, false);
  }
});

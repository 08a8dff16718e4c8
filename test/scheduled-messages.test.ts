// Scheduled messages: validation, the list and its events to the owner only, edits, delivery as the
// sender exactly once (controllable clock, across a restart, two nodes on PostgreSQL), and failures.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type Client, type TestServer } from './helpers/server.js';
import { until } from './helpers/wait.js';
import { newChannel, queueFor } from './helpers/messages.js';
import type { Clock } from '../src/context.js';

let now = 1_700_000_000;
const clock: Clock = { now: () => now };
let s: TestServer;
let ann: Client;
let ben: Client;
let general: number;
before(async () => {
  s = await startTestServer({ clock });
  ann = await s.user('Ann Scheduler');
  ben = await s.user('Ben Reader');
  general = (await s.running.app.store.db.selectFrom('streams').select('id').where('realm_id', '=', s.realm.id).where('name', '=', 'general').executeTakeFirstOrThrow()).id;
});
after(async () => {
  await s.close();
});

async function topicMessages(c: Client, topic: string): Promise<Record<string, any>[]> {
  const r = await c.ok('GET', 'messages', { anchor: 'newest', num_before: 1000, num_after: 0, narrow: [{ operator: 'channel', operand: general }, { operator: 'topic', operand: topic }] });
  return r.messages as Record<string, any>[];
}

const schedule = async (c: Client, params: Record<string, unknown>) => (await c.ok('POST', 'scheduled_messages', params as never)).scheduled_message_id as number;

test('validation: required parameters, future time, recipients, channel access', async () => {
  let r = await ann.post('scheduled_messages', { type: 'stream', to: general, topic: 't', content: 'x' });
  assert.deepEqual([r.status, r.body.code, r.body.var_name], [400, 'REQUEST_VARIABLE_MISSING', 'scheduled_delivery_timestamp']);
  r = await ann.post('scheduled_messages', { type: 'stream', to: general, topic: 't', scheduled_delivery_timestamp: now + 60 });
  assert.equal(r.body.var_name, 'content');
  r = await ann.post('scheduled_messages', { type: 'stream', to: general, topic: 't', content: 'x', scheduled_delivery_timestamp: now });
  assert.deepEqual([r.status, r.body.msg], [400, 'Scheduled delivery time must be in the future.']);
  r = await ann.post('scheduled_messages', { type: 'carrier-pigeon', to: general, topic: 't', content: 'x', scheduled_delivery_timestamp: now + 60 });
  assert.deepEqual([r.status, r.body.code], [400, 'BAD_REQUEST']);
  r = await ann.post('scheduled_messages', { type: 'stream', to: 'general', topic: 't', content: 'x', scheduled_delivery_timestamp: now + 60 });
  assert.equal(r.status, 400);
  r = await ann.post('scheduled_messages', { type: 'stream', to: 999999, topic: 't', content: 'x', scheduled_delivery_timestamp: now + 60 });
  assert.deepEqual([r.status, r.body.code], [400, 'STREAM_DOES_NOT_EXIST']);
  r = await ann.post('scheduled_messages', { type: 'stream', to: general, content: 'x', scheduled_delivery_timestamp: now + 60 });
  assert.equal(r.body.var_name, 'topic');
  r = await ann.post('scheduled_messages', { type: 'direct', to: [999999], content: 'x', scheduled_delivery_timestamp: now + 60 });
  assert.deepEqual([r.status, r.body.msg], [400, 'Invalid user ID 999999']);
  r = await ann.post('scheduled_messages', { type: 'direct', to: [ben.userId], content: '   ', scheduled_delivery_timestamp: now + 60 });
  assert.deepEqual([r.status, r.body.msg], [400, 'Message must not be empty']);
  const secret = await newChannel(s, 'sched-secret', { inviteOnly: true, subscribers: [ben] });
  r = await ann.post('scheduled_messages', { type: 'channel', to: secret.id, topic: 't', content: 'x', scheduled_delivery_timestamp: now + 60 });
  // A private channel one may not see, named by ID: the answer for no such channel (docs/decisions.md, "Refusals that named a channel").
  assert.deepEqual([r.status, r.body.code, r.body.msg], [400, 'STREAM_DOES_NOT_EXIST', `Channel with ID '${secret.id}' does not exist`]);
  assert.deepEqual((await ann.ok('GET', 'scheduled_messages')).scheduled_messages, []);
});

test('list, events to the owner only, edit, delete (own only)', async () => {
  const qa = await queueFor(ann, { event_types: ['scheduled_messages'] });
  const qb = await queueFor(ben, { event_types: ['scheduled_messages'] });
  const late = await schedule(ann, { type: 'stream', to: general, topic: 'later', content: 'in two hours', scheduled_delivery_timestamp: now + 7200 });
  const soon = await schedule(ann, { type: 'direct', to: [ben.userId], content: 'in *one* hour', scheduled_delivery_timestamp: now + 3600 });
  const list = (await ann.ok('GET', 'scheduled_messages')).scheduled_messages;
  assert.deepEqual(list, [
    { scheduled_message_id: soon, type: 'private', to: [ben.userId], content: 'in *one* hour', rendered_content: '<p>in <em>one</em> hour</p>', scheduled_delivery_timestamp: now + 3600, failed: false },
    { scheduled_message_id: late, type: 'stream', to: general, topic: 'later', content: 'in two hours', rendered_content: '<p>in two hours</p>', scheduled_delivery_timestamp: now + 7200, failed: false },
  ]);
  assert.deepEqual((await ben.ok('GET', 'scheduled_messages')).scheduled_messages, []);
  assert.deepEqual((await ann.ok('POST', 'register', { fetch_event_types: ['scheduled_messages'] })).scheduled_messages, list);
  let evs = await qa.events();
  assert.deepEqual(evs.map((e) => [e.type, e.op]), [['scheduled_messages', 'add'], ['scheduled_messages', 'add']]);
  assert.deepEqual(evs[1].scheduled_messages, [list[0]]);

  // Edits: a new time, a change of type (which needs `to`, and a topic for a channel).
  let r = await ben.patch(`scheduled_messages/${soon}`, { content: 'mine now' });
  assert.deepEqual([r.status, r.body.code, r.body.msg], [404, 'BAD_REQUEST', 'Scheduled message does not exist']);
  r = await ann.patch(`scheduled_messages/${soon}`, { scheduled_delivery_timestamp: now - 1 });
  assert.equal(r.body.msg, 'Scheduled delivery time must be in the future.');
  r = await ann.patch(`scheduled_messages/${soon}`, { type: 'stream' });
  assert.deepEqual([r.status, r.body.msg], [400, 'Recipient required when updating type of scheduled message.']);
  r = await ann.patch(`scheduled_messages/${soon}`, { type: 'stream', to: general });
  assert.equal(r.status, 400);
  r = await ann.patch(`scheduled_messages/${soon}`, { to: [999999] });
  assert.equal(r.body.msg, 'Invalid user ID 999999');
  await ann.ok('PATCH', `scheduled_messages/${soon}`, { type: 'channel', to: general, topic: 'moved', scheduled_delivery_timestamp: now + 9000 });
  evs = await qa.events();
  assert.deepEqual(evs.map((e) => [e.op, e.scheduled_message.scheduled_message_id, e.scheduled_message.type, e.scheduled_message.to, e.scheduled_message.topic]), [['update', soon, 'stream', general, 'moved']]);
  assert.deepEqual((await ann.ok('GET', 'scheduled_messages')).scheduled_messages.map((m: any) => m.scheduled_message_id), [late, soon]);

  r = await ben.delete(`scheduled_messages/${soon}`);
  assert.deepEqual([r.status, r.body.msg], [404, 'Scheduled message does not exist']);
  await ann.ok('DELETE', `scheduled_messages/${soon}`);
  r = await ann.delete(`scheduled_messages/${soon}`);
  assert.equal(r.status, 404);
  await ann.ok('DELETE', `scheduled_messages/${late}`);
  assert.deepEqual((await qa.events()).map((e) => [e.op, e.scheduled_message_id]), [['remove', soon], ['remove', late]]);
  assert.deepEqual(await qb.events(), []);
});

test('delivery: sent as the user at its time, once, and removed from the list', async () => {
  const q = await queueFor(ann, { event_types: ['scheduled_messages'] });
  const id = await schedule(ann, { type: 'stream', to: general, topic: 'deliver', content: 'on **time**', scheduled_delivery_timestamp: now + 600 });
  const dm = await schedule(ann, { type: 'direct', to: [ben.userId], content: 'psst', scheduled_delivery_timestamp: now + 600 });
  // The worker runs every second: after it had a chance, nothing went before its time.
  await new Promise((r) => setTimeout(r, 1300));
  assert.equal((await topicMessages(ann, 'deliver')).length, 0);
  now += 601;
  const msgs = await until('delivery', async () => {
    const m = await topicMessages(ben, 'deliver');
    return m.length ? m : undefined;
  });
  assert.equal(msgs.length, 1);
  assert.equal(msgs[0].sender_id, ann.userId);
  assert.equal(msgs[0].content, '<p>on <strong>time</strong></p>');
  const dms = await until('dm delivery', async () => {
    const r = await ben.ok('GET', 'messages', { anchor: 'newest', num_before: 5, num_after: 0, narrow: [{ operator: 'dm', operand: [ann.userId] }] });
    return r.messages.length ? r.messages : undefined;
  });
  assert.deepEqual(dms.map((m: any) => [m.sender_id, m.content]), [[ann.userId, '<p>psst</p>']]);
  assert.deepEqual((await ann.ok('GET', 'scheduled_messages')).scheduled_messages, []);
  await until('remove events', async () => {
    const evs = await q.events();
    return evs.filter((e) => e.op === 'remove').length === 2 ? evs : undefined;
  });
  assert.ok([id, dm].every((x) => typeof x === 'number'));
});

test('a scheduled message due while the server was down is sent once after it starts', async () => {
  await schedule(ann, { type: 'stream', to: general, topic: 'restart', content: 'durable', scheduled_delivery_timestamp: now + 3600 });
  await s.running.close();
  now += 7200;
  await s.restart();
  await until('delivery after restart', async () => ((await topicMessages(ann, 'restart')).length === 1 ? true : undefined));
  await s.restart();
  await new Promise((r) => setTimeout(r, 1500));
  assert.equal((await topicMessages(ann, 'restart')).length, 1, 'delivered exactly once');
});

test('a message that can no longer be sent is kept, marked failed, and the sender is told', async () => {
  const cat = await s.user('Cat Unsubscribed');
  const ch = await newChannel(s, 'sched-closing', { inviteOnly: true, subscribers: [cat, ann] });
  const q = await queueFor(cat, { event_types: ['scheduled_messages'] });
  const id = await schedule(cat, { type: 'stream', to: ch.id, topic: 't', content: 'too late', scheduled_delivery_timestamp: now + 5 });
  await s.running.app.store.write((tx) => tx.deleteFrom('subscriptions').where('user_id', '=', cat.userId).where('stream_id', '=', ch.id).execute());
  now += 6;
  const failed = await until('failure', async () => {
    const list = (await cat.ok('GET', 'scheduled_messages')).scheduled_messages;
    return list[0]?.failed ? list : undefined;
  });
  assert.equal(failed[0].scheduled_message_id, id);
  const evs = await until('update event', async () => {
    const e = await q.events();
    return e.some((x) => x.op === 'update') ? e : undefined;
  });
  assert.equal(evs.find((e) => e.op === 'update')!.scheduled_message.failed, true);
  const notice = await until('notification', async () => {
    const r = await cat.ok('GET', 'messages', { anchor: 'newest', num_before: 5, num_after: 0, narrow: [{ operator: 'is', operand: 'dm' }] });
    return (r.messages as any[]).find((m) => m.sender_full_name === 'Notification Bot');
  });
  assert.match(notice.content, /was not sent because of the following error/);
  // Retrying needs a new time; then it is no longer failed.
  let r = await cat.patch(`scheduled_messages/${id}`, { content: 'again' });
  assert.equal(r.body.msg, 'Scheduled delivery time must be in the future.');
  await cat.ok('PATCH', `scheduled_messages/${id}`, { type: 'direct', to: [ann.userId], scheduled_delivery_timestamp: now + 100 });
  assert.equal((await cat.ok('GET', 'scheduled_messages')).scheduled_messages[0].failed, false);
  r = await cat.delete(`scheduled_messages/${id}`);
  assert.equal(r.status, 200);
});

const skipPg = process.env.PARLEY_TEST_PG_URL ? false : 'several processes need PostgreSQL (SQLite is single-node); this runs in the PostgreSQL pass';

test('two servers on one PostgreSQL database send each scheduled message once', { skip: skipPg }, async () => {
  const peer = await s.peer({ nodeId: 'peer-sched' });
  try {
    for (let i = 0; i < 30; i++) await schedule(ann, { type: 'stream', to: general, topic: 'many', content: `m${i}`, scheduled_delivery_timestamp: now + 100 + (i % 3) });
    now += 200;
    await until('all delivered', async () => ((await topicMessages(ann, 'many')).length >= 30 ? true : undefined), 20000);
    await new Promise((r) => setTimeout(r, 1500));
    const msgs = await topicMessages(ann, 'many');
    assert.equal(msgs.length, 30);
    assert.equal(new Set(msgs.map((m) => m.content)).size, 30, 'each once');
  } finally {
    await peer.close();
  }
});

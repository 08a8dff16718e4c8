// Reminders: scheduling rules, the list and events, and delivery by the notification bot exactly once,
// across a restart (controllable clock) and with two server processes on one PostgreSQL database.
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
before(async () => {
  s = await startTestServer({ clock });
  ann = await s.user('Ann Reminder');
  ben = await s.user('Ben Other');
});
after(async () => {
  await s.close();
});

const send = async (c: Client, params: Record<string, unknown>) => (await c.ok('POST', 'messages', params as never)).id as number;

async function botMessages(c: Client): Promise<Record<string, any>[]> {
  const r = await c.ok('GET', 'messages', { anchor: 'newest', num_before: 1000, num_after: 0, narrow: [{ operator: 'is', operand: 'dm' }] });
  return (r.messages as Record<string, any>[]).filter((m) => m.sender_email === 'notification.system@localhost');
}

test('validation: required parameters, future time, visible message, note limits', async () => {
  const id = await send(ann, { type: 'stream', to: 'general', topic: 'r', content: 'remind me' });
  let r = await ann.post('reminders', { scheduled_delivery_timestamp: now + 60 });
  assert.equal(r.status, 400);
  assert.equal(r.body.code, 'REQUEST_VARIABLE_MISSING');
  assert.equal(r.body.var_name, 'message_id');
  r = await ann.post('reminders', { message_id: id });
  assert.equal(r.body.var_name, 'scheduled_delivery_timestamp');
  r = await ann.post('reminders', { message_id: id, scheduled_delivery_timestamp: now });
  assert.equal(r.status, 400);
  assert.equal(r.body.msg, 'Scheduled delivery time must be in the future.');
  r = await ann.post('reminders', { message_id: id, scheduled_delivery_timestamp: 'soon' });
  assert.equal(r.body.code, 'BAD_REQUEST');
  r = await ann.post('reminders', { message_id: 999999, scheduled_delivery_timestamp: now + 60 });
  assert.deepEqual([r.status, r.body.msg], [400, 'Invalid message(s)']);
  const secret = await newChannel(s, 'rem-secret', { inviteOnly: true, subscribers: [ben] });
  const hidden = await send(ben, { type: 'stream', to: secret.name, topic: 't', content: 'secret' });
  r = await ann.post('reminders', { message_id: hidden, scheduled_delivery_timestamp: now + 60 });
  assert.deepEqual([r.status, r.body.msg], [400, 'Invalid message(s)']);
  const dm = await send(ben, { type: 'direct', to: [ben.userId], content: 'note to self' });
  r = await ann.post('reminders', { message_id: dm, scheduled_delivery_timestamp: now + 60 });
  assert.equal(r.body.msg, 'Invalid message(s)');
  r = await ann.post('reminders', { message_id: id, scheduled_delivery_timestamp: now + 60, note: 'x'.repeat(1001) });
  assert.match(r.body.msg, /Note too long/);
  r = await ann.post('reminders', { message_id: id, scheduled_delivery_timestamp: now + 60, note: 'a\u0000b' });
  assert.equal(r.status, 400);
  // The query string works as well as the body; note is optional.
  const ok = await ann.ok('POST', 'reminders', { message_id: id, scheduled_delivery_timestamp: now + 60 }, { as: 'query' });
  assert.equal(typeof ok.reminder_id, 'number');
  await ann.ok('DELETE', `reminders/${ok.reminder_id}`);
});

test('list, events to the owner only, delete (own only)', async () => {
  const id = await send(ann, { type: 'stream', to: 'general', topic: 'list', content: 'for the list' });
  const qa = await queueFor(ann, { event_types: ['reminders'] });
  const qb = await queueFor(ben, { event_types: ['reminders'] });
  const late = (await ann.ok('POST', 'reminders', { message_id: id, scheduled_delivery_timestamp: now + 7200, note: 'later' })).reminder_id;
  const soon = (await ann.ok('POST', 'reminders', { message_id: id, scheduled_delivery_timestamp: now + 3600, note: 'sooner' })).reminder_id;
  const list = (await ann.ok('GET', 'reminders')).reminders;
  assert.deepEqual(list.map((r: any) => r.reminder_id), [soon, late]);
  const first = list[0];
  assert.deepEqual({ ...first, content: undefined, rendered_content: undefined }, {
    reminder_id: soon, type: 'private', to: [ann.userId], scheduled_delivery_timestamp: now + 3600, failed: false, reminder_target_message_id: id, content: undefined, rendered_content: undefined,
  });
  assert.match(first.content, /> sooner/);
  assert.match(first.rendered_content, /<blockquote>/);
  assert.deepEqual((await ben.ok('GET', 'reminders')).reminders, []);
  const evs = await qa.events();
  assert.deepEqual(evs.map((e) => [e.type, e.op]), [['reminders', 'add'], ['reminders', 'add']]);
  assert.deepEqual(evs[1].reminders, [first]);
  let r = await ben.delete(`reminders/${soon}`);
  assert.deepEqual([r.status, r.body.code, r.body.msg], [404, 'BAD_REQUEST', 'Reminder does not exist']);
  await ann.ok('DELETE', `reminders/${soon}`);
  r = await ann.delete(`reminders/${soon}`);
  assert.equal(r.status, 404);
  assert.deepEqual((await qa.events()).map((e) => [e.op, e.reminder_id]), [['remove', soon]]);
  assert.deepEqual(await qb.events(), []);
  await ann.ok('DELETE', `reminders/${late}`);
});

test('delivery: the notification bot sends one direct message linking the message with the note', async () => {
  const id = await send(ben, { type: 'stream', to: 'general', topic: 'deliver', content: 'look at this' });
  const q = await queueFor(ann, { event_types: ['reminders', 'message'] });
  const rid = (await ann.ok('POST', 'reminders', { message_id: id, scheduled_delivery_timestamp: now + 600, note: 'check *this*' })).reminder_id;
  await new Promise((r) => setTimeout(r, 1300));
  assert.equal((await botMessages(ann)).length, 0, 'nothing before the time');
  now += 601;
  const msgs = await until('delivery', async () => {
    const m = await botMessages(ann);
    return m.length ? m : undefined;
  });
  assert.equal(msgs.length, 1);
  const m = msgs[0];
  assert.equal(m.type, 'private');
  assert.equal(m.sender_full_name, 'Notification Bot');
  assert.deepEqual(m.display_recipient.map((u: any) => u.id).sort(), [ann.userId, m.sender_id].sort((a, b) => a - b));
  assert.match(m.content, new RegExp(`/near/${id}`));
  assert.match(m.content, /<em>this<\/em>/);
  assert.deepEqual((await ann.ok('GET', 'reminders')).reminders, []);
  await until('events', async () => {
    const evs = await q.events();
    return evs.some((e) => e.type === 'reminders' && e.op === 'remove' && e.reminder_id === rid) && evs.some((e) => e.type === 'message') ? true : undefined;
  });
  // The bot is a system bot of this organization, created once.
  const bots = await s.running.app.store.db.selectFrom('realm_system_bots').selectAll().where('realm_id', '=', s.realm.id).where('kind', '=', 'notification').execute();
  assert.equal(bots.length, 1);
  // A direct message reminder links the conversation.
  const dm = await send(ben, { type: 'direct', to: [ann.userId], content: 'dm for later' });
  await ann.ok('POST', 'reminders', { message_id: dm, scheduled_delivery_timestamp: now + 10 });
  now += 11;
  const after = await until('dm delivery', async () => {
    const m2 = await botMessages(ann);
    return m2.length === 2 ? m2 : undefined;
  });
  assert.match(after[after.length - 1].content, new RegExp(`#narrow/dm/${ben.userId}/near/${dm}`));
});

test('a reminder due while the server was down is delivered once after it starts', async () => {
  const id = await send(ann, { type: 'stream', to: 'general', topic: 'restart', content: 'durable' });
  const before = (await botMessages(ann)).length;
  await ann.ok('POST', 'reminders', { message_id: id, scheduled_delivery_timestamp: now + 3600, note: 'after restart' });
  await s.running.close();
  now += 7200;
  await s.restart();
  await until('delivery after restart', async () => ((await botMessages(ann)).length === before + 1 ? true : undefined));
  await new Promise((r) => setTimeout(r, 1500));
  await s.restart();
  await new Promise((r) => setTimeout(r, 1500));
  const msgs = await botMessages(ann);
  assert.equal(msgs.length, before + 1, 'delivered exactly once');
  assert.match(msgs[msgs.length - 1].content, /after restart/);
});

test('a reminder for a deactivated user is kept, marked failed', async () => {
  const cat = await s.user('Cat Leaving');
  const id = await send(cat, { type: 'stream', to: 'general', topic: 'fail', content: 'x' });
  const rid = (await cat.ok('POST', 'reminders', { message_id: id, scheduled_delivery_timestamp: now + 5 })).reminder_id;
  await s.running.app.store.write((tx) => tx.updateTable('users').set({ is_active: 0 }).where('id', '=', cat.userId).execute());
  now += 6;
  const db = s.running.app.store.db;
  await until('failure mark', async () => ((await db.selectFrom('reminders').select('failed').where('id', '=', rid).executeTakeFirst())?.failed === 1 ? true : undefined));
});

const skipPg = process.env.PARLEY_TEST_PG_URL ? false : 'several processes need PostgreSQL (SQLite is single-node); this runs in the PostgreSQL pass';

test('two servers on one PostgreSQL database deliver each reminder once', { skip: skipPg }, async () => {
  const peer = await s.peer({ nodeId: 'peer-b' });
  try {
    const id = await send(ann, { type: 'stream', to: 'general', topic: 'twice?', content: 'many' });
    const before = (await botMessages(ann)).length;
    for (let i = 0; i < 30; i++) await ann.ok('POST', 'reminders', { message_id: id, scheduled_delivery_timestamp: now + 100 + (i % 3), note: `n${i}` });
    now += 200;
    await until('all delivered', async () => ((await botMessages(ann)).length >= before + 30 ? true : undefined), 20000);
    await new Promise((r) => setTimeout(r, 1500));
    const msgs = (await botMessages(ann)).slice(before);
    assert.equal(msgs.length, 30);
    assert.equal(new Set(msgs.map((m) => m.content)).size, 30, 'each reminder once');
  } finally {
    await peer.close();
  }
});

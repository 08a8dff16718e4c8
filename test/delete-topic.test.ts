// POST /streams/{stream_id}/delete_topic: administrators only, batches newest first within the time
// budget (complete false, then true), delete_message and first_message_id events, and access rules.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type Client, type TestServer } from './helpers/server.js';
import { newChannel } from './helpers/messages.js';
import { checkConsistency, drainEvents } from './helpers/events.js';

let s: TestServer;
let admin: Client;
let mia: Client;
let ned: Client;
before(async () => {
  // Two messages per batch and no time budget: every request stops after one batch.
  s = await startTestServer({ env: { PARLEY_DELETE_TOPIC_BATCH_SIZE: '2', PARLEY_DELETE_TOPIC_BUDGET_MS: '0' } });
  admin = await s.user('Ada Deleter', 200);
  mia = await s.user('Mia Member');
  ned = await s.user('Ned Outsider');
});
after(async () => {
  await s.close();
});

const send = async (c: Client, to: string, topic: string, content = 'x') => (await c.ok('POST', 'messages', { type: 'stream', to, topic, content })).id as number;
const idsIn = async (streamId: number, topic: string) =>
  (await s.running.app.store.db.selectFrom('messages').select('id').where('stream_id', '=', streamId).where('topic_key', '=', topic.toLowerCase()).orderBy('id').execute()).map((r) => r.id);

test('deletes in batches, newest first, answering complete false until the topic is gone', async () => {
  const room = await newChannel(s, 'del-batches', { subscribers: [admin, mia] });
  const ids: number[] = [];
  for (let i = 0; i < 5; i++) ids.push(await send(mia, 'del-batches', 'Doomed'));
  const keep = await send(mia, 'del-batches', 'other');
  const first = await admin.ok('POST', `streams/${room.id}/delete_topic`, { topic_name: 'doomed' });
  assert.equal(first.complete, false);
  assert.deepEqual(await idsIn(room.id, 'doomed'), ids.slice(0, 3));
  const second = await admin.ok('POST', `streams/${room.id}/delete_topic`, { topic_name: 'Doomed' }, { as: 'query' });
  assert.equal(second.complete, false);
  assert.deepEqual(await idsIn(room.id, 'doomed'), ids.slice(0, 1));
  const third = await admin.ok('POST', `streams/${room.id}/delete_topic`, { topic_name: 'Doomed' }, { as: 'multipart' });
  assert.equal(third.complete, true);
  assert.deepEqual(await idsIn(room.id, 'doomed'), []);
  assert.deepEqual(await idsIn(room.id, 'other'), [keep]);
  // An empty or unknown topic is already complete.
  assert.equal((await admin.ok('POST', `streams/${room.id}/delete_topic`, { topic_name: 'never' })).complete, true);
});

test('with a time budget the whole topic goes in one request', async () => {
  const t = await startTestServer({ env: { PARLEY_DELETE_TOPIC_BATCH_SIZE: '2' } });
  try {
    const general = (await t.running.app.store.db.selectFrom('streams').select('id').where('name', '=', 'general').executeTakeFirstOrThrow()).id;
    for (let i = 0; i < 5; i++) await t.owner.ok('POST', 'messages', { type: 'stream', to: 'general', topic: 'bulk', content: String(i) });
    assert.equal((await t.owner.ok('POST', `streams/${general}/delete_topic`, { topic_name: 'bulk' })).complete, true);
    const left = await t.running.app.store.db.selectFrom('messages').select('id').where('topic', '=', 'bulk').execute();
    assert.deepEqual(left, []);
  } finally {
    await t.close();
  }
});

test('only organization administrators: UNAUTHORIZED_PRINCIPAL for others', async () => {
  const room = await newChannel(s, 'del-perm', { subscribers: [admin, mia] });
  await send(mia, 'del-perm', 'keep');
  const mod = await s.user('Mo Moderator', 300);
  const guest = await s.user('Gil Guest', 600);
  for (const c of [mia, mod, guest]) {
    const r = await c.post(`streams/${room.id}/delete_topic`, { topic_name: 'keep' });
    assert.equal(r.status, 400);
    assert.equal(r.body.code, 'UNAUTHORIZED_PRINCIPAL');
    assert.equal(r.body.msg, 'Must be an organization administrator');
  }
  assert.equal((await idsIn(room.id, 'keep')).length, 1);
  const missing = await admin.post(`streams/${room.id}/delete_topic`, {});
  assert.equal(missing.body.code, 'REQUEST_VARIABLE_MISSING');
  const unknown = await admin.post('streams/999999/delete_topic', { topic_name: 'keep' });
  assert.equal(unknown.body.msg, 'Invalid channel ID');
  const other = await s.realm2('delorg');
  const x = await other.owner.post(`streams/${room.id}/delete_topic`, { topic_name: 'keep' });
  assert.equal(x.body.msg, 'Invalid channel ID');
  assert.equal((await idsIn(room.id, 'keep')).length, 1);
});

test('the empty topic by its display name; protected history limits an unsubscribed administrator', async () => {
  const room = await newChannel(s, 'del-empty', { subscribers: [mia] });
  await send(mia, 'del-empty', '');
  assert.equal((await admin.ok('POST', `streams/${room.id}/delete_topic`, { topic_name: 'general chat' })).complete, true);
  assert.deepEqual(await idsIn(room.id, ''), []);
  const vault = await newChannel(s, 'del-vault', { inviteOnly: true, historyPublic: false, subscribers: [mia] });
  await send(mia, 'del-vault', 'secret');
  assert.equal((await admin.ok('POST', `streams/${vault.id}/delete_topic`, { topic_name: 'secret' })).complete, true);
  assert.equal((await idsIn(vault.id, 'secret')).length, 1, 'the administrator never received it');
});

test('events: delete_message to those who could see the messages, stream update with the new first_message_id', async () => {
  const room = await newChannel(s, 'del-events', { inviteOnly: true, subscribers: [admin, mia] });
  const a = await send(mia, 'del-events', 'first');
  await send(mia, 'del-events', 'first');
  const later = await send(mia, 'del-events', 'second');
  const qm = await mia.ok('POST', 'register', { event_types: ['delete_message', 'stream'], client_capabilities: { bulk_message_deletion: true } });
  const qn = await ned.ok('POST', 'register', { event_types: ['delete_message', 'stream'] });
  const first = await s.running.app.store.db.selectFrom('streams').select('first_message_id').where('id', '=', room.id).executeTakeFirstOrThrow();
  assert.equal(first.first_message_id, a);
  assert.equal((await admin.ok('POST', `streams/${room.id}/delete_topic`, { topic_name: 'first' })).complete, true);
  const events = await drainEvents(mia, qm.queue_id);
  const del = events.filter((e) => e.type === 'delete_message');
  assert.equal(del.length, 1);
  assert.deepEqual(del[0].message_ids, [a, a + 1]);
  assert.equal(del[0].stream_id, room.id);
  assert.equal(del[0].topic, 'first');
  const upd = events.find((e) => e.type === 'stream');
  assert.deepEqual([upd.op, upd.property, upd.value, upd.stream_id], ['update', 'first_message_id', later, room.id]);
  assert.deepEqual((await drainEvents(ned, qn.queue_id)).filter((e) => e.type !== 'heartbeat'), []);
});

test('events-consistency: deleting a topic with unread messages and the channel first message', async () => {
  const room = await newChannel(s, 'del-cons', { subscribers: [admin, mia] });
  await send(admin, 'del-cons', 'gone');
  await send(admin, 'del-cons', 'gone');
  await send(admin, 'del-cons', 'gone');
  // Deleting the newest message would lower max_message_id, which no event conveys; keep a later one.
  await send(admin, 'del-cons', 'stays');
  // The client repeats the request until complete, as the reference tells it to.
  const all = async () => {
    while (!(await admin.ok('POST', `streams/${room.id}/delete_topic`, { topic_name: 'gone' })).complete);
  };
  const events = await checkConsistency(mia, all, { expect: ['delete_message', 'stream'] });
  assert.equal(events.filter((e) => e.type === 'delete_message').length, 2, 'one event per batch');
  await send(admin, 'del-cons', 'gone');
  await send(admin, 'general', 'tail');
  await checkConsistency(mia, () => admin.ok('POST', `streams/${room.id}/delete_topic`, { topic_name: 'gone' }), {
    register: { apply_markdown: false, include_subscribers: false, client_capabilities: {} },
    expect: ['delete_message'],
  });
});

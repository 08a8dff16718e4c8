// Message flags and unread state: POST /messages/flags (+ narrow), legacy mark-as-read, register state.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type Client, type TestServer } from './helpers/server.js';
import { newChannel, queueFor, streamId } from './helpers/messages.js';

let s: TestServer;
let fay: Client;
let gus: Client;
let hal: Client;

before(async () => {
  s = await startTestServer();
  fay = await s.user('Fay Flags');
  gus = await s.user('Gus Reads');
  hal = await s.user('Hal Third');
});
after(async () => {
  await s.close();
});

const send = async (c: Client, params: Record<string, unknown>) => (await c.ok('POST', 'messages', params as never)).id as number;

test('star and unstar; response and event list the changed messages', async () => {
  const id = await send(fay, { type: 'stream', to: 'general', topic: 'stars', content: 'shine' });
  const q = await queueFor(gus);
  const r = await gus.ok('POST', 'messages/flags', { messages: [id], op: 'add', flag: 'starred' });
  assert.deepEqual(r.messages, [id]);
  const ev = (await q.events()).find((e) => e.type === 'update_message_flags');
  assert.deepEqual(ev, { type: 'update_message_flags', op: 'add', operation: 'add', flag: 'starred', messages: [id], all: false, id: ev?.id });
  const again = await gus.ok('POST', 'messages/flags', { messages: [id], op: 'add', flag: 'starred' });
  assert.deepEqual(again.messages, []);
  const reg = await gus.ok('POST', 'register', { fetch_event_types: ['starred_messages'] });
  assert.deepEqual(reg.starred_messages, [id]);
  await gus.ok('POST', 'messages/flags', { messages: JSON.stringify([id]), op: 'remove', flag: 'starred' }, { as: 'multipart' });
  assert.deepEqual((await gus.ok('GET', `messages/${id}`)).message.flags, []);
});

test('flag errors and inaccessible messages', async () => {
  const id = await send(fay, { type: 'stream', to: 'general', topic: 'errs', content: 'x' });
  assert.equal((await gus.post('messages/flags', { messages: [id], op: 'add', flag: 'bogus' })).body.msg, "Invalid flag: 'bogus'");
  assert.equal((await gus.post('messages/flags', { messages: [id], op: 'add', flag: 'mentioned' })).body.msg, "Flag not editable: 'mentioned'");
  assert.equal((await gus.post('messages/flags', { messages: [id], op: 'toggle', flag: 'read' })).status, 400);
  const dm = await send(fay, { type: 'direct', to: [hal.userId], content: 'private' });
  assert.equal((await gus.post('messages/flags', { messages: [dm], op: 'add', flag: 'starred' })).body.msg, 'Invalid message(s)');
  const secret = await newChannel(s, 'flags-secret', { inviteOnly: true, subscribers: [fay] });
  const hidden = await send(fay, { type: 'stream', to: secret.id, topic: 't', content: 'x' });
  assert.equal((await gus.post('messages/flags', { messages: [hidden], op: 'add', flag: 'read' })).body.msg, 'Invalid message(s)');
});

test('starring public history creates a historical row', async () => {
  const id = await send(fay, { type: 'stream', to: 'general', topic: 'history', content: 'old news' });
  const late = await s.user('Ivy Late');
  const r = await late.ok('POST', 'messages/flags', { messages: [id], op: 'add', flag: 'starred' });
  assert.deepEqual(r.messages, [id]);
  assert.deepEqual((await late.ok('GET', `messages/${id}`)).message.flags, ['read', 'starred', 'historical']);
});

test('unread_msgs follows messages, reads and unreads; message_details on mark-unread', async () => {
  const general = await streamId(s, 'general');
  await gus.ok('POST', 'mark_all_as_read');
  const a = await send(fay, { type: 'stream', to: 'general', topic: 'Lunch', content: 'hi @**Gus Reads**' });
  const b = await send(fay, { type: 'stream', to: 'general', topic: '', content: 'no topic' });
  const d1 = await send(fay, { type: 'direct', to: [gus.userId], content: 'dm' });
  const g1 = await send(fay, { type: 'direct', to: [gus.userId, hal.userId], content: 'group' });
  const reg = await gus.ok('POST', 'register', { fetch_event_types: ['message', 'update_message_flags', 'recent_private_conversations'], client_capabilities: { empty_topic_name: true } });
  const u = reg.unread_msgs;
  assert.equal(u.count, 4);
  assert.deepEqual(u.streams, [
    { stream_id: general, topic: '', unread_message_ids: [b] },
    { stream_id: general, topic: 'Lunch', unread_message_ids: [a] },
  ]);
  assert.deepEqual(u.pms, [{ other_user_id: fay.userId, sender_id: fay.userId, unread_message_ids: [d1] }]);
  assert.deepEqual(u.huddles, [{ user_ids_string: [fay.userId, gus.userId, hal.userId].sort((x, y) => x - y).join(','), unread_message_ids: [g1] }]);
  assert.deepEqual(u.mentions, [a]);
  assert.equal(u.old_unreads_missing, false);
  assert.ok(reg.max_message_id >= g1);
  assert.deepEqual(reg.recent_private_conversations.slice(0, 2), [
    { max_message_id: g1, user_ids: [fay.userId, hal.userId].sort((x, y) => x - y) },
    { max_message_id: d1, user_ids: [fay.userId] },
  ]);
  const legacyReg = await gus.ok('POST', 'register', { fetch_event_types: ['message', 'update_message_flags'] });
  assert.ok(legacyReg.unread_msgs.streams.some((e: any) => e.topic === 'general chat'));

  const q = await queueFor(gus, { client_capabilities: { empty_topic_name: true } });
  await gus.ok('POST', 'mark_topic_as_read', { stream_id: general, topic_name: 'lunch' });
  await gus.ok('POST', 'mark_stream_as_read', { stream_id: general });
  await gus.ok('POST', 'messages/flags', { messages: [d1], op: 'add', flag: 'read' });
  const r = await gus.ok('POST', 'messages/flags', { messages: [a, d1], op: 'remove', flag: 'read' });
  assert.deepEqual(r.messages, [a, d1]);
  const evs = (await q.events()).filter((e) => e.type === 'update_message_flags');
  assert.deepEqual(
    evs.map((e) => [e.op, e.messages]),
    [
      ['add', [a]],
      ['add', [b]],
      ['add', [d1]],
      ['remove', [a, d1]],
    ],
  );
  assert.deepEqual(evs[3].message_details, {
    [a]: { type: 'stream', stream_id: general, topic: 'Lunch', mentioned: true },
    [d1]: { type: 'private', user_ids: [fay.userId] },
  });
  const after = await gus.ok('POST', 'register', { fetch_event_types: ['message', 'update_message_flags'] });
  assert.equal(after.unread_msgs.count, 3);
  assert.equal((await gus.post('mark_stream_as_read', { stream_id: 999999 })).status, 400);
});

test('flags for a narrow range', async () => {
  const dest = await newChannel(s, 'flags-narrow', { subscribers: [fay, gus] });
  const ids = [];
  for (let i = 0; i < 3; i++) ids.push(await send(fay, { type: 'stream', to: dest.id, topic: 'n', content: `m${i}` }));
  const r = await gus.ok('POST', 'messages/flags/narrow', { anchor: 'oldest', num_before: 0, num_after: 10, narrow: [{ operator: 'channel', operand: dest.id }], op: 'add', flag: 'read' });
  assert.equal(r.processed_count, 3);
  assert.equal(r.updated_count, 3);
  assert.equal(r.first_processed_id, ids[0]);
  assert.equal(r.last_processed_id, ids[2]);
  assert.equal(r.found_newest, true);
  const unread = await gus.ok('GET', 'messages', { anchor: 'newest', num_before: 10, num_after: 0, narrow: [{ operator: 'channel', operand: dest.id }, { operator: 'is', operand: 'unread' }] });
  assert.equal(unread.messages.length, 0);
});

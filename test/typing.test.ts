// Typing notifications: POST /typing (direct and channel) and POST /messages/{id}/typing, their errors and audiences.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type Client, type TestServer } from './helpers/server.js';
import { expectError } from './helpers/assertions.js';
import { newChannel } from './helpers/messages.js';

let s: TestServer;
let tia: Client;
let ugo: Client;
let val: Client;
let wes: Client;

before(async () => {
  s = await startTestServer();
  tia = await s.user('Tia Typist');
  ugo = await s.user('Ugo Reader');
  val = await s.user('Val Reader');
  wes = await s.user('Wes Outsider');
});
after(async () => {
  await s.close();
});

const TYPING_TYPES = ['typing', 'typing_edit_message'];
const MODERN = { stream_typing_notifications: true, empty_topic_name: true };

/** A queue for typing events; `events()` returns what arrived since the last call. */
async function typingQueue(c: Client, capabilities: Record<string, boolean> = MODERN) {
  const reg = await c.ok('POST', 'register', { event_types: TYPING_TYPES, client_capabilities: capabilities });
  let last = -1;
  return {
    async events(): Promise<Record<string, any>[]> {
      const r = await c.ok('GET', 'events', { queue_id: reg.queue_id, last_event_id: last, dont_block: true });
      if (r.events.length) last = r.events[r.events.length - 1].id;
      return (r.events as Record<string, any>[]).filter((e) => e.type !== 'heartbeat');
    },
  };
}

const strip = (events: Record<string, any>[]) => events.map(({ id: _id, ...rest }) => rest);


test('direct typing: start and stop reach the recipients, never the typist', async () => {
  const [qt, qu, qv, qw] = await Promise.all([tia, ugo, val, wes].map((c) => typingQueue(c)));
  await tia.ok('POST', 'typing', { op: 'start', to: [ugo.userId, val.userId] });
  const recipients = [tia, ugo, val].map((c) => ({ user_id: c.userId, email: c.email }));
  const start = { type: 'typing', op: 'start', message_type: 'direct', sender: { user_id: tia.userId, email: tia.email }, recipients };
  assert.deepEqual(strip(await qu.events()), [start]);
  assert.deepEqual(strip(await qv.events()), [start]);
  assert.deepEqual(await qt.events(), []);
  assert.deepEqual(await qw.events(), []);
  // "direct" is the default type; the list form is JSON even for one recipient.
  await tia.ok('POST', 'typing', { type: 'direct', op: 'stop', to: [ugo.userId] });
  assert.deepEqual(strip(await qu.events()), [{ ...start, op: 'stop', recipients: [tia, ugo].map((c) => ({ user_id: c.userId, email: c.email })) }]);
  assert.deepEqual(await qv.events(), []);
});

test('direct typing: parameter forms (form, query, multipart)', async () => {
  const qu = await typingQueue(ugo);
  await tia.ok('POST', 'typing', { op: 'start', to: [ugo.userId] }, { as: 'query' });
  await tia.ok('POST', 'typing', { op: 'stop', to: [ugo.userId] }, { as: 'multipart' });
  await tia.ok('POST', 'typing', { op: 'start', to: JSON.stringify([ugo.userId]) });
  assert.deepEqual((await qu.events()).map((e) => e.op), ['start', 'stop', 'start']);
});

test('direct typing errors', async () => {
  await expectError(tia.post('typing', { type: 'private', op: 'start', to: [ugo.userId] }), 'Invalid type');
  await expectError(tia.post('typing', { op: 'typing', to: [ugo.userId] }), 'Invalid op');
  await expectError(tia.post('typing', { to: [ugo.userId] }), "Missing 'op' argument", 'REQUEST_VARIABLE_MISSING');
  await expectError(tia.post('typing', { op: 'start' }), "Missing 'to' argument");
  await expectError(tia.post('typing', { op: 'start', to: [] }), "Empty 'to' list");
  await expectError(tia.post('typing', { op: 'start', to: [ugo.userId, 987654] }), 'Invalid user ID 987654');
  await expectError(tia.post('typing', { op: 'start', to: 'nope' }), 'Argument "to" is not valid JSON.');
  await expectError(tia.post('typing', { op: 'start', to: ['ugo@example.com'] }), 'to[0] is not an integer');
  const other = await s.realm2('typing-elsewhere');
  await expectError(tia.post('typing', { op: 'start', to: [other.owner.userId] }), `Invalid user ID ${other.owner.userId}`);
});

test('receives_typing_notifications false: no events; send_*_typing_notifications false: refused', async () => {
  const qv = await typingQueue(val);
  await val.ok('PATCH', 'settings', { receives_typing_notifications: false });
  await tia.ok('POST', 'typing', { op: 'start', to: [val.userId] });
  assert.deepEqual(await qv.events(), []);
  await val.ok('PATCH', 'settings', { receives_typing_notifications: true });
  await tia.ok('POST', 'typing', { op: 'start', to: [val.userId] });
  assert.equal((await qv.events()).length, 1);

  await tia.ok('PATCH', 'settings', { send_private_typing_notifications: false, send_stream_typing_notifications: false });
  await expectError(tia.post('typing', { op: 'start', to: [val.userId] }), 'User has disabled typing notifications for direct messages');
  await expectError(tia.post('typing', { type: 'channel', op: 'start', stream_id: 1, topic: 'x' }), 'User has disabled typing notifications for channel messages');
  await tia.ok('PATCH', 'settings', { send_private_typing_notifications: true, send_stream_typing_notifications: true });
});

test('deactivated recipients are listed but not notified', async () => {
  const gone = await s.user('Gone Typist');
  const q = await typingQueue(gone);
  await s.running.app.store.db.updateTable('users').set({ is_active: 0 }).where('id', '=', gone.userId).execute();
  const qu = await typingQueue(ugo);
  await tia.ok('POST', 'typing', { op: 'start', to: [gone.userId, ugo.userId] });
  const [e] = await qu.events();
  assert.deepEqual(e.recipients.map((r: any) => r.user_id), [tia.userId, ugo.userId, gone.userId].sort((a, b) => a - b));
  assert.deepEqual(await q.events(), []);
});

test('channel typing: subscribers with the capability, empty-topic rules, both type names', async () => {
  const ch = await newChannel(s, 'typing-room', { subscribers: [tia, ugo, val] });
  const qt = await typingQueue(tia);
  const qu = await typingQueue(ugo);
  const legacyV = await typingQueue(val, {});
  const noEmptyTopic = await typingQueue(val, { stream_typing_notifications: true });
  const qw = await typingQueue(wes);
  await tia.ok('POST', 'typing', { type: 'channel', op: 'start', stream_id: ch.id, topic: 'plans' });
  const base = { type: 'typing', op: 'start', message_type: 'stream', sender: { user_id: tia.userId, email: tia.email }, stream_id: ch.id, topic: 'plans' };
  assert.deepEqual(strip(await qu.events()), [base]);
  assert.deepEqual(strip(await noEmptyTopic.events()), [base]);
  assert.deepEqual(await legacyV.events(), [], 'clients without stream_typing_notifications get no channel typing');
  assert.deepEqual(await qw.events(), [], 'non-subscribers get nothing');
  assert.deepEqual(await qt.events(), [], 'the typist gets nothing');

  const display = (await ugo.ok('POST', 'register', { fetch_event_types: ['realm'] })).realm_empty_topic_display_name;
  for (const topic of ['(no topic)', display, '']) {
    await tia.ok('POST', 'typing', { type: 'stream', op: 'stop', stream_id: ch.id, topic });
    assert.deepEqual(strip(await qu.events()), [{ ...base, op: 'stop', topic: '' }]);
    // Clients without empty_topic_name see the display name in place of "".
    assert.deepEqual(strip(await noEmptyTopic.events()), [{ ...base, op: 'stop', topic: display }]);
  }
  await tia.ok('POST', 'typing', { type: 'channel', op: 'start', stream_id: String(ch.id), topic: 'q' }, { as: 'multipart' });
  await tia.ok('POST', 'typing', { type: 'channel', op: 'stop', stream_id: ch.id, topic: 'q', to: [ugo.userId] }, { as: 'query' });
  assert.deepEqual((await qu.events()).map((e) => e.op), ['start', 'stop']);
});

test('channel typing errors and access', async () => {
  const secret = await newChannel(s, 'typing-secret', { inviteOnly: true, subscribers: [ugo] });
  await expectError(tia.post('typing', { type: 'channel', op: 'start', topic: 'x' }), 'Missing channel ID');
  await expectError(tia.post('typing', { type: 'stream', op: 'start', to: [1], topic: 'x' }), 'Missing channel ID');
  await expectError(tia.post('typing', { type: 'channel', op: 'start', stream_id: secret.id }), 'Missing topic');
  await expectError(tia.post('typing', { type: 'channel', op: 'start', stream_id: 999999, topic: 'x' }), 'Invalid channel ID');
  await expectError(tia.post('typing', { type: 'channel', op: 'start', stream_id: secret.id, topic: 'x' }), 'Invalid channel ID');
  await expectError(tia.post('typing', { type: 'channel', op: 'start', stream_id: 'abc', topic: 'x' }), 'stream_id is not an integer');
  // An administrator sees the private channel but may not post there, so may not announce typing either.
  const admin = await s.user('Ada Typing Admin', 200);
  await expectError(admin.post('typing', { type: 'channel', op: 'start', stream_id: secret.id, topic: 'x' }), "Not authorized to send to channel 'typing-secret'");
  const qu = await typingQueue(ugo);
  await ugo.ok('POST', 'typing', { type: 'channel', op: 'start', stream_id: secret.id, topic: 'x' });
  assert.deepEqual(await qu.events(), []);
});

test('message edit typing: to everyone who has the message, except the editor', async () => {
  const ch = await newChannel(s, 'typing-edits', { subscribers: [tia, ugo] });
  const msg = (await tia.ok('POST', 'messages', { type: 'stream', to: 'typing-edits', topic: 'draft', content: 'v1' })).id;
  const [qt, qu, qw] = await Promise.all([tia, ugo, wes].map((c) => typingQueue(c)));
  await tia.ok('POST', `messages/${msg}/typing`, { op: 'start' });
  const edit = { type: 'typing_edit_message', op: 'start', sender_id: tia.userId, message_id: msg, recipient: { type: 'channel', channel_id: ch.id, topic: 'draft' } };
  assert.deepEqual(strip(await qu.events()), [edit]);
  assert.deepEqual(await qt.events(), []);
  assert.deepEqual(await qw.events(), [], 'users without the message get nothing');
  await tia.ok('POST', `messages/${msg}/typing`, { op: 'stop' }, { as: 'query' });
  assert.deepEqual(strip(await qu.events()), [{ ...edit, op: 'stop' }]);

  const dm = (await tia.ok('POST', 'messages', { type: 'direct', to: [val.userId], content: 'hi' })).id;
  const qv = await typingQueue(val);
  await tia.ok('POST', `messages/${dm}/typing`, { op: 'start' }, { as: 'multipart' });
  assert.deepEqual(strip(await qv.events()), [
    { type: 'typing_edit_message', op: 'start', sender_id: tia.userId, message_id: dm, recipient: { type: 'direct', user_ids: [tia.userId, val.userId].sort((a, b) => a - b) } },
  ]);
  assert.deepEqual(await qu.events(), []);

  await val.ok('PATCH', 'settings', { receives_typing_notifications: false });
  await tia.ok('POST', `messages/${dm}/typing`, { op: 'stop' });
  assert.deepEqual(await qv.events(), []);
  await val.ok('PATCH', 'settings', { receives_typing_notifications: true });

  await expectError(tia.post(`messages/${msg}/typing`, { op: 'maybe' }), 'Invalid op');
  await expectError(tia.post(`messages/${msg}/typing`, {}), "Missing 'op' argument", 'REQUEST_VARIABLE_MISSING');
  await expectError(tia.post('messages/99999999/typing', { op: 'start' }), 'Invalid message(s)');
  await expectError(wes.post(`messages/${dm}/typing`, { op: 'start' }), 'Invalid message(s)');
});

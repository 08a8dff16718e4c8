// Muted users: POST/DELETE /users/me/muted_users/{id}, register muted_users, events, and messages
// from muted senders arriving already read (channels and direct messages, both send paths).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type Client, type TestServer } from './helpers/server.js';
import { expectError } from './helpers/assertions.js';
import { newChannel, queueFor } from './helpers/messages.js';
import { limitAccessToMembers, newBot } from './helpers/people.js';

let s: TestServer;
let ann: Client;
let ben: Client;
let cat: Client;
let gus: Client; // a guest sharing no channel with cat
let channelId: number;

before(async () => {
  s = await startTestServer();
  ann = await s.user('Ann Muter');
  ben = await s.user('Ben Muted');
  cat = await s.user('Cat Other');
  gus = await s.user('Gus Guest', 600);
  channelId = (await newChannel(s, 'muting', { subscribers: [ann, ben, cat, gus] })).id;
  await newChannel(s, 'muting-private', { subscribers: [ann, cat], inviteOnly: true });
});
after(async () => {
  await s.close();
});

const send = (c: Client, content: string) => c.ok('POST', 'messages', { type: 'stream', to: channelId, topic: 'mute test', content });
const dm = (c: Client, to: Client, content: string) => c.ok('POST', 'messages', { type: 'direct', to: JSON.stringify([to.userId]), content });
const flagsOf = async (c: Client, id: number) => (await c.ok('GET', `messages/${id}`)).message.flags as string[];
const mutedList = async (c: Client) => (await c.ok('POST', 'register', { fetch_event_types: ['muted_users'] })).muted_users as { id: number; timestamp: number }[];

test('muting: register list, events, earlier messages marked read; new messages arrive read, for the muter only', async () => {
  const earlier = (await send(ben, 'before muting')).id;
  const earlierDm = (await dm(ben, ann, 'dm before muting')).id;
  const q = await queueFor(ann, { event_types: ['muted_users', 'message', 'update_message_flags'] });
  const start = s.running.app.clock.now();
  await ann.ok('POST', `users/me/muted_users/${ben.userId}`);
  const list = await mutedList(ann);
  assert.deepEqual(list.map((m) => m.id), [ben.userId]);
  assert.ok(list[0].timestamp >= start);
  const events = await q.events();
  assert.deepEqual(events.map((e) => e.type), ['muted_users', 'update_message_flags']);
  assert.deepEqual(events[0].muted_users, list);
  assert.deepEqual([events[1].op, events[1].flag, events[1].messages], ['add', 'read', [earlier, earlierDm]]);
  assert.ok((await flagsOf(ann, earlier)).includes('read'));

  const later = (await send(ben, 'after muting')).id;
  const laterDm = (await dm(ben, ann, 'dm after muting')).id;
  assert.ok((await flagsOf(ann, later)).includes('read'));
  assert.ok((await flagsOf(ann, laterDm)).includes('read'));
  assert.ok(!(await flagsOf(cat, later)).includes('read'), 'others still get it unread');
  const msgEvents = (await q.events()).filter((e) => e.type === 'message');
  assert.deepEqual(msgEvents.map((e) => [e.message.id, e.flags.includes('read')]), [[later, true], [laterDm, true]]);
  // Twice in a row: the channel send path that remembers channels (PostgreSQL) must not skip the check.
  const again = (await send(ben, 'again')).id;
  assert.ok((await flagsOf(ann, again)).includes('read'));
  // Not among the muter's unread messages.
  const unread = (await ann.ok('POST', 'register', { fetch_event_types: ['message', 'update_message_flags'] })).unread_msgs;
  assert.equal(unread.count, 0);

  await ann.ok('DELETE', `users/me/muted_users/${ben.userId}`);
  assert.deepEqual(await mutedList(ann), []);
  const [unmuted] = (await q.events()).filter((e) => e.type === 'muted_users');
  assert.deepEqual(unmuted.muted_users, []);
  const after = (await send(ben, 'after unmuting')).id;
  assert.ok(!(await flagsOf(ann, after)).includes('read'));
});

test('errors: self, twice, not muted, unknown, bots, other organization, inaccessible users', async () => {
  await expectError(ann.post(`users/me/muted_users/${ann.userId}`), 'Cannot mute self');
  await ann.ok('POST', `users/me/muted_users/${cat.userId}`);
  await expectError(ann.post(`users/me/muted_users/${cat.userId}`), 'User already muted');
  await ann.ok('DELETE', `users/me/muted_users/${cat.userId}`);
  await expectError(ann.delete(`users/me/muted_users/${cat.userId}`), 'User is not muted');
  await expectError(ann.post('users/me/muted_users/999999'), 'No such user');
  await expectError(ann.delete('users/me/muted_users/999999'), 'No such user');
  const bot = await newBot(s, ann, 'unmutable');
  await expectError(ann.post(`users/me/muted_users/${bot.userId}`), 'No such user');
  const other = await s.realm2('mute-elsewhere');
  await expectError(ann.post(`users/me/muted_users/${other.owner.userId}`), 'No such user');
  await expectError(ann.post('users/me/muted_users/99999999999'), 'No such user');
  // Deactivated users may be muted.
  const dee = await s.user('Dee Deactivated');
  await s.owner.ok('DELETE', `users/${dee.userId}`);
  await ann.ok('POST', `users/me/muted_users/${dee.userId}`);
  // A guest may mute only those they may see.
  const hal = await s.user('Hal Hidden');
  await limitAccessToMembers(s);
  await expectError(gus.post(`users/me/muted_users/${hal.userId}`), 'No such user');
  await gus.ok('POST', `users/me/muted_users/${ben.userId}`);
});

// POST /messages: channel and direct messages, recipients, topics, content rules, permissions and events.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type Client, type TestServer } from './helpers/server.js';
import { newChannel as makeChannel, queueFor } from './helpers/messages.js';

let s: TestServer;
let bob: Client;
let cara: Client;
const newChannel = (name: string, opts: { inviteOnly?: boolean; subscribers: Client[] }) => makeChannel(s, name, opts);

before(async () => {
  s = await startTestServer();
  bob = await s.user('Bob Sender');
  cara = await s.user('Cara Reader');
});
after(async () => {
  await s.close();
});

test('a channel message reaches every subscriber with per-user flags', async () => {
  const q = await queueFor(cara);
  const sent = await bob.ok('POST', 'messages', { type: 'stream', to: 'general', topic: 'greetings', content: 'hello @**Cara Reader**  \n\n' });
  assert.equal(typeof sent.id, 'number');
  const evs = await q.events();
  const ev = evs.find((e) => e.type === 'message');
  assert.ok(ev);
  assert.equal(ev.message.id, sent.id);
  assert.equal(ev.message.subject, 'greetings');
  assert.equal(ev.message.display_recipient, 'general');
  assert.deepEqual(ev.flags, ['mentioned']);
  assert.match(ev.message.content, /<span class="user-mention" data-user-id="\d+">@Cara Reader<\/span>/);
  const mine = await bob.ok('GET', `messages/${sent.id}`, { apply_markdown: false });
  assert.equal(mine.raw_content, 'hello @**Cara Reader**');
  assert.deepEqual(mine.message.flags, ['read']);
  const stream = await s.running.app.store.db.selectFrom('streams').select('first_message_id').where('name', '=', 'general').executeTakeFirstOrThrow();
  assert.ok(stream.first_message_id !== null && stream.first_message_id <= sent.id);
});

test('channel `to` may be an ID, a JSON name or a one-element list; type channel is accepted', async () => {
  const general = await s.running.app.store.db.selectFrom('streams').select('id').where('name', '=', 'general').executeTakeFirstOrThrow();
  for (const to of [String(general.id), '"general"', `[${general.id}]`]) {
    const r = await bob.post('messages', { type: 'channel', to, topic: 't', content: 'x' });
    assert.equal(r.status, 200, JSON.stringify(r.body));
  }
  const multipart = await bob.post('messages', { type: 'stream', to: 'general', subject: 'legacy subject', content: 'y' }, { as: 'multipart' });
  assert.equal(multipart.status, 200);
  const query = await bob.post('messages', { type: 'stream', to: 'general', topic: 'q', content: 'z' }, { as: 'query' });
  assert.equal(query.status, 200);
  const m = await bob.ok('GET', `messages/${multipart.body.id}`);
  assert.equal(m.message.subject, 'legacy subject');
});

test('direct messages: IDs, emails, comma strings; one conversation per set of people', async () => {
  const q = await queueFor(cara);
  const a = await bob.ok('POST', 'messages', { type: 'direct', to: [cara.userId], content: 'hi' });
  const b = await bob.ok('POST', 'messages', { type: 'private', to: JSON.stringify([cara.email]), content: 'again' });
  const c = await bob.ok('POST', 'messages', { type: 'private', to: cara.email, content: 'plain' });
  const ma = await cara.ok('GET', `messages/${a.id}`);
  const mc = await cara.ok('GET', `messages/${c.id}`);
  assert.equal(ma.message.recipient_id, mc.message.recipient_id);
  assert.deepEqual(
    ma.message.display_recipient.map((u: any) => u.id),
    [bob.userId, cara.userId].sort((x, y) => x - y),
  );
  assert.deepEqual(ma.message.flags, []);
  assert.equal(ma.message.subject, '');
  const evs = (await q.events()).filter((e) => e.type === 'message');
  assert.deepEqual(
    evs.map((e) => e.message.id),
    [a.id, b.id, c.id],
  );
  assert.equal(evs[0].message.type, 'private');
  const self = await bob.ok('POST', 'messages', { type: 'private', to: [bob.userId], content: 'note to self' });
  const ms = await bob.ok('GET', `messages/${self.id}`);
  assert.deepEqual(
    ms.message.display_recipient.map((u: any) => u.id),
    [bob.userId],
  );
  const other = await s.user('Dan Outsider');
  const denied = await other.get(`messages/${a.id}`);
  assert.equal(denied.status, 400);
  assert.equal(denied.body.msg, 'Invalid message(s)');
});

test('local echo: the sending queue gets local_message_id', async () => {
  const q = await queueFor(bob);
  await bob.ok('POST', 'messages', { type: 'stream', to: 'general', topic: 'echo', content: 'e', queue_id: q.id, local_id: '12.01' });
  const ev = (await q.events()).find((e) => e.type === 'message');
  assert.equal(ev?.local_message_id, '12.01');
  assert.deepEqual(ev?.flags, ['read']);
});

test('read_by_sender false leaves the message unread for the sender', async () => {
  const r = await bob.ok('POST', 'messages', { type: 'stream', to: 'general', topic: 'unread', content: 'u', read_by_sender: false });
  const m = await bob.ok('GET', `messages/${r.id}`);
  assert.deepEqual(m.message.flags, []);
});

test('content and topic rules', async () => {
  const empty = await bob.post('messages', { type: 'stream', to: 'general', topic: 't', content: '   ' });
  assert.equal(empty.status, 400);
  assert.equal(empty.body.msg, 'Message must not be empty');
  const long = await bob.post('messages', { type: 'stream', to: 'general', topic: 't', content: 'x'.repeat(10001) });
  assert.equal(long.status, 400);
  const longTopic = await bob.post('messages', { type: 'stream', to: 'general', topic: 'x'.repeat(61), content: 'x' });
  assert.equal(longTopic.status, 400);
  const missingContent = await bob.post('messages', { type: 'stream', to: 'general', topic: 't' });
  assert.equal(missingContent.body.code, 'REQUEST_VARIABLE_MISSING');
  const generalChat = await bob.ok('POST', 'messages', { type: 'stream', to: 'general', topic: 'general chat', content: 'empty topic' });
  const m = await bob.ok('GET', `messages/${generalChat.id}`, { allow_empty_topic_name: true });
  assert.equal(m.message.subject, '');
  const legacy = await bob.ok('GET', `messages/${generalChat.id}`);
  assert.equal(legacy.message.subject, 'general chat');
  const ch = await newChannel('strict', { subscribers: [bob] });
  await s.running.app.store.db.updateTable('streams').set({ topics_policy: 'disable_empty_topic' }).where('id', '=', ch.id).execute();
  const refused = await bob.post('messages', { type: 'stream', to: 'strict', topic: '', content: 'x' });
  assert.equal(refused.status, 400);
  const bad = await bob.post('messages', { type: 'stream', to: 'nowhere', topic: 't', content: 'x' });
  assert.equal(bad.body.code, 'STREAM_DOES_NOT_EXIST');
  assert.equal(bad.body.stream, 'nowhere');
  const badId = await bob.post('messages', { type: 'stream', to: '999999', topic: 't', content: 'x' });
  assert.equal(badId.body.code, 'STREAM_DOES_NOT_EXIST');
  assert.equal(badId.body.stream_id, 999999);
});

test('posting permissions: private channels, guests, deactivated recipients, unknown users', async () => {
  await newChannel('secret', { inviteOnly: true, subscribers: [cara] });
  const outsider = await bob.post('messages', { type: 'stream', to: 'secret', topic: 't', content: 'x' });
  assert.equal(outsider.status, 400);
  assert.match(outsider.body.msg, /Not authorized/);
  const insider = await cara.post('messages', { type: 'stream', to: 'secret', topic: 't', content: 'x' });
  assert.equal(insider.status, 200);
  const guest = await s.user('Gail Guest', 600);
  const g = await guest.post('messages', { type: 'stream', to: 'general', topic: 't', content: 'x' });
  assert.equal(g.status, 400);
  const gone = await s.user('Gone User');
  await s.running.app.store.db.updateTable('users').set({ is_active: 0 }).where('id', '=', gone.userId).execute();
  const dm = await bob.post('messages', { type: 'private', to: [gone.userId], content: 'x' });
  assert.equal(dm.status, 400);
  const unknown = await bob.post('messages', { type: 'private', to: ['nobody@example.com'], content: 'x' });
  assert.equal(unknown.body.msg, "Invalid email 'nobody@example.com'");
  const badType = await bob.post('messages', { type: 'carrier-pigeon', to: 'general', content: 'x' });
  assert.equal(badType.status, 400);
});

test('restricted guests may message only people they share a channel with', async () => {
  const app = s.running.app;
  const realm = await app.store.db.selectFrom('realms').selectAll().where('id', '=', s.realm.id).executeTakeFirstOrThrow();
  const settings = JSON.parse(realm.settings);
  const members = await app.store.db.selectFrom('user_groups').select('id').where('realm_id', '=', realm.id).where('name', '=', 'role:members').executeTakeFirstOrThrow();
  await app.store.db.updateTable('realms').set({ settings: JSON.stringify({ ...settings, can_access_all_users_group: members.id }) }).where('id', '=', realm.id).execute();
  app.caches.invalidateRealms();
  try {
    const guest = await s.user('Gus Guest', 600);
    await newChannel('guests-room', { subscribers: [guest, cara] });
    assert.equal((await guest.post('messages', { type: 'private', to: [cara.userId], content: 'hi' })).status, 200);
    const r = await guest.post('messages', { type: 'private', to: [bob.userId], content: 'hi' });
    assert.equal(r.status, 400);
    assert.equal(r.body.msg, 'You do not have permission to access some of the recipients.');
  } finally {
    await app.store.db.updateTable('realms').set({ settings: realm.settings }).where('id', '=', realm.id).execute();
    app.caches.invalidateRealms();
  }
});

test('another organization cannot be reached', async () => {
  const other = await s.realm2('msgs-elsewhere');
  const r = await other.owner.post('messages', { type: 'private', to: [bob.userId], content: 'hi' });
  assert.equal(r.status, 400);
  const c = await other.owner.post('messages', { type: 'stream', to: 'general', topic: 't', content: 'ok' });
  assert.equal(c.status, 200);
  assert.equal((await bob.get(`messages/${c.body.id}`)).status, 400);
});

test('POST /messages/render renders mentions safely', async () => {
  const r = await bob.ok('POST', 'messages/render', { content: '**hi** @_**Cara Reader** <b>x</b> [y](javascript:alert(1))' });
  assert.match(r.rendered, /<strong>hi<\/strong>/);
  assert.match(r.rendered, /class="user-mention silent"/);
  assert.ok(!r.rendered.includes('<b>'));
  assert.ok(!r.rendered.includes('href="javascript'));
});

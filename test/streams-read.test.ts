// Channel reads: GET /streams (and its filters), /streams/{id}, /get_stream_id, topics, and the
// subscription and stream register state.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer, type Client } from './helpers/server.js';

let s: TestServer;
let alice: Client;
let bob: Client;
let guest: Client;
let privId: number;
let pubId: number;
before(async () => {
  s = await startTestServer();
  alice = await s.user('Alice Read');
  bob = await s.user('Bob Read');
  guest = await s.user('Gil Guest', 600);
  await alice.ok('POST', 'users/me/subscriptions', { subscriptions: [{ name: 'zeta-public' }, { name: 'alpha-public' }] });
  await alice.ok('POST', 'users/me/subscriptions', { subscriptions: [{ name: 'hidden' }], invite_only: true });
  privId = (await alice.ok('GET', 'get_stream_id', { stream: 'hidden' })).stream_id;
  pubId = (await alice.ok('GET', 'get_stream_id', { stream: 'zeta-public' })).stream_id;
});
after(async () => {
  await s.close();
});

const names = (list: any[]) => list.map((x) => x.name);

test('GET /streams lists visible channels by name with BasicChannel fields', async () => {
  const r = await bob.ok('GET', 'streams');
  assert.deepEqual(names(r.streams), ['alpha-public', 'general', 'zeta-public']);
  const st = r.streams[0];
  for (const k of ['stream_id', 'name', 'description', 'rendered_description', 'date_created', 'creator_id', 'invite_only', 'is_web_public', 'is_announcement_only', 'stream_post_policy', 'history_public_to_subscribers', 'first_message_id', 'folder_id', 'message_retention_days', 'topics_policy', 'is_archived', 'stream_weekly_traffic', 'is_recently_active', 'subscriber_count', 'can_add_subscribers_group', 'can_remove_subscribers_group', 'can_administer_channel_group', 'can_send_message_group', 'can_subscribe_group', 'can_create_topic_group']) {
    assert.ok(k in st, k);
  }
  assert.equal(st.stream_weekly_traffic, null);
  const sub = await alice.ok('GET', 'streams', { include_public: false });
  assert.deepEqual(names(sub.streams), ['alpha-public', 'general', 'hidden', 'zeta-public']);
  const onlyPublic = await alice.ok('GET', 'streams', { include_subscribed: false });
  assert.ok(!names(onlyPublic.streams).includes('hidden'));
  const def = await bob.ok('GET', 'streams', { include_default: true });
  assert.equal(def.streams.find((x: any) => x.name === 'general').is_default, true);
  assert.equal(def.streams.find((x: any) => x.name === 'zeta-public').is_default, false);
});

test('include_all is for administrators, who see private channels', async () => {
  const r = await bob.get('streams', { include_all: true });
  assert.equal(r.status, 400);
  assert.equal(r.body.msg, 'User not authorized for this query');
  const all = await s.owner.ok('GET', 'streams', { include_all_active: true });
  assert.ok(names(all.streams).includes('hidden'));
});

test('guests see only subscribed channels', async () => {
  const r = await guest.ok('GET', 'streams');
  assert.deepEqual(r.streams, []);
  const one = await guest.get(`streams/${pubId}`);
  assert.equal(one.body.msg, 'Invalid channel ID');
  const id = await guest.get('get_stream_id', { stream: 'zeta-public' });
  assert.equal(id.body.msg, "Invalid channel name 'zeta-public'");
  const reg = await guest.ok('POST', 'register', { event_types: ['subscription', 'stream'] });
  assert.deepEqual(reg.streams, []);
  assert.deepEqual(reg.never_subscribed, []);
});

test('GET /streams/{id} and /get_stream_id', async () => {
  const r = await bob.ok('GET', `streams/${pubId}`);
  assert.equal(r.stream.name, 'zeta-public');
  assert.equal(r.stream.subscriber_count, 1);
  const hidden = await bob.get(`streams/${privId}`);
  assert.equal(hidden.status, 400);
  assert.equal(hidden.body.msg, 'Invalid channel ID');
  const admin = await s.owner.ok('GET', `streams/${privId}`);
  assert.equal(admin.stream.invite_only, true);
  const missing = await bob.get('streams/999999');
  assert.equal(missing.body.msg, 'Invalid channel ID');
  assert.equal((await bob.ok('GET', 'get_stream_id', { stream: 'ZETA-public' })).stream_id, pubId);
  const bad = await bob.get('get_stream_id', { stream: 'nonexistent' });
  assert.equal(bad.body.msg, "Invalid channel name 'nonexistent'");
  const priv = await bob.get('get_stream_id', { stream: 'hidden' });
  assert.equal(priv.status, 400);
  const other = await s.realm2('readorg');
  const cross = await other.owner.get(`streams/${pubId}`);
  assert.equal(cross.body.msg, 'Invalid channel ID');
});

test('topics: newest first, respecting history and empty topic names', async () => {
  const app = s.running.app;
  const stream = await app.store.db.selectFrom('streams').selectAll().where('id', '=', pubId).executeTakeFirstOrThrow();
  const insert = async (topic: string) => {
    const m = await app.store.db
      .insertInto('messages')
      .values({ realm_id: s.realm.id, type: 1, recipient_id: stream.recipient_id, stream_id: pubId, sender_id: alice.userId, topic, topic_key: topic.toLowerCase(), content: 'x', rendered_content: '<p>x</p>', date_sent: 1, sending_client: 'test', last_edit_time: null, last_moved_time: null, edit_history: null, is_me_message: 0, has_link: 0, has_image: 0, has_attachment: 0 })
      .returning('id')
      .executeTakeFirstOrThrow();
    return m.id;
  };
  const a = await insert('Apples');
  const b = await insert('');
  const c = await insert('apples');
  const r = await bob.ok('GET', `users/me/${pubId}/topics`);
  assert.deepEqual(r.topics, [
    { name: 'apples', max_id: c },
    { name: 'general chat', max_id: b },
  ]);
  assert.ok(a < c);
  const empty = await bob.ok('GET', `users/me/${pubId}/topics`, { allow_empty_topic_name: true });
  assert.equal(empty.topics[1].name, '');
  const hidden = await bob.get(`users/me/${privId}/topics`);
  assert.equal(hidden.body.msg, 'Invalid channel ID');
  // An administrator can see the private channel exists but not read its topics.
  const admin = await s.owner.get(`users/me/${privId}/topics`);
  assert.equal(admin.body.msg, 'Invalid channel ID');
});

test('GET /users/me/subscriptions with include_subscribers forms', async () => {
  const plain = await alice.ok('GET', 'users/me/subscriptions');
  assert.deepEqual(plain.subscriptions.map((x: any) => x.stream_id), [...plain.subscriptions.map((x: any) => x.stream_id)].sort((x: number, y: number) => x - y));
  assert.equal(plain.subscriptions[0].subscribers, undefined);
  const full = await alice.ok('GET', 'users/me/subscriptions', { include_subscribers: true });
  assert.ok(full.subscriptions.every((x: any) => Array.isArray(x.subscribers)));
  const partial = await alice.ok('GET', 'users/me/subscriptions', { include_subscribers: 'partial' });
  assert.ok(partial.subscriptions.every((x: any) => Array.isArray(x.subscribers)));
  const bad = await alice.get('users/me/subscriptions', { include_subscribers: 'maybe' });
  assert.equal(bad.status, 400);
});

test('register state: subscriptions, unsubscribed, never_subscribed and streams', async () => {
  const reg = await bob.ok('POST', 'register', { event_types: ['subscription', 'stream'], include_subscribers: true, client_capabilities: { notification_settings_null: true } });
  assert.deepEqual(names(reg.subscriptions), ['general']);
  assert.deepEqual(names(reg.never_subscribed).sort(), ['alpha-public', 'zeta-public']);
  assert.deepEqual(reg.never_subscribed.find((x: any) => x.name === 'zeta-public').subscribers, [alice.userId]);
  assert.deepEqual(reg.unsubscribed, []);
  assert.ok(!names(reg.streams).includes('hidden'));
  assert.equal(reg.subscriptions[0].desktop_notifications, null);
  const admin = await s.owner.ok('POST', 'register', { event_types: ['stream'] });
  assert.ok(names(admin.streams).includes('hidden'));
});

test('channel descriptions are rendered in the message Markdown flavor', async () => {
  const maker = await s.user('Desc Maker');
  await maker.ok('POST', 'users/me/subscriptions', { subscriptions: [{ name: 'described', description: 'See **this** and `code`' }] });
  const subs = (await maker.ok('GET', 'users/me/subscriptions')).subscriptions;
  const d = subs.find((x: any) => x.name === 'described');
  assert.equal(d.description, 'See **this** and `code`');
  assert.equal(d.rendered_description, '<p>See <strong>this</strong> and <code>code</code></p>');
});

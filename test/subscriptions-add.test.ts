// POST /users/me/subscriptions: creating channels, subscribing principals, permissions, parameter
// forms, and the stream create / subscription add / peer_add events with state consistency.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer, type Client } from './helpers/server.js';
import { checkConsistency, drainEvents } from './helpers/events.js';

let s: TestServer;
let alice: Client;
let bob: Client;
let guest: Client;
before(async () => {
  s = await startTestServer();
  alice = await s.user('Alice Add');
  bob = await s.user('Bob Add');
  guest = await s.user('Gus Guest', 600);
});
after(async () => {
  await s.close();
});

test('subscribing to a new channel creates it with the caller as creator', async () => {
  const r = await alice.ok('POST', 'users/me/subscriptions', { subscriptions: [{ name: 'design', description: 'All <things> design' }] });
  assert.deepEqual(r.subscribed, { [String(alice.userId)]: ['design'] });
  assert.deepEqual(r.already_subscribed, {});
  assert.equal(r.unauthorized, undefined);
  const subs = (await alice.ok('GET', 'users/me/subscriptions', { include_subscribers: true })).subscriptions;
  const d = subs.find((x: any) => x.name === 'design');
  assert.equal(d.creator_id, alice.userId);
  assert.equal(d.description, 'All <things> design');
  assert.equal(d.rendered_description, '<p>All &lt;things&gt; design</p>');
  assert.equal(d.invite_only, false);
  assert.equal(d.history_public_to_subscribers, true);
  assert.deepEqual(d.subscribers, [alice.userId]);
  assert.equal(d.subscriber_count, 1);
  assert.equal(d.in_home_view, true);
  assert.equal(d.desktop_notifications, null);
  assert.equal(d.stream_post_policy, 1);
  assert.equal(typeof d.can_send_message_group, 'number');
  const again = await alice.ok('POST', 'users/me/subscriptions', { subscriptions: [{ name: 'Design' }] });
  assert.deepEqual(again.already_subscribed, { [String(alice.userId)]: ['design'] });
  assert.deepEqual(again.subscribed, {});
});

test('principals by ID and email; subscribed keyed by user ID', async () => {
  const r = await alice.ok('POST', 'users/me/subscriptions', { subscriptions: [{ name: 'pair' }], principals: [alice.userId, bob.userId] });
  assert.deepEqual(r.subscribed, { [String(alice.userId)]: ['pair'], [String(bob.userId)]: ['pair'] });
  const byEmail = await alice.ok('POST', 'users/me/subscriptions', { subscriptions: [{ name: 'pair2' }], principals: [bob.email] });
  assert.deepEqual(byEmail.subscribed, { [String(bob.userId)]: ['pair2'] });
  const mixed = await alice.post('users/me/subscriptions', { subscriptions: [{ name: 'pair3' }], principals: [alice.userId, bob.email] });
  assert.equal(mixed.status, 400);
});

test('name and description rules', async () => {
  const empty = await alice.post('users/me/subscriptions', { subscriptions: [{ name: '  ' }] });
  assert.equal(empty.status, 400);
  assert.equal(empty.body.msg, "Channel name can't be empty.");
  const long = await alice.post('users/me/subscriptions', { subscriptions: [{ name: 'x'.repeat(61) }] });
  assert.equal(long.body.msg, 'Channel name too long (limit: 60 characters).');
  const ctrl = await alice.post('users/me/subscriptions', { subscriptions: [{ name: 'a\u0001b' }] });
  assert.equal(ctrl.body.msg, 'Invalid character in channel name, at position 2.');
  const desc = await alice.post('users/me/subscriptions', { subscriptions: [{ name: 'okname', description: 'd'.repeat(1025) }] });
  assert.equal(desc.status, 400);
  const notList = await alice.post('users/me/subscriptions', { subscriptions: 'nope' });
  assert.equal(notList.status, 400);
  const missing = await alice.post('users/me/subscriptions', {});
  assert.equal(missing.body.code, 'REQUEST_VARIABLE_MISSING');
});

test('private channels: non-subscribers are unauthorized, admins may join', async () => {
  await alice.ok('POST', 'users/me/subscriptions', { subscriptions: [{ name: 'secret' }], invite_only: true });
  const r = await bob.post('users/me/subscriptions', { subscriptions: [{ name: 'secret' }] });
  assert.equal(r.status, 400);
  assert.equal(r.body.msg, 'Unable to access channel (secret).');
  const soft = await bob.ok('POST', 'users/me/subscriptions', { subscriptions: [{ name: 'secret' }, { name: 'open-one' }], authorization_errors_fatal: false });
  assert.deepEqual(soft.unauthorized, ['secret']);
  assert.deepEqual(soft.subscribed, { [String(bob.userId)]: ['open-one'] });
  const admin = await s.owner.ok('POST', 'users/me/subscriptions', { subscriptions: [{ name: 'secret' }] });
  assert.deepEqual(admin.subscribed, { [String(s.owner.userId)]: ['secret'] });
  const sub = (await alice.ok('GET', 'users/me/subscriptions')).subscriptions.find((x: any) => x.name === 'secret');
  assert.equal(sub.invite_only, true);
  assert.equal(sub.history_public_to_subscribers, false);
  assert.equal(sub.subscribers, undefined);
});

test('guests cannot create channels, join public ones, or subscribe others', async () => {
  const create = await guest.post('users/me/subscriptions', { subscriptions: [{ name: 'guest-made' }] });
  assert.equal(create.status, 400);
  assert.equal(create.body.msg, 'Insufficient permission');
  const join = await guest.post('users/me/subscriptions', { subscriptions: [{ name: 'design' }] });
  assert.equal(join.body.msg, 'Unable to access channel (design).');
  // A member may add a guest to a public channel.
  const r = await alice.ok('POST', 'users/me/subscriptions', { subscriptions: [{ name: 'design' }], principals: [guest.userId] });
  assert.deepEqual(r.subscribed, { [String(guest.userId)]: ['design'] });
});

test('bad principals are 400 BAD_REQUEST', async () => {
  const nobody = await alice.post('users/me/subscriptions', { subscriptions: [{ name: 'design' }], principals: [999999] });
  assert.equal(nobody.status, 400);
  assert.equal(nobody.body.code, 'BAD_REQUEST');
  const gone = await s.user('Gone Away');
  await s.running.app.store.db.updateTable('users').set({ is_active: 0 }).where('id', '=', gone.userId).execute();
  const deact = await alice.post('users/me/subscriptions', { subscriptions: [{ name: 'design' }], principals: [gone.userId] });
  assert.equal(deact.status, 400);
});

test('subscribing others needs the add-subscribers permission', async () => {
  // Restrict the organization permission to administrators.
  const app = s.running.app;
  const realm = await app.store.db.selectFrom('realms').selectAll().where('id', '=', s.realm.id).executeTakeFirstOrThrow();
  const settings = JSON.parse(realm.settings);
  const admins = await app.store.db.selectFrom('user_groups').select('id').where('realm_id', '=', s.realm.id).where('name', '=', 'role:administrators').executeTakeFirstOrThrow();
  const saved = settings.can_add_subscribers_group;
  settings.can_add_subscribers_group = admins.id;
  await app.store.db.updateTable('realms').set({ settings: JSON.stringify(settings) }).where('id', '=', s.realm.id).execute();
  app.caches.invalidateRealms();
  try {
    const r = await bob.post('users/me/subscriptions', { subscriptions: [{ name: 'design' }], principals: [bob.userId, alice.userId] });
    assert.equal(r.status, 400);
    assert.equal(r.body.msg, 'Insufficient permission');
    // Channels the caller creates are theirs to populate.
    const own = await bob.ok('POST', 'users/me/subscriptions', { subscriptions: [{ name: 'bobs-room' }], principals: [alice.userId] });
    assert.deepEqual(own.subscribed, { [String(alice.userId)]: ['bobs-room'] });
    // The channel's own can_add_subscribers_group grants it too.
    await s.owner.ok('POST', 'users/me/subscriptions', { subscriptions: [{ name: 'open-door' }], can_add_subscribers_group: { direct_members: [bob.userId], direct_subgroups: [] } });
    const ok = await bob.ok('POST', 'users/me/subscriptions', { subscriptions: [{ name: 'open-door' }], principals: [alice.userId] });
    assert.deepEqual(ok.subscribed, { [String(alice.userId)]: ['open-door'] });
  } finally {
    settings.can_add_subscribers_group = saved;
    await app.store.db.updateTable('realms').set({ settings: JSON.stringify(settings) }).where('id', '=', s.realm.id).execute();
    app.caches.invalidateRealms();
  }
});

test('group-setting parameters: IDs, anonymous groups, and errors', async () => {
  const mods = await s.running.app.store.db.selectFrom('user_groups').select('id').where('realm_id', '=', s.realm.id).where('name', '=', 'role:moderators').executeTakeFirstOrThrow();
  await alice.ok('POST', 'users/me/subscriptions', {
    subscriptions: [{ name: 'governed' }],
    can_send_message_group: mods.id,
    can_remove_subscribers_group: { direct_members: [alice.userId], direct_subgroups: [mods.id] },
  });
  const st = (await alice.ok('GET', 'streams')).streams.find((x: any) => x.name === 'governed');
  assert.equal(st.can_send_message_group, mods.id);
  assert.equal(st.stream_post_policy, 4);
  assert.deepEqual(st.can_remove_subscribers_group, { direct_members: [alice.userId], direct_subgroups: [mods.id] });
  const bad = await alice.post('users/me/subscriptions', { subscriptions: [{ name: 'bad-group' }], can_send_message_group: 987654 });
  assert.equal(bad.status, 400);
  assert.equal(bad.body.msg, 'Invalid user group');
  const badShape = await alice.post('users/me/subscriptions', { subscriptions: [{ name: 'bad-group' }], can_send_message_group: '"x"' });
  assert.equal(badShape.status, 400);
});

test('retention and topics policy parameters', async () => {
  const notOwner = await alice.post('users/me/subscriptions', { subscriptions: [{ name: 'kept' }], message_retention_days: 30 });
  assert.equal(notOwner.body.msg, 'Must be an organization owner');
  await s.owner.ok('POST', 'users/me/subscriptions', { subscriptions: [{ name: 'kept' }], message_retention_days: '"unlimited"', topics_policy: 'disable_empty_topic' });
  const st = (await s.owner.ok('GET', 'streams')).streams.find((x: any) => x.name === 'kept');
  assert.equal(st.message_retention_days, -1);
  assert.equal(st.topics_policy, 'disable_empty_topic');
  const bad = await s.owner.post('users/me/subscriptions', { subscriptions: [{ name: 'kept2' }], topics_policy: 'sometimes' });
  assert.equal(bad.status, 400);
  const web = await s.owner.post('users/me/subscriptions', { subscriptions: [{ name: 'webby' }], is_web_public: true });
  assert.equal(web.body.msg, 'Web-public channels are not enabled.');
  const announce = await alice.ok('POST', 'users/me/subscriptions', { subscriptions: [{ name: 'announced' }], announce: true });
  assert.equal(announce.ignored_parameters_unsupported, undefined);
});

test('query-string and multipart forms work', async () => {
  const q = await alice.ok('POST', 'users/me/subscriptions', { subscriptions: [{ name: 'by-query' }] }, { as: 'query' });
  assert.deepEqual(q.subscribed, { [String(alice.userId)]: ['by-query'] });
  const m = await alice.ok('POST', 'users/me/subscriptions', { subscriptions: [{ name: 'by-multipart' }] }, { as: 'multipart' });
  assert.deepEqual(m.subscribed, { [String(alice.userId)]: ['by-multipart'] });
});

test('another organization’s channels are separate', async () => {
  const other = await s.realm2('addorg');
  const r = await other.owner.ok('POST', 'users/me/subscriptions', { subscriptions: [{ name: 'design' }] });
  assert.deepEqual(r.subscribed, { [String(other.owner.userId)]: ['design'] });
  const cross = await other.owner.post('users/me/subscriptions', { subscriptions: [{ name: 'design' }], principals: [alice.userId] });
  assert.equal(cross.status, 400);
});

test('events: creator, observer and admin queues stay consistent', async () => {
  const carol = await s.user('Carol Observer');
  // Observer of a new public channel: stream create then peer_add.
  const evs = await checkConsistency(carol, () => alice.ok('POST', 'users/me/subscriptions', { subscriptions: [{ name: 'ev-public' }], principals: [alice.userId, bob.userId] }), { expect: ['stream', 'subscription'] });
  const create = evs.find((e) => e.type === 'stream' && e.op === 'create');
  assert.equal(create.streams[0].name, 'ev-public');
  const peer = evs.find((e) => e.op === 'peer_add');
  assert.deepEqual(peer.user_ids, [alice.userId, bob.userId].sort((a, b) => a - b));
  // The subscriber's own queue: stream create, subscription add (with subscribers), peer_add.
  const mine = await checkConsistency(bob, () => alice.ok('POST', 'users/me/subscriptions', { subscriptions: [{ name: 'ev-two' }], principals: [alice.userId, bob.userId] }));
  const add = mine.find((e) => e.type === 'subscription' && e.op === 'add');
  assert.equal(add.subscriptions[0].name, 'ev-two');
  assert.deepEqual(add.subscriptions[0].subscribers, [alice.userId, bob.userId].sort((a, b) => a - b));
  // An administrator sees a new private channel (create + peer_add) without joining it.
  await checkConsistency(s.owner, () => alice.ok('POST', 'users/me/subscriptions', { subscriptions: [{ name: 'ev-private' }], invite_only: true }), { expect: ['stream'] });
  // A non-admin gets nothing about a private channel they are not in.
  const quiet = await checkConsistency(carol, () => alice.ok('POST', 'users/me/subscriptions', { subscriptions: [{ name: 'ev-private-2' }], invite_only: true }));
  assert.equal(quiet.length, 0, JSON.stringify(quiet));
  // Being added to an existing private channel: it appears (create) and is subscribed.
  await checkConsistency(carol, () => alice.ok('POST', 'users/me/subscriptions', { subscriptions: [{ name: 'ev-private-2' }], principals: [carol.userId] }), { expect: ['stream', 'subscription'] });
  // A guest added to a public channel learns it exists.
  await checkConsistency(guest, () => alice.ok('POST', 'users/me/subscriptions', { subscriptions: [{ name: 'ev-public' }], principals: [guest.userId] }), { expect: ['stream', 'subscription'] });
  // Without include_subscribers and with legacy notification settings.
  await checkConsistency(carol, () => alice.ok('POST', 'users/me/subscriptions', { subscriptions: [{ name: 'ev-public' }], principals: [carol.userId] }), { register: { include_subscribers: true, client_capabilities: {} } });
});

test('a second user’s queue receives the add event with defaults for legacy clients', async () => {
  const dan = await s.user('Dan Legacy');
  const reg = await dan.ok('POST', 'register', { event_types: ['subscription'] });
  await alice.ok('POST', 'users/me/subscriptions', { subscriptions: [{ name: 'legacy-room' }], principals: [dan.userId] });
  const events = await drainEvents(dan, reg.queue_id);
  const add = events.find((e) => e.type === 'subscription' && e.op === 'add');
  assert.ok(add);
  assert.equal(add.subscriptions[0].desktop_notifications, false);
  assert.equal(add.subscriptions[0].wildcard_mentions_notify, true);
  assert.equal(add.__notification_defaults, undefined);
  const state = reg.subscriptions.find((x: any) => x.name === 'general');
  assert.equal(state.desktop_notifications, false);
});

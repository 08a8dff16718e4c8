// Client capabilities: user_list_incomplete (restricted users' user lists and their events),
// user_avatar_url_field_optional, notification_settings_null, archived_channels, empty_topic_name.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type Client, type TestServer } from './helpers/server.js';
import { newChannel, subscribe } from './helpers/messages.js';
import { checkConsistency, drainEvents, MODERN_CAPABILITIES } from './helpers/events.js';

let s: TestServer;
let ann: Client; // member
let gil: Client; // guest whose access is limited
let hal: Client; // member the guest shares a channel with

const INCOMPLETE = { client_capabilities: { ...MODERN_CAPABILITIES, user_list_incomplete: true } };
const COMPLETE = { client_capabilities: MODERN_CAPABILITIES };
const unknown = (id: number) => ({
  user_id: id,
  email: `user${id}@unknown.invalid`,
  delivery_email: null,
  full_name: 'Unknown user',
  date_joined: '1970-01-01T00:00:00+00:00',
  is_active: true,
  is_owner: false,
  is_admin: false,
  is_guest: false,
  is_bot: false,
  bot_type: null,
  bot_owner_id: null,
  role: 400,
  timezone: '',
  avatar_url: '/static/images/unknown-user-avatar.png',
  avatar_version: 1,
  is_imported_stub: false,
  profile_data: {},
});

async function limitAccessToMembers(): Promise<void> {
  const app = s.running.app;
  const realm = await app.store.db.selectFrom('realms').selectAll().where('id', '=', s.realm.id).executeTakeFirstOrThrow();
  const members = await app.store.db.selectFrom('user_groups').select('id').where('realm_id', '=', s.realm.id).where('name', '=', 'role:members').executeTakeFirstOrThrow();
  const settings = { ...JSON.parse(realm.settings), can_access_all_users_group: members.id };
  await app.store.db.updateTable('realms').set({ settings: JSON.stringify(settings) }).where('id', '=', s.realm.id).execute();
  app.caches.invalidateRealms();
  // Users created by the test helper use this object, not a fresh read.
  s.realm.settings = JSON.stringify(settings);
}

const users = async (c: Client, reg: Record<string, unknown>) => (await c.ok('POST', 'register', { fetch_event_types: ['realm_user'], ...reg })).realm_users as any[];

before(async () => {
  s = await startTestServer();
  ann = await s.user('Ann Member');
  gil = await s.user('Gil Guest', 600);
  hal = await s.user('Hal Shared');
  await newChannel(s, 'cap-shared', { subscribers: [gil, hal] });
  await limitAccessToMembers();
});
after(async () => {
  await s.close();
});

test('user_list_incomplete: a restricted guest gets only accessible users, else "Unknown user" placeholders', async () => {
  const incomplete = await users(gil, INCOMPLETE);
  // Bots are always accessible: the organization's system bots appear beside the shared-channel peers.
  assert.deepEqual(incomplete.filter((u) => !u.is_bot).map((u) => u.user_id).sort((a, b) => a - b), [gil.userId, hal.userId].sort((a, b) => a - b));
  assert.ok(incomplete.filter((u) => u.is_bot).every((u) => u.bot_owner_id === null), 'only system bots besides them');
  const complete = await users(gil, COMPLETE);
  assert.deepEqual(complete.find((u) => u.user_id === ann.userId), unknown(ann.userId));
  assert.deepEqual(complete.find((u) => u.user_id === s.owner.userId), unknown(s.owner.userId));
  assert.equal(complete.find((u) => u.user_id === hal.userId).full_name, 'Hal Shared');
  assert.deepEqual(complete.map((u) => u.user_id), [...complete.map((u) => u.user_id)].sort((a, b) => a - b));
  // Members belong to can_access_all_users_group: the capability changes nothing for them.
  const member = await users(ann, INCOMPLETE);
  assert.ok(member.some((u) => u.user_id === gil.userId) && member.some((u) => u.user_id === s.owner.userId));
  assert.ok(member.every((u) => u.full_name !== 'Unknown user'));
});

test('user_list_incomplete: a new inaccessible user is no add for the guest with it, a placeholder add without it', async () => {
  const withCap = await gil.ok('POST', 'register', { event_types: ['realm_user'], ...INCOMPLETE });
  const without = await gil.ok('POST', 'register', { event_types: ['realm_user'], ...COMPLETE });
  const memberQ = await ann.ok('POST', 'register', { event_types: ['realm_user'] });
  const ned = await s.user('Ned Newcomer');
  assert.deepEqual((await drainEvents(gil, withCap.queue_id)).filter((e) => e.type === 'realm_user'), []);
  const placeholder = (await drainEvents(gil, without.queue_id)).filter((e) => e.type === 'realm_user');
  assert.deepEqual(placeholder.map((e) => [e.op, e.person]), [['add', unknown(ned.userId)]]);
  const real = (await drainEvents(ann, memberQ.queue_id)).filter((e) => e.type === 'realm_user');
  assert.deepEqual(real.map((e) => [e.op, e.person.full_name]), [['add', 'Ned Newcomer']]);
  // Register + events = a fresh register, in both forms; a new member is no event at all for the capable guest.
  await checkConsistency(gil, () => s.user('Ola Later'), { register: COMPLETE, expect: ['realm_user'] });
  const events = await checkConsistency(gil, () => s.user('Pia Later'), { register: INCOMPLETE });
  assert.equal(events.filter((e) => e.type === 'realm_user').length, 0);
});

test('user_list_incomplete: sharing a channel grants access (realm_user add), leaving it takes it away (remove)', async () => {
  const room = await newChannel(s, 'cap-join', { subscribers: [ann] });
  for (const register of [INCOMPLETE, COMPLETE]) {
    const joined = await checkConsistency(gil, () => s.owner.ok('POST', 'users/me/subscriptions', { subscriptions: [{ name: room.name }], principals: [gil.userId] }), { register, expect: ['realm_user', 'subscription'] });
    const add = joined.find((e) => e.type === 'realm_user');
    assert.deepEqual([add.op, add.person.user_id, add.person.full_name], ['add', ann.userId, 'Ann Member']);
    assert.ok(joined.indexOf(add) < joined.findIndex((e) => e.type === 'subscription'));
    const left = await checkConsistency(gil, () => gil.ok('DELETE', 'users/me/subscriptions', { subscriptions: [room.name] }), { register, expect: ['realm_user'] });
    assert.deepEqual(left.filter((e) => e.type === 'realm_user').map((e) => [e.op, e.person]), [['remove', { user_id: ann.userId, full_name: 'Unknown user' }]]);
  }
  // Someone joining the guest's channel becomes accessible to the guest.
  const joinedByOther = await checkConsistency(gil, () => s.owner.ok('POST', 'users/me/subscriptions', { subscriptions: [{ name: 'cap-shared' }], principals: [ann.userId] }), {
    register: INCOMPLETE,
    expect: ['realm_user'],
  });
  assert.ok(joinedByOther.some((e) => e.type === 'realm_user' && e.op === 'add' && e.person.user_id === ann.userId));
  await checkConsistency(gil, () => ann.ok('DELETE', 'users/me/subscriptions', { subscriptions: ['cap-shared'] }), { register: COMPLETE, expect: ['realm_user'] });
});

test('user_list_incomplete: updates about inaccessible users do not reach the restricted guest', async () => {
  const q = await gil.ok('POST', 'register', { event_types: ['realm_user'], ...COMPLETE });
  await ann.ok('PATCH', 'settings', { full_name: 'Ann Renamed' });
  await hal.ok('PATCH', 'settings', { full_name: 'Hal Renamed' });
  const events = (await drainEvents(gil, q.queue_id)).filter((e) => e.type === 'realm_user');
  assert.deepEqual(events.map((e) => [e.person.user_id, e.person.full_name]), [[hal.userId, 'Hal Renamed']]);
  await checkConsistency(gil, () => ann.ok('PATCH', 'settings', { full_name: 'Ann Again', timezone: 'Europe/Paris' }), { register: COMPLETE });
  await checkConsistency(gil, () => hal.ok('PATCH', 'settings', { timezone: 'Asia/Tokyo' }), { register: INCOMPLETE, expect: ['realm_user'] });
});

test('user_avatar_url_field_optional: with client_gravatar, third-party avatars are left out instead of null', async () => {
  const withCap = await users(ann, { client_gravatar: true, client_capabilities: { user_avatar_url_field_optional: true } });
  const without = await users(ann, { client_gravatar: true, client_capabilities: {} });
  const mine = (list: any[]) => list.find((u) => u.user_id === hal.userId);
  assert.equal('avatar_url' in mine(withCap), false);
  assert.equal(mine(without).avatar_url, null);
  // Without client_gravatar the server computes every URL, so none is left out.
  const full = await users(ann, { client_gravatar: false, client_capabilities: { user_avatar_url_field_optional: true } });
  assert.equal(typeof mine(full).avatar_url, 'string');
});

test('notification_settings_null: nulls mean "inherit"; older clients get the user defaults, in register and events', async () => {
  const room = await newChannel(s, 'cap-notify', { subscribers: [] });
  const fetchSub = async (caps: Record<string, boolean>) =>
    ((await ann.ok('POST', 'register', { fetch_event_types: ['subscription'], client_capabilities: caps })).subscriptions as any[]).find((x) => x.stream_id === room.id);
  const withNull = await ann.ok('POST', 'register', { event_types: ['subscription'], client_capabilities: { notification_settings_null: true } });
  const legacy = await ann.ok('POST', 'register', { event_types: ['subscription'], client_capabilities: {} });
  await ann.ok('POST', 'users/me/subscriptions', { subscriptions: [{ name: 'cap-notify' }] });
  const nullSub = await fetchSub({ notification_settings_null: true });
  const legacySub = await fetchSub({});
  for (const f of ['desktop_notifications', 'email_notifications', 'push_notifications', 'audible_notifications', 'wildcard_mentions_notify']) {
    assert.equal(nullSub[f], null, f);
    assert.equal(typeof legacySub[f], 'boolean', f);
  }
  const addNull = (await drainEvents(ann, withNull.queue_id)).find((e) => e.type === 'subscription' && e.op === 'add');
  const addLegacy = (await drainEvents(ann, legacy.queue_id)).find((e) => e.type === 'subscription' && e.op === 'add');
  assert.equal(addNull.subscriptions[0].desktop_notifications, null);
  assert.equal(addLegacy.subscriptions[0].desktop_notifications, legacySub.desktop_notifications);
  await checkConsistency(ann, () => ann.ok('DELETE', 'users/me/subscriptions', { subscriptions: ['cap-notify'] }), { register: { client_capabilities: { ...MODERN_CAPABILITIES, notification_settings_null: false } } });
  await checkConsistency(ann, () => ann.ok('POST', 'users/me/subscriptions', { subscriptions: [{ name: 'cap-notify' }] }), {
    register: { client_capabilities: { ...MODERN_CAPABILITIES, notification_settings_null: false } },
    expect: ['subscription'],
  });
});

test('archived_channels: archived channels are in the register only for clients that declared it', async () => {
  const room = await newChannel(s, 'cap-archived', { subscribers: [] });
  await subscribe(s, ann, room.id);
  await s.running.app.store.db.updateTable('streams').set({ is_archived: 1 }).where('id', '=', room.id).execute();
  const reg = async (caps: Record<string, boolean>) => ann.ok('POST', 'register', { fetch_event_types: ['subscription', 'stream'], client_capabilities: caps });
  const withCap = await reg({ archived_channels: true });
  const without = await reg({});
  const has = (list: any[]) => list.some((x) => x.stream_id === room.id);
  assert.ok(has(withCap.subscriptions) && has(withCap.streams));
  assert.equal(withCap.subscriptions.find((x: any) => x.stream_id === room.id).is_archived, true);
  assert.ok(!has(without.subscriptions) && !has(without.streams) && !has(without.never_subscribed) && !has(without.unsubscribed));
  // Never subscribed: the same rule.
  const halWith = await hal.ok('POST', 'register', { fetch_event_types: ['subscription'], client_capabilities: { archived_channels: true } });
  const halWithout = await hal.ok('POST', 'register', { fetch_event_types: ['subscription'], client_capabilities: {} });
  assert.ok(has(halWith.never_subscribed));
  assert.ok(!has(halWithout.never_subscribed));
});

test('empty_topic_name: the empty topic is "" for capable clients, the display name for others', async () => {
  await newChannel(s, 'cap-empty', { subscribers: [ann, hal] });
  const modern = await ann.ok('POST', 'register', { event_types: ['message'], client_capabilities: { empty_topic_name: true } });
  const legacy = await ann.ok('POST', 'register', { event_types: ['message'], client_capabilities: {} });
  await hal.ok('POST', 'messages', { type: 'stream', to: 'cap-empty', topic: '', content: 'no topic here' });
  const shown = (await ann.ok('POST', 'register', { fetch_event_types: ['realm'] })).realm_empty_topic_display_name;
  const m1 = (await drainEvents(ann, modern.queue_id)).find((e) => e.type === 'message');
  const m2 = (await drainEvents(ann, legacy.queue_id)).find((e) => e.type === 'message');
  assert.equal(m1.message.subject, '');
  assert.equal(m2.message.subject, shown);
  const unreadTopics = async (caps: Record<string, boolean>) =>
    ((await ann.ok('POST', 'register', { fetch_event_types: ['message', 'update_message_flags'], client_capabilities: caps })).unread_msgs.streams as any[]).map((x) => x.topic);
  assert.ok((await unreadTopics({ empty_topic_name: true })).includes(''));
  const old = await unreadTopics({});
  assert.ok(old.includes(shown) && !old.includes(''));
});

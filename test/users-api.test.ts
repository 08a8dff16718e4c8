// People and bots: GET /users, /users/{id}, /users/{email}, /users/me, POST /users and POST /bots.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, request, type TestServer, type Client } from './helpers/server.js';
import { drainEvents } from './helpers/events.js';
import { grantCanCreateUsers } from './helpers/people.js';

let s: TestServer;
let alice: Client;
before(async () => {
  s = await startTestServer();
  alice = await s.user('Alice Users');
});
after(async () => {
  await s.close();
});

test('GET /users lists members with avatar and profile options', async () => {
  const r = await alice.ok('GET', 'users');
  const ids = r.members.map((m: any) => m.user_id);
  assert.ok(ids.includes(s.owner.userId) && ids.includes(alice.userId));
  const me = r.members.find((m: any) => m.user_id === alice.userId);
  assert.equal(me.avatar_url, null, 'client_gravatar defaults to true');
  assert.equal(me.profile_data, undefined);
  const more = await alice.ok('GET', 'users', { client_gravatar: false, include_custom_profile_fields: true });
  const me2 = more.members.find((m: any) => m.user_id === alice.userId);
  assert.match(me2.avatar_url, /gravatar/);
  assert.deepEqual(me2.profile_data, {});
  const some = await alice.ok('GET', 'users', { user_ids: [alice.userId] });
  assert.deepEqual(some.members.map((m: any) => m.user_id), [alice.userId]);
  const bad = await alice.get('users', { user_ids: [999999] });
  assert.equal(bad.body.msg, 'Invalid user ID: 999999');
});

test('GET /users/{id} and /users/{email}', async () => {
  const r = await alice.ok('GET', `users/${s.owner.userId}`);
  assert.equal(r.user.email, 'owner@example.com');
  assert.equal(r.user.role, 100);
  const e = await alice.ok('GET', 'users/owner@example.com');
  assert.equal(e.user.user_id, s.owner.userId);
  const missing = await alice.get('users/424242');
  assert.equal(missing.status, 400);
  assert.equal(missing.body.msg, 'No such user');
  const missingEmail = await alice.get('users/nobody@example.com');
  assert.equal(missingEmail.body.msg, 'No such user');
  const other = await s.realm2('usersorg');
  const cross = await other.owner.get(`users/${alice.userId}`);
  assert.equal(cross.body.msg, 'No such user');
});

test('guests who cannot access all users see only those they share channels with', async () => {
  const app = s.running.app;
  const realm = await app.store.db.selectFrom('realms').selectAll().where('id', '=', s.realm.id).executeTakeFirstOrThrow();
  const settings = JSON.parse(realm.settings);
  const members = await app.store.db.selectFrom('user_groups').select('id').where('realm_id', '=', s.realm.id).where('name', '=', 'role:members').executeTakeFirstOrThrow();
  const saved = settings.can_access_all_users_group;
  settings.can_access_all_users_group = members.id;
  await app.store.db.updateTable('realms').set({ settings: JSON.stringify(settings) }).where('id', '=', s.realm.id).execute();
  app.caches.invalidateRealms();
  try {
    const guest = await s.user('Gwen Guest', 600);
    await alice.ok('POST', 'users/me/subscriptions', { subscriptions: [{ name: 'with-guest' }], principals: [alice.userId, guest.userId] });
    const r = await guest.ok('GET', 'users');
    // Bots are always accessible, so the organization's system bots are listed too.
    assert.deepEqual(r.members.filter((m: any) => !m.is_bot).map((m: any) => m.user_id).sort(), [alice.userId, guest.userId].sort());
    const hidden = await guest.get(`users/${s.owner.userId}`);
    assert.equal(hidden.body.msg, 'No such user');
  } finally {
    settings.can_access_all_users_group = saved;
    await app.store.db.updateTable('realms').set({ settings: JSON.stringify(settings) }).where('id', '=', s.realm.id).execute();
    app.caches.invalidateRealms();
  }
});

test('GET /users/me keeps its fields', async () => {
  const r = await alice.ok('GET', 'users/me');
  assert.equal(r.user_id, alice.userId);
  assert.equal(r.max_message_id, -1);
  assert.equal(r.delivery_email, alice.email);
});

test('POST /users: administrators with can_create_users only, duplicate email refused, realm_user add sent', async () => {
  const denied = await alice.post('users', { email: 'new1@example.com', password: 'pw-123456', full_name: 'New One' });
  assert.equal(denied.status, 400);
  assert.equal(denied.body.msg, 'Must be an organization administrator');
  const reg = await alice.ok('POST', 'register', { event_types: ['realm_user'] });
  await grantCanCreateUsers(s, s.owner.userId);
  const r = await s.owner.ok('POST', 'users', { email: 'new1@example.com', password: 'pw-123456', full_name: 'New One' });
  assert.equal(typeof r.user_id, 'number');
  const events = await drainEvents(alice, reg.queue_id);
  assert.ok(events.some((e) => e.type === 'realm_user' && e.op === 'add' && e.person.user_id === r.user_id));
  const dup = await s.owner.post('users', { email: 'NEW1@example.com', password: 'pw', full_name: 'Again' });
  assert.equal(dup.status, 400);
  assert.equal(dup.body.msg, "Email 'NEW1@example.com' already in use");
  const missing = await s.owner.post('users', { email: 'x@example.com', full_name: 'X' }, { as: 'multipart' });
  assert.equal(missing.body.code, 'REQUEST_VARIABLE_MISSING');
  const login = await request(s.url, 'POST', 'fetch_api_key', { username: 'new1@example.com', password: 'pw-123456' });
  assert.equal(login.status, 200);
});

test('POST /bots creates a bot owned by the caller, with realm_bot and realm_user events', async () => {
  const reg = await alice.ok('POST', 'register', { event_types: ['realm_bot', 'realm_user'] });
  const adminReg = await s.owner.ok('POST', 'register', { event_types: ['realm_bot'] });
  const r = await alice.ok('POST', 'bots', { full_name: 'Weather Bot', short_name: 'weather', bot_type: 1 });
  assert.equal(typeof r.api_key, 'string');
  const bot = (await alice.ok('GET', `users/${r.user_id}`)).user;
  assert.equal(bot.is_bot, true);
  assert.equal(bot.bot_owner_id, alice.userId);
  assert.equal(bot.bot_type, 1);
  assert.equal(bot.email, 'weather-bot@localhost');
  const mine = await drainEvents(alice, reg.queue_id);
  assert.ok(mine.some((e) => e.type === 'realm_bot' && e.op === 'add' && e.bot.user_id === r.user_id));
  assert.ok(mine.some((e) => e.type === 'realm_user' && e.op === 'add' && e.person.user_id === r.user_id));
  const theirs = await drainEvents(s.owner, adminReg.queue_id);
  assert.ok(theirs.some((e) => e.type === 'realm_bot'));
  const dup = await alice.post('bots', { full_name: 'Other Weather', short_name: 'weather' });
  assert.equal(dup.body.msg, 'Username already in use');
  const badType = await alice.post('bots', { full_name: 'Odd Bot', short_name: 'odd', bot_type: 9 });
  assert.equal(badType.body.msg, 'Invalid bot type');
  const guest = await s.user('Gabe Guest', 600);
  const denied = await guest.post('bots', { full_name: 'Guest Bot', short_name: 'gb' });
  assert.equal(denied.body.msg, 'Insufficient permission');
  const hook = await alice.ok('POST', 'bots', { full_name: 'Hook Bot', short_name: 'hook', bot_type: 2 }, { as: 'query' });
  assert.equal((await alice.ok('GET', `users/${hook.user_id}`)).user.bot_type, 2);
});

test('every organization starts with its system bots', async () => {
  const other = await s.realm2('with-bots');
  const r = await other.owner.ok('GET', 'users');
  const bots = r.members.filter((m: any) => m.is_bot).map((m: any) => [m.full_name, m.bot_owner_id]);
  assert.deepEqual(bots.sort(), [['Email Gateway', null], ['Notification Bot', null], ['Welcome Bot', null]]);
});

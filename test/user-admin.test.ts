// PATCH /users/{user_id} and /users/{email}: names, roles with the owner rules, API emails, custom profile fields.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type Client, type TestServer } from './helpers/server.js';
import { MODERN_CAPABILITIES, checkConsistency, drainEvents } from './helpers/events.js';
import { grantCanCreateUsers, limitAccessToMembers } from './helpers/people.js';

let s: TestServer;
let admin: Client;
let member: Client;
let guest: Client;
before(async () => {
  s = await startTestServer();
  admin = await s.user('Ada Admin', 200);
  member = await s.user('Mel Member');
  guest = await s.user('Gus Guest', 600);
});
after(async () => {
  await s.close();
});

const getUser = async (id: number) => (await s.owner.ok('GET', `users/${id}`, { include_custom_profile_fields: true })).user;

test('an administrator renames a user, by ID and by email, in every parameter form', async () => {
  const u = await s.user('Ren Amed');
  await admin.ok('PATCH', `users/${u.userId}`, { full_name: 'Ren One' });
  assert.equal((await getUser(u.userId)).full_name, 'Ren One');
  await admin.ok('PATCH', `users/${u.email}`, { full_name: 'Ren Two' }, { as: 'multipart' });
  assert.equal((await getUser(u.userId)).full_name, 'Ren Two');
  await admin.ok('PATCH', `users/${u.userId}`, { full_name: 'Ren Three' }, { as: 'query' });
  assert.equal((await getUser(u.userId)).full_name, 'Ren Three');
  const r = await admin.patch(`users/${u.userId}`, { full_name: '   ' });
  assert.deepEqual([r.status, r.body.msg], [400, 'Name too short!']);
  const unknown = await admin.patch('users/999999', { full_name: 'X' });
  assert.deepEqual([unknown.status, unknown.body.code, unknown.body.msg], [400, 'BAD_REQUEST', 'No such user']);
  const byMail = await admin.patch('users/nobody@example.com', { full_name: 'X' });
  assert.equal(byMail.body.msg, 'No such user');
});

test('only administrators may update users; other organizations are out of reach', async () => {
  for (const c of [member, guest]) {
    const r = await c.patch(`users/${admin.userId}`, { full_name: 'Hacked' });
    assert.deepEqual([r.status, r.body.code, r.body.msg], [400, 'BAD_REQUEST', 'Must be an organization administrator']);
  }
  const other = await s.realm2('patchorg');
  const r = await other.owner.patch(`users/${member.userId}`, { full_name: 'Cross' });
  assert.equal(r.body.msg, 'No such user');
  assert.equal((await getUser(member.userId)).full_name, 'Mel Member');
});

test('role changes: owner rules, the only owner, guests and administrators, events to everyone', async () => {
  const u = await s.user('Rolf Role');
  const watcher = await s.user('Wat Cher');
  const q = await watcher.ok('POST', 'register', { event_types: ['realm_user', 'user_group'] });
  await admin.ok('PATCH', `users/${u.userId}`, { role: 300 });
  assert.equal((await getUser(u.userId)).role, 300);
  const events = await drainEvents(watcher, q.queue_id);
  assert.ok(events.some((e) => e.type === 'realm_user' && e.person.user_id === u.userId && e.person.role === 300));
  assert.ok(events.some((e) => e.type === 'user_group' && e.op === 'add_members' && e.user_ids[0] === u.userId));
  assert.ok(events.some((e) => e.type === 'user_group' && e.op === 'remove_members' && e.user_ids[0] === u.userId));

  // Administrators cannot grant or remove the owner role.
  let r = await admin.patch(`users/${u.userId}`, { role: 100 });
  assert.deepEqual([r.status, r.body.msg], [400, 'Must be an organization owner']);
  await s.owner.ok('PATCH', `users/${u.userId}`, { role: 100 });
  r = await admin.patch(`users/${u.userId}`, { role: 400 });
  assert.equal(r.body.msg, 'Must be an organization owner');
  await s.owner.ok('PATCH', `users/${u.userId}`, { role: 400 });
  // The only owner keeps the role.
  r = await s.owner.patch(`users/${s.owner.userId}`, { role: 200 });
  assert.deepEqual([r.status, r.body.code, r.body.msg], [400, 'BAD_REQUEST', 'The owner permission cannot be removed from the only organization owner.']);
  r = await admin.patch(`users/${u.userId}`, { role: 500 });
  assert.deepEqual([r.status, r.body.msg], [400, 'Invalid role']);
  r = await admin.patch(`users/${u.userId}`, { role: 'admin' });
  assert.equal(r.status, 400);

  // A guest may be promoted by role code; the legacy pair may not make a guest an administrator.
  const g = await s.user('Gina Guest', 600);
  r = await admin.patch(`users/${g.userId}`, { is_guest: true, is_admin: true });
  assert.deepEqual([r.status, r.body.code, r.body.msg], [400, 'BAD_REQUEST', 'Guests cannot be organization administrators']);
  r = await admin.patch(`users/${g.userId}`, { is_guest: true, role: 200 });
  assert.equal(r.body.msg, 'Guests cannot be organization administrators');
  assert.equal((await getUser(g.userId)).role, 600);
  await admin.ok('PATCH', `users/${g.userId}`, { is_guest: false });
  assert.equal((await getUser(g.userId)).role, 400);
  await admin.ok('PATCH', `users/${g.userId}`, { is_admin: true });
  assert.equal((await getUser(g.userId)).role, 200);
  await admin.ok('PATCH', `users/${g.userId}`, { role: 600 });
  await admin.ok('PATCH', `users/${g.userId}`, { role: 200 });
  assert.equal((await getUser(g.userId)).is_admin, true);
});

test('new_email: owners with the special permission only', async () => {
  const u = await s.user('Ema Ilchange');
  let r = await admin.patch(`users/${u.userId}`, { new_email: 'ema.new@example.com' });
  assert.deepEqual([r.status, r.body.msg], [400, 'User not authorized to change user emails']);
  r = await s.owner.patch(`users/${u.userId}`, { new_email: 'ema.new@example.com' });
  assert.equal(r.body.msg, 'User not authorized to change user emails');
  await s.running.app.store.db.updateTable('users').set({ can_change_user_emails: 1 }).where('id', '=', s.owner.userId).execute();
  s.running.app.caches.userChanged(s.owner.userId);
  r = await s.owner.patch(`users/${u.userId}`, { new_email: 'not an email' });
  assert.equal(r.body.msg, "Invalid email 'not an email'");
  r = await s.owner.patch(`users/${u.userId}`, { new_email: member.email });
  assert.equal(r.body.msg, `Email '${member.email}' already in use`);
  await s.owner.ok('PATCH', `users/${u.userId}`, { new_email: 'ema.new@example.com' });
  const after = await getUser(u.userId);
  assert.equal(after.delivery_email, 'ema.new@example.com');
  // The user authenticates with the new address and the same key.
  const me = await u.get('users/me', {}, { auth: { email: 'ema.new@example.com', apiKey: u.apiKey } });
  assert.equal(me.status, 200);
});

test('custom profile fields: create, list, set and clear values; errors; events', async () => {
  let r = await member.post('realm/profile_fields', { name: 'Phone', field_type: 1 });
  assert.deepEqual([r.status, r.body.msg], [400, 'Must be an organization administrator']);
  const phone = (await admin.ok('POST', 'realm/profile_fields', { name: 'Phone', hint: 'Work number', field_type: 1 })).id as number;
  const team = (await admin.ok('POST', 'realm/profile_fields', { name: 'Team', field_type: 3, field_data: JSON.stringify({ a: { text: 'Red', order: '1' }, b: { text: 'Blue', order: '2' } }) })).id as number;
  const mentor = (await admin.ok('POST', 'realm/profile_fields', { name: 'Mentor', field_type: 6 }, { as: 'multipart' })).id as number;
  const born = (await admin.ok('POST', 'realm/profile_fields', { name: 'Birthday', field_type: 4 })).id as number;
  r = await admin.post('realm/profile_fields', { name: 'phone', field_type: 1 });
  assert.equal(r.body.msg, 'A field with that label already exists.');
  r = await admin.post('realm/profile_fields', { name: 'Odd', field_type: 99 });
  assert.equal(r.body.msg, 'Invalid field type.');
  r = await admin.post('realm/profile_fields', { name: '  ', field_type: 1 });
  assert.equal(r.body.msg, 'Label cannot be blank.');
  r = await admin.post('realm/profile_fields', { name: 'Empty', field_type: 3, field_data: '{}' });
  assert.equal(r.body.msg, 'Field must have at least one choice.');
  const list = (await guest.ok('GET', 'realm/profile_fields')).custom_fields;
  assert.deepEqual(list.map((f: any) => f.name), ['Phone', 'Team', 'Mentor', 'Birthday']);
  assert.equal(list[0].hint, 'Work number');

  const u = await s.user('Pro File');
  await admin.ok('PATCH', `users/${u.userId}`, { profile_data: [{ id: phone, value: '+1 555' }, { id: team, value: 'b' }, { id: mentor, value: [member.userId] }, { id: born, value: '1990-04-05' }] });
  let pd = (await getUser(u.userId)).profile_data;
  assert.equal(pd[String(phone)].value, '+1 555');
  assert.ok(pd[String(phone)].rendered_value.startsWith('<p>'));
  assert.deepEqual(pd[String(team)], { value: 'b' });
  assert.deepEqual(pd[String(mentor)], { value: `[${member.userId}]` });
  r = await admin.patch(`users/${u.userId}`, { profile_data: [{ id: team, value: 'z' }] });
  assert.equal(r.body.msg, "'z' is not a valid choice for 'Team'.");
  r = await admin.patch(`users/${u.userId}`, { profile_data: [{ id: 999999, value: 'x' }] });
  assert.equal(r.body.msg, 'Field id 999999 not found.');
  r = await admin.patch(`users/${u.userId}`, { profile_data: [{ id: born, value: 'yesterday' }] });
  assert.equal(r.body.msg, 'Birthday is not a date');
  r = await admin.patch(`users/${u.userId}`, { profile_data: [{ id: mentor, value: [999999] }] });
  assert.equal(r.body.msg, 'Invalid user ID: 999999');
  r = await admin.patch(`users/${u.userId}`, { profile_data: [{ id: phone, value: 'x'.repeat(51) }] });
  assert.equal(r.body.msg, 'Phone is too long (limit: 50 characters)');
  r = await admin.patch(`users/${u.userId}`, { profile_data: '{"id": 1}' });
  assert.equal(r.body.msg, 'profile_data is not a list');
  await admin.ok('PATCH', `users/${u.userId}`, { profile_data: [{ id: phone, value: null }] });
  pd = (await getUser(u.userId)).profile_data;
  assert.equal(pd[String(phone)], undefined);
  // Without include_custom_profile_fields, no profile data.
  assert.equal((await s.owner.ok('GET', `users/${u.userId}`)).user.profile_data, undefined);
});

test('API-created users: date_joined moves to the first login', async () => {

  await grantCanCreateUsers(s, s.owner.userId);
  const created = await s.owner.ok('POST', 'users', { email: 'late.joiner@example.com', password: 'late-password', full_name: 'Late Joiner' });
  const before = (await getUser(created.user_id)).date_joined;
  const now = Date.now();
  await new Promise((r) => setTimeout(r, 1100));
  const key = await s.owner.ok('POST', 'fetch_api_key', { username: 'late.joiner@example.com', password: 'late-password' }, { auth: null });
  assert.equal(key.user_id, created.user_id);
  const afterLogin = (await getUser(created.user_id)).date_joined;
  assert.notEqual(afterLogin, before);
  assert.ok(Date.parse(afterLogin) >= Math.floor(now / 1000) * 1000);
  await s.owner.ok('POST', 'fetch_api_key', { username: 'late.joiner@example.com', password: 'late-password' }, { auth: null });
  assert.equal((await getUser(created.user_id)).date_joined, afterLogin);
});

// Last: it limits who may see whom for the rest of the file.
test('a role change that moves a user across can_access_all_users_group updates their user list', async () => {
  await limitAccessToMembers(s);
  const gil = await s.user('Gil Promoted', 600);
  await s.user('Una Unshared');
  const withPlaceholders = { client_capabilities: { ...MODERN_CAPABILITIES, user_list_incomplete: false } };
  const up = await checkConsistency(gil, () => admin.ok('PATCH', `users/${gil.userId}`, { role: 400 }), { expect: ['realm_user'] });
  assert.ok(up.some((e) => e.type === 'realm_user' && e.op === 'add'), 'the users a member may access arrive');
  const down = await checkConsistency(gil, () => admin.ok('PATCH', `users/${gil.userId}`, { role: 600 }), { expect: ['realm_user'], register: withPlaceholders });
  assert.ok(down.some((e) => e.type === 'realm_user' && e.op === 'remove'), 'and leave again when they become a guest');
  await checkConsistency(gil, () => admin.ok('PATCH', `users/${gil.userId}`, { role: 400 }), { expect: ['realm_user'], register: withPlaceholders });
  await checkConsistency(gil, () => admin.ok('PATCH', `users/${gil.userId}`, { role: 600 }), { expect: ['realm_user'] });
});

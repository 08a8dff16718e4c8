// Events consistency when the organization changes can_access_all_users_group (PATCH /realm): guests
// lose and regain the people they share no channel with, by realm_user remove and add (and statuses),
// so that their state plus the events equals a fresh register, with and without user_list_incomplete.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type Client, type TestServer } from './helpers/server.js';
import { MODERN_CAPABILITIES, checkConsistency } from './helpers/events.js';
import { newChannel } from './helpers/messages.js';
import { newBot } from './helpers/people.js';

let s: TestServer;
let guest: Client;
let other: Client;
let member: Client;
let una: Client;
let dee: Client;
let groups: Record<string, number>;

before(async () => {
  s = await startTestServer();
  guest = await s.user('Gwen Guest', 600);
  member = await s.user('Mel Member');
  una = await s.user('Una Unshared');
  dee = await s.user('Dee Deactivated');
  other = await s.user('Otto Otherguest', 600);
  // The guest shares a channel with the member only; everyone else becomes inaccessible to her.
  // The other guest shares one with Una only, so the two lose and regain different people.
  await newChannel(s, 'guest-room', { subscribers: [guest, member] });
  await newChannel(s, 'other-room', { subscribers: [other, una] });
  // Guests see Una's real address, not the member's: the two forms of an add.
  await una.ok('PATCH', 'settings', { email_address_visibility: 1 });
  await member.ok('PATCH', 'settings', { email_address_visibility: 2 });
  await newBot(s, s.owner, 'helper');
  const field = (await s.owner.ok('POST', 'realm/profile_fields', { name: 'Desk', field_type: 1 })).id as number;
  await s.owner.ok('PATCH', `users/${una.userId}`, { profile_data: [{ id: field, value: 'B-12' }] });
  await una.ok('POST', 'users/me/status', { status_text: 'in a meeting', emoji_name: 'calendar' });
  await s.owner.ok('DELETE', `users/${dee.userId}`);
  groups = Object.fromEntries(((await s.owner.ok('GET', 'user_groups')).user_groups as { id: number; name: string }[]).map((g) => [g.name, g.id]));
});
after(async () => {
  await s.close();
});

const setAccess = (group: string) => () => s.owner.ok('PATCH', 'realm', { can_access_all_users_group: JSON.stringify({ new: groups[group] }) });
const ofType = (events: any[], op: string) => events.filter((e) => e.type === 'realm_user' && e.op === op).map((e) => e.person.user_id as number);
const withPlaceholders = { client_capabilities: MODERN_CAPABILITIES };
const incomplete = { client_capabilities: { ...MODERN_CAPABILITIES, user_list_incomplete: true } };

test('a guest loses the people she shares no channel with, and regains them (Unknown user placeholders)', async () => {
  const lost = await checkConsistency(guest, setAccess('role:members'), { expect: ['realm', 'realm_user'], register: withPlaceholders });
  assert.deepEqual(ofType(lost, 'remove').sort((a, b) => a - b), [s.owner.userId, una.userId, dee.userId, other.userId].sort((a, b) => a - b));
  assert.deepEqual(ofType(lost, 'add'), []);
  const removal = lost.find((e) => e.type === 'realm_user' && e.op === 'remove' && e.person.user_id === una.userId);
  assert.deepEqual(removal.person, { user_id: una.userId, full_name: 'Unknown user' });

  const regained = await checkConsistency(guest, setAccess('role:everyone'), { expect: ['realm', 'realm_user', 'user_status'], register: withPlaceholders });
  assert.deepEqual(ofType(regained, 'add').sort((a, b) => a - b), [s.owner.userId, una.userId, dee.userId, other.userId].sort((a, b) => a - b));
  const back = regained.find((e) => e.type === 'realm_user' && e.op === 'add' && e.person.user_id === una.userId).person;
  assert.equal(back.full_name, 'Una Unshared');
  assert.equal(back.delivery_email, una.email);
  assert.deepEqual(Object.values(back.profile_data), [{ value: 'B-12', rendered_value: '<p>B-12</p>' }]);
  assert.equal(regained.find((e) => e.type === 'realm_user' && e.op === 'add' && e.person.user_id === dee.userId).person.is_active, false);
  assert.ok(regained.some((e) => e.type === 'user_status' && e.user_id === una.userId && e.status_text === 'in a meeting'));
});

test('the same transitions for a client with user_list_incomplete', async () => {
  await checkConsistency(guest, setAccess('role:members'), { expect: ['realm', 'realm_user'], register: incomplete });
  await checkConsistency(guest, setAccess('role:everyone'), { expect: ['realm', 'realm_user', 'user_status'], register: incomplete });
});

test('another guest, limited at the same time, loses and regains other people', async () => {
  const lost = await checkConsistency(other, setAccess('role:members'), { expect: ['realm', 'realm_user'], register: withPlaceholders });
  assert.ok(!ofType(lost, 'remove').includes(una.userId));
  assert.ok(ofType(lost, 'remove').includes(member.userId));
  const regained = await checkConsistency(other, setAccess('role:everyone'), { expect: ['realm', 'realm_user'], register: withPlaceholders });
  const mel = regained.find((e) => e.type === 'realm_user' && e.op === 'add' && e.person.user_id === member.userId).person;
  assert.equal(mel.delivery_email, null);
  assert.ok(!regained.some((e) => e.type === 'user_status'), 'Una, whose status it is, stayed accessible');
});

test('members keep everyone: they hear only of the setting', async () => {
  for (const group of ['role:members', 'role:everyone']) {
    const events = await checkConsistency(member, setAccess(group), { expect: ['realm'] });
    assert.deepEqual(events.filter((e) => e.type !== 'realm'), []);
  }
});

test('a setting sent again unchanged sends nothing to the guest', async () => {
  await setAccess('role:members')();
  const events = await checkConsistency(guest, setAccess('role:members'));
  assert.deepEqual(events, []);
  await checkConsistency(guest, setAccess('role:everyone'), { expect: ['realm_user'] });
});

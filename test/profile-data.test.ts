// A user's own custom profile data (PATCH and DELETE /users/me/profile_data) and the field order
// (PATCH /realm/profile_fields): success, refusals, bad input, and events-consistency.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type Client, type TestServer } from './helpers/server.js';
import { checkConsistency } from './helpers/events.js';
import { queueFor } from './helpers/messages.js';
import { limitAccessToMembers } from './helpers/people.js';

let s: TestServer;
let ann: Client;
let ben: Client;
let phone = 0;
let badge = 0;
let pronouns = 0;
before(async () => {
  s = await startTestServer();
  ann = await s.user('Ann Profile');
  ben = await s.user('Ben Profile');
  phone = (await s.owner.ok('POST', 'realm/profile_fields', { name: 'Phone', field_type: 1 })).id;
  badge = (await s.owner.ok('POST', 'realm/profile_fields', { name: 'Badge', field_type: 1, editable_by_user: false })).id;
  pronouns = (await s.owner.ok('POST', 'realm/profile_fields', { name: 'Pronouns', field_type: 8 })).id;
});
after(async () => {
  await s.close();
});

const profile = async (c: Client, id: number) => (await c.ok('GET', `users/${id}`, { include_custom_profile_fields: true })).user.profile_data;

test('PATCH /users/me/profile_data sets and clears the caller\'s values', async () => {
  await ann.ok('PATCH', 'users/me/profile_data', { data: [{ id: phone, value: '555 **1234**' }, { id: pronouns, value: 'she/her' }] });
  const data = await profile(ben, ann.userId);
  assert.equal(data[String(phone)].value, '555 **1234**');
  assert.match(data[String(phone)].rendered_value, /<strong>1234<\/strong>/);
  assert.equal(data[String(pronouns)].value, 'she/her');
  await ann.ok('PATCH', 'users/me/profile_data', { data: [{ id: pronouns, value: null }] });
  assert.equal((await profile(ben, ann.userId))[String(pronouns)], undefined);
});

test('DELETE /users/me/profile_data removes values', async () => {
  await ann.ok('DELETE', 'users/me/profile_data', { data: [phone] });
  assert.equal((await profile(ben, ann.userId))[String(phone)], undefined);
});

test('refusals and bad input', async () => {
  const locked = await ann.patch('users/me/profile_data', { data: [{ id: badge, value: 'gold' }] });
  assert.equal(locked.status, 400);
  assert.equal(locked.body.msg, 'You are not allowed to change this field. Contact an administrator to update it.');
  await s.owner.ok('PATCH', 'users/me/profile_data', { data: [{ id: badge, value: 'gold' }] });
  assert.equal((await ann.patch('users/me/profile_data', { data: [{ id: 999999, value: 'x' }] })).body.msg, 'Field id 999999 not found.');
  assert.equal((await ann.patch('users/me/profile_data', { data: [{ id: phone, value: 'x'.repeat(51) }] })).status, 400);
  assert.equal((await ann.patch('users/me/profile_data', { data: [{ id: phone }] })).status, 400);
  assert.equal((await ann.patch('users/me/profile_data', { data: '{"id": 1}' })).status, 400);
  assert.equal((await ann.patch('users/me/profile_data', {})).body.code, 'REQUEST_VARIABLE_MISSING');
  assert.equal((await ann.delete('users/me/profile_data', { data: [badge] })).body.msg, 'You are not allowed to change this field. Contact an administrator to update it.');
});

test('PATCH /realm/profile_fields reorders the fields; administrators only', async () => {
  await s.owner.ok('PATCH', 'realm/profile_fields', { order: [pronouns, badge, phone] });
  const fields = (await ann.ok('GET', 'realm/profile_fields')).custom_fields as any[];
  assert.deepEqual(fields.map((f) => f.id), [pronouns, badge, phone]);
  assert.equal((await ann.patch('realm/profile_fields', { order: [phone, badge, pronouns] })).body.msg, 'Must be an organization administrator');
  assert.equal((await s.owner.patch('realm/profile_fields', { order: [phone, badge] })).body.msg, 'Invalid order mapping.');
  assert.equal((await s.owner.patch('realm/profile_fields', { order: [phone, phone, badge] })).body.msg, 'Invalid order mapping.');
});

test('events-consistency: realm_user custom_profile_field updates and custom_profile_fields on reorder', async () => {
  await checkConsistency(ben, () => ann.ok('PATCH', 'users/me/profile_data', { data: [{ id: phone, value: 'call *me*' }, { id: pronouns, value: 'they/them' }] }), { expect: ['realm_user'] });
  await checkConsistency(ben, () => ann.ok('DELETE', 'users/me/profile_data', { data: [pronouns] }), { expect: ['realm_user'] });
  await checkConsistency(ben, () => s.owner.ok('PATCH', 'realm/profile_fields', { order: [phone, pronouns, badge] }), { expect: ['custom_profile_fields'] });
});

test('PATCH and DELETE /realm/profile_fields/{id}: administrators edit and remove a field', async () => {
  const team = (await s.owner.ok('POST', 'realm/profile_fields', { name: 'Team', field_type: 3, field_data: JSON.stringify({ a: { text: 'Red', order: '1' } }) })).id;
  await ann.ok('PATCH', 'users/me/profile_data', { data: [{ id: team, value: 'a' }] });
  await s.owner.ok('PATCH', `realm/profile_fields/${team}`, { name: 'Squad', hint: 'Which one', field_data: JSON.stringify({ a: { text: 'Red', order: '1' }, b: { text: 'Blue', order: '2' } }), editable_by_user: false });
  const f = ((await ann.ok('GET', 'realm/profile_fields')).custom_fields as any[]).find((x) => x.id === team);
  assert.equal(f.name, 'Squad');
  assert.equal(f.hint, 'Which one');
  assert.equal(f.editable_by_user, false);
  assert.ok(JSON.parse(f.field_data).b);
  assert.equal((await ann.patch(`realm/profile_fields/${team}`, { name: 'Mine' })).body.msg, 'Must be an organization administrator');
  assert.equal((await s.owner.patch(`realm/profile_fields/${team}`, { name: 'Phone' })).body.msg, 'A field with that label already exists.');
  assert.equal((await s.owner.patch(`realm/profile_fields/${team}`, {})).body.msg, 'No new data supplied');
  assert.equal((await s.owner.patch(`realm/profile_fields/${team}`, { field_data: '{}' })).body.msg, 'Field must have at least one choice.');
  assert.equal((await s.owner.patch('realm/profile_fields/999999', { name: 'x' })).body.msg, 'Field id 999999 not found.');

  await checkConsistency(ben, () => s.owner.ok('PATCH', `realm/profile_fields/${team}`, { hint: 'Pick one' }), { expect: ['custom_profile_fields'] });
  assert.equal((await ann.delete(`realm/profile_fields/${team}`)).body.msg, 'Must be an organization administrator');
  await checkConsistency(ben, () => s.owner.ok('DELETE', `realm/profile_fields/${team}`), { expect: ['custom_profile_fields'] });
  assert.equal((await profile(ben, ann.userId))[String(team)], undefined);
  assert.equal((await s.owner.delete(`realm/profile_fields/${team}`)).body.msg, `Field id ${team} not found.`);
});

// Last: it limits who may see whom for the rest of the file.
test('a restricted guest hears no profile changes of a user they may not access', async () => {
  const gus = await s.user('Gus Profile', 600);
  await limitAccessToMembers(s);
  const [qGus, qBen] = [await queueFor(gus, { event_types: ['realm_user'] }), await queueFor(ben, { event_types: ['realm_user'] })];
  await ann.ok('PATCH', 'users/me/profile_data', { data: [{ id: phone, value: 'secret number' }] });
  assert.equal((await qBen.events()).length, 1);
  assert.deepEqual(await qGus.events(), []);
  await s.owner.ok('PATCH', `users/${ann.userId}`, { full_name: 'Ann Renamed', profile_data: [{ id: phone, value: 'another' }] });
  assert.equal((await qBen.events()).length, 2);
  assert.deepEqual(await qGus.events(), [], 'nor an administrator\'s change of that user');
  await s.owner.ok('PATCH', `users/${gus.userId}`, { full_name: 'Gus Renamed' });
  assert.equal((await qGus.events())[0].person.full_name, 'Gus Renamed', 'their own change still reaches them');
});

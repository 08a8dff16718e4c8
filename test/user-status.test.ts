// User status: POST /users/me/status, POST and GET /users/{id}/status; register user_status, events, permissions, errors.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type Client, type TestServer } from './helpers/server.js';
import { expectError } from './helpers/assertions.js';
import { newChannel, queueFor } from './helpers/messages.js';
import { limitAccessToMembers } from './helpers/people.js';

let s: TestServer;
let ann: Client;
let ben: Client;
let gus: Client; // a guest who shares no channel with ann
let ada: Client; // an administrator

before(async () => {
  s = await startTestServer();
  ann = await s.user('Ann Status');
  ben = await s.user('Ben Status');
  gus = await s.user('Gus Guest', 600);
  ada = await s.user('Ada Admin', 200);
  await newChannel(s, 'status-guests', { subscribers: [gus, ben] });
  await limitAccessToMembers(s);
});
after(async () => {
  await s.close();
});

const statusOf = async (c: Client, id: number) => (await c.ok('GET', `users/${id}/status`)).status;
const registered = async (c: Client) => (await c.ok('POST', 'register', { fetch_event_types: ['user_status'] })).user_status;

test('set, change part of and clear a status; GET and register show it; events to those who may see the user', async () => {
  const [qBen, qGus] = [await queueFor(ben, { event_types: ['user_status'] }), await queueFor(gus, { event_types: ['user_status'] })];
  await ann.ok('POST', 'users/me/status', { status_text: '  on vacation ', emoji_name: 'car' });
  const full = { status_text: 'on vacation', emoji_name: 'car', emoji_code: '1f697', reaction_type: 'unicode_emoji' };
  assert.deepEqual(await statusOf(ben, ann.userId), full);
  assert.deepEqual((await registered(ben))[String(ann.userId)], full);
  const [e] = await qBen.events();
  assert.deepEqual(e, { id: e.id, type: 'user_status', user_id: ann.userId, ...full });
  assert.deepEqual(await qGus.events(), [], 'a guest who may not see ann hears nothing');
  assert.equal((await registered(gus))[String(ann.userId)], undefined);

  await ann.ok('POST', 'users/me/status', { status_text: '' });
  assert.deepEqual(await statusOf(ben, ann.userId), { emoji_name: 'car', emoji_code: '1f697', reaction_type: 'unicode_emoji' });
  await ann.ok('POST', 'users/me/status', { emoji_name: '' });
  assert.deepEqual(await statusOf(ben, ann.userId), {});
  assert.equal((await registered(ben))[String(ann.userId)], undefined);
  const events = await qBen.events();
  assert.deepEqual(events.map(({ id: _id, ...rest }) => rest), [
    { type: 'user_status', user_id: ann.userId, status_text: '' },
    { type: 'user_status', user_id: ann.userId, emoji_name: '', emoji_code: '', reaction_type: 'unicode_emoji' },
  ]);
});

test('away is the legacy face of presence_enabled', async () => {
  await ben.ok('POST', 'users/me/status', { away: true });
  assert.deepEqual(await statusOf(ann, ben.userId), { away: true });
  assert.equal((await ben.ok('POST', 'register', { fetch_event_types: ['user_settings'] })).user_settings.presence_enabled, false);
  await ben.ok('PATCH', 'settings', { presence_enabled: true });
  assert.deepEqual(await statusOf(ann, ben.userId), {});
});

test('administrators set other users\' statuses; others may not', async () => {
  await ada.ok('POST', `users/${ben.userId}/status`, { status_text: 'in a meeting', emoji_name: 'zulip' });
  assert.deepEqual(await statusOf(ann, ben.userId), { status_text: 'in a meeting', emoji_name: 'zulip', emoji_code: 'zulip', reaction_type: 'service_extra_emoji' });
  await expectError(ann.post(`users/${ben.userId}/status`, { status_text: 'x' }), 'Insufficient permission');
  await expectError(ada.post('users/999999/status', { status_text: 'x' }), 'No such user');
  await ann.ok('POST', `users/${ann.userId}/status`, { status_text: 'own, by ID' });
  // A deactivated user's status cannot be set: no event would match what register shows.
  const gone = await s.user('Gone Status');
  await ada.ok('DELETE', `users/${gone.userId}`);
  await expectError(ada.post(`users/${gone.userId}/status`, { status_text: 'x' }), 'User is deactivated');
});

test('GET: unknown, other organization and inaccessible users are "No such user"', async () => {
  await expectError(ann.get('users/999999/status'), 'No such user');
  const other = await s.realm2('status-elsewhere');
  await expectError(ann.get(`users/${other.owner.userId}/status`), 'No such user');
  await expectError(gus.get(`users/${ann.userId}/status`), 'No such user');
  assert.deepEqual(await statusOf(gus, ben.userId), { status_text: 'in a meeting', emoji_name: 'zulip', emoji_code: 'zulip', reaction_type: 'service_extra_emoji' });
});

test('bad input', async () => {
  await expectError(ann.post('users/me/status', {}), 'Client did not pass any new values.');
  await expectError(ann.post('users/me/status', { emoji_code: '1f697' }), 'Client did not pass any new values.');
  await expectError(ann.post('users/me/status', { status_text: 'x', reaction_type: 'unicode_emoji' }), 'Client must pass emoji_name if they pass either emoji_code or reaction_type.');
  await expectError(ann.post('users/me/status', { status_text: 'é'.repeat(61) }), 'status_text is too long (limit: 60 characters)');
  await ann.ok('POST', 'users/me/status', { status_text: '😀'.repeat(60) });
  await expectError(ann.post('users/me/status', { emoji_name: 'no_such_emoji_here' }), "Emoji 'no_such_emoji_here' does not exist");
  await expectError(ann.post('users/me/status', { emoji_name: 'car', emoji_code: '1f600' }), 'Invalid emoji name.');
  await expectError(ann.post('users/me/status', { emoji_name: 'car', emoji_code: '99', reaction_type: 'realm_emoji' }), 'Invalid custom emoji.');
  await expectError(ann.post('users/me/status', { emoji_name: 'car', reaction_type: 'bogus' }), 'Invalid reaction_type');
  await expectError(ann.post('users/me/status', { away: 'maybe' }), 'away is not a boolean');
  await expectError(ann.post('users/me/status', { status_text: 'a\0b' }), 'status_text must not contain null bytes');
});

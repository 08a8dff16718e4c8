// The caller's own account and one user's presence: DELETE /users/me, POST /users/me/api_key/regenerate,
// GET /users/{user_id_or_email}/presence.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Clock } from '../src/context.js';
import { startTestServer, Client, type TestServer } from './helpers/server.js';
import { expectError } from './helpers/assertions.js';
import { newChannel, queueFor } from './helpers/messages.js';
import { limitAccessToMembers, newBot } from './helpers/people.js';

let now = 1_700_000_000;
const clock: Clock = { now: () => now };
let s: TestServer;
let amy: Client;
let bob: Client;
let gus: Client; // a guest sharing a channel with bob only

before(async () => {
  s = await startTestServer({ clock });
  amy = await s.user('Amy Present');
  bob = await s.user('Bob Viewer');
  gus = await s.user('Gus Guest', 600);
  await newChannel(s, 'account-guests', { subscribers: [gus, bob] });
});
after(async () => {
  await s.close();
});

test('GET /users/{id or email}/presence: both forms; offline past the threshold', async () => {
  await expectError(bob.get(`users/${amy.userId}/presence`), `No presence data for ${amy.userId}`);
  await amy.ok('POST', 'users/me/presence', { status: 'active' });
  const r = await bob.ok('GET', `users/${amy.userId}/presence`);
  assert.equal(r.server_timestamp, now);
  assert.deepEqual(r.presence, { active_timestamp: now, idle_timestamp: now, website: { status: 'active', timestamp: now }, aggregated: { status: 'active', timestamp: now } });
  assert.deepEqual((await bob.ok('GET', `users/${encodeURIComponent(amy.email)}/presence`)).presence, r.presence);
  now += 1000;
  const later = await bob.ok('GET', `users/${amy.userId}/presence`);
  assert.equal(later.presence.aggregated.status, 'offline');
  assert.equal(later.presence.website.status, 'active');
});

test('presence errors: unknown, bots, other organization, inaccessible', async () => {
  await expectError(bob.get('users/999999/presence'), 'No such user');
  await expectError(bob.get('users/99999999999/presence'), 'No such user');
  await expectError(bob.get('users/nobody@example.com/presence'), 'No such user');
  const bot = await newBot(s, bob, 'presencebot');
  await expectError(bob.get(`users/${bot.userId}/presence`), 'Presence is not supported for bot users.');
  const other = await s.realm2('presence-elsewhere');
  await expectError(bob.get(`users/${other.owner.userId}/presence`), 'No such user');
  await limitAccessToMembers(s);
  await expectError(gus.get(`users/${amy.userId}/presence`), 'No such user');
  await bob.ok('POST', 'users/me/presence', { status: 'idle' });
  assert.equal((await gus.ok('GET', `users/${bob.userId}/presence`)).presence.website.status, 'idle');
});

test('POST /users/me/api_key/regenerate: the new key works, the old one stops at once', async () => {
  const cal = await s.user('Cal Rekey');
  const { api_key } = await cal.ok('POST', 'users/me/api_key/regenerate');
  assert.notEqual(api_key, cal.apiKey);
  const fresh = new Client(s, cal.userId, cal.email, api_key);
  assert.equal((await fresh.ok('GET', 'users/me')).user_id, cal.userId);
  const old = await cal.get('users/me');
  assert.equal(old.status, 401);
});

test('DELETE /users/me: deactivates the caller and their bots, with events; the last owner cannot', async () => {
  const dee = await s.user('Dee Leaving');
  const bot = await newBot(s, dee, 'deesbot');
  const q = await queueFor(bob, { event_types: ['realm_user'] });
  await dee.ok('DELETE', 'users/me');
  const events = await q.events();
  assert.deepEqual(events.map((e) => [e.person.user_id, e.person.is_active]), [[bot.userId, false], [dee.userId, false]]);
  assert.equal((await dee.get('users/me')).status, 401);
  assert.equal((await bot.get('users/me')).status, 401);
  assert.equal((await bob.ok('GET', `users/${dee.userId}`)).user.is_active, false);

  const body = await expectError(s.owner.delete('users/me'), 'Cannot deactivate the only organization owner', 'CANNOT_DEACTIVATE_LAST_USER');
  assert.equal(body.entity, 'organization owner');
  assert.equal(body.is_last_owner, true);
});

test('DELETE /users/me: the only user of an organization cannot', async () => {
  const other = await s.realm2('alone');
  const body = await expectError(other.owner.delete('users/me'), 'Cannot deactivate the only user', 'CANNOT_DEACTIVATE_LAST_USER');
  assert.deepEqual([body.entity, body.is_last_owner], ['user', false]);
});

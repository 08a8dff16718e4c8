// Presence: reporting, polling forms (modern, legacy, incremental), GET /realm/presence, events and register.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type Client, type TestServer } from './helpers/server.js';
import { queueFor } from './helpers/messages.js';
import type { Clock } from '../src/context.js';

let now = 1_700_000_000;
const clock: Clock = { now: () => now };
let s: TestServer;
let amy: Client;
let bo: Client;
before(async () => {
  s = await startTestServer({ clock });
  amy = await s.user('Amy Online');
  bo = await s.user('Bo Watcher');
});
after(async () => {
  await s.close();
});

test('status is required and checked', async () => {
  let r = await amy.post('users/me/presence', {});
  assert.deepEqual([r.status, r.body.code, r.body.var_name], [400, 'REQUEST_VARIABLE_MISSING', 'status']);
  r = await amy.post('users/me/presence', { status: 'away' });
  assert.deepEqual([r.status, r.body.msg], [400, 'Invalid status: away']);
  r = await amy.post('users/me/presence', { status: 'active', last_update_id: 'x' });
  assert.equal(r.status, 400);
});

test('reporting and the response forms', async () => {
  const ping = await amy.ok('POST', 'users/me/presence', { status: 'active', ping_only: true, new_user_input: true });
  assert.deepEqual(Object.keys(ping).sort(), ['msg', 'result']);
  now += 30;
  const legacy = await bo.ok('POST', 'users/me/presence', { status: 'idle' });
  assert.deepEqual(legacy.presences[amy.email], {
    website: { client: 'website', status: 'active', timestamp: now - 30, pushable: false },
    aggregated: { client: 'website', status: 'active', timestamp: now - 30 },
  });
  assert.equal(legacy.presences[bo.email].aggregated.status, 'idle');
  assert.equal(legacy.server_timestamp, now);
  const modern = await bo.ok('POST', 'users/me/presence', { status: 'idle', last_update_id: -1 });
  assert.deepEqual(modern.presences[String(amy.userId)], { active_timestamp: now - 30, idle_timestamp: now - 30 });
  assert.deepEqual(modern.presences[String(bo.userId)], { idle_timestamp: now });
  const slim = await bo.ok('POST', 'users/me/presence', { status: 'idle', slim_presence: true });
  assert.ok(slim.presences[String(amy.userId)]);
  // Incremental: only what changed after the given update ID.
  const last = modern.presence_last_update_id;
  assert.equal(typeof last, 'number');
  const inc = await bo.ok('POST', 'users/me/presence', { status: 'idle', last_update_id: slim.presence_last_update_id });
  assert.deepEqual(Object.keys(inc.presences), [String(bo.userId)], 'bo reported again; amy did not');
  assert.ok(inc.presence_last_update_id > slim.presence_last_update_id);
  const realm = await bo.ok('GET', 'realm/presence');
  assert.equal(realm.presences[amy.email].website.status, 'active');
  // An idle report a few minutes after an active one shows idle.
  now += 300;
  await amy.ok('POST', 'users/me/presence', { status: 'idle', ping_only: true });
  const after = await bo.ok('GET', 'realm/presence');
  assert.deepEqual(after.presences[amy.email].aggregated, { client: 'website', status: 'idle', timestamp: now });
});

test('history limit: register and history_limit_days', async () => {
  const old = await s.user('Old Timer');
  await old.ok('POST', 'users/me/presence', { status: 'active', ping_only: true });
  now += 20 * 86400;
  await amy.ok('POST', 'users/me/presence', { status: 'active', ping_only: true });
  const reg = await bo.ok('POST', 'register', { fetch_event_types: ['presence'], slim_presence: true });
  assert.ok(reg.presences[String(amy.userId)]);
  assert.equal(reg.presences[String(old.userId)], undefined, 'default 14 days');
  const longer = await bo.ok('POST', 'register', { fetch_event_types: ['presence'], slim_presence: true, presence_history_limit_days: 30 });
  assert.ok(longer.presences[String(old.userId)]);
  const legacyReg = await bo.ok('POST', 'register', { fetch_event_types: ['presence'] });
  assert.ok(legacyReg.presences[amy.email].aggregated);
  const polled = await bo.ok('POST', 'users/me/presence', { status: 'idle', last_update_id: 0, history_limit_days: 30 });
  assert.ok(polled.presences[String(old.userId)]);
});

test('history limits past any date (the permission fuzz found a 500 on PostgreSQL): every presence, and for a negative one none', async () => {
  const huge = await bo.ok('POST', 'register', { fetch_event_types: ['presence'], slim_presence: true, presence_history_limit_days: 2147483647 });
  assert.ok(huge.presences[String(amy.userId)]);
  const polled = await bo.ok('POST', 'users/me/presence', { status: 'idle', last_update_id: 0, history_limit_days: 2147483647 });
  assert.ok(polled.presences[String(amy.userId)]);
  const negative = await bo.ok('POST', 'register', { fetch_event_types: ['presence'], slim_presence: true, presence_history_limit_days: -2147483648 });
  assert.deepEqual(negative.presences, {});
});

test('events: only when coming online or becoming active, to everyone, in the client form', async () => {
  const cy = await s.user('Cy Arrives');
  const modern = await queueFor(bo, { event_types: ['presence'], client_capabilities: { simplified_presence_events: true } });
  const legacy = await queueFor(amy, { event_types: ['presence'] });
  await cy.ok('POST', 'users/me/presence', { status: 'idle', ping_only: true });
  assert.deepEqual(await modern.events(), [{ type: 'presence', presences: { [String(cy.userId)]: { idle_timestamp: now } }, id: 0 }]);
  const [ev] = await legacy.events();
  assert.deepEqual(ev, { type: 'presence', user_id: cy.userId, email: cy.email, server_timestamp: now, presence: { website: { client: 'website', status: 'idle', timestamp: now, pushable: false } }, id: 0 });
  now += 60;
  await cy.ok('POST', 'users/me/presence', { status: 'idle', ping_only: true });
  assert.deepEqual(await modern.events(), [], 'still online: no event');
  await cy.ok('POST', 'users/me/presence', { status: 'active', ping_only: true });
  assert.equal((await modern.events()).length, 1, 'became active');
  now += 60;
  await cy.ok('POST', 'users/me/presence', { status: 'active', ping_only: true });
  assert.deepEqual(await modern.events(), []);
  now += 600;
  await cy.ok('POST', 'users/me/presence', { status: 'active', ping_only: true });
  assert.equal((await modern.events()).length, 1, 'back after being offline');
});

test('invisible mode: nothing is recorded', async () => {
  const dee = await s.user('Dee Hidden');
  await dee.ok('PATCH', 'settings', { presence_enabled: false });
  await dee.ok('POST', 'users/me/presence', { status: 'active', ping_only: true });
  const r = await bo.ok('POST', 'users/me/presence', { status: 'idle', last_update_id: -1 });
  assert.equal(r.presences[String(dee.userId)], undefined);
});

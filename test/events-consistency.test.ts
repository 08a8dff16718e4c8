// Events-consistency for every event type: register state + events = a fresh register.
// The last test fails when an event type in src/events/types.ts has no consistency case here.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from './helpers/server.js';
import { checkConsistency, coveredEventTypes, DEFAULT_REGISTER } from './helpers/events.js';
import { applyEvents } from '../src/events/apply.js';
import { EVENT_TYPES } from '../src/events/types.js';

let s: TestServer;
before(async () => {
  s = await startTestServer({ env: { PARLEY_HEARTBEAT_SECS: '1' } });
});
after(async () => {
  await s.close();
});

test('realm_user add: a new user appears in realm_users', async () => {
  const bob = await s.user('Bob Observer');
  await checkConsistency(bob, () => s.user('Zed Newcomer'), { expect: ['realm_user'] });
});

test('heartbeat: changes nothing in the state', async () => {
  const before = await s.owner.ok('POST', 'register', DEFAULT_REGISTER);
  const r = await s.owner.ok('GET', 'events', { queue_id: before.queue_id, last_event_id: -1 });
  assert.deepEqual(r.events.map((e: any) => e.type), ['heartbeat']);
  coveredEventTypes.add('heartbeat');
  const state = structuredClone(before);
  applyEvents(state, r.events, { userId: s.owner.userId });
  const fresh = await s.owner.ok('POST', 'register', DEFAULT_REGISTER);
  for (const k of ['queue_id', 'last_event_id']) {
    delete state[k];
    delete fresh[k];
  }
  assert.deepEqual(state, fresh);
});

test('every event type has an events-consistency case', () => {
  const missing = EVENT_TYPES.filter((t) => !coveredEventTypes.has(t));
  assert.deepEqual(missing, [], `event types without a consistency test: ${missing.join(', ')}`);
});

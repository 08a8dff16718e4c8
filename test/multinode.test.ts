// Two nodes on one PostgreSQL database and a NATS bus: an action on one node reaches queues on the other.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { startTestServer, Client, type TestServer } from './helpers/server.js';
import type { RunningServer } from '../src/main.js';

const onPostgres = !!process.env.PARLEY_TEST_PG_URL;
const busUrl = `nats://127.0.0.1:4222?subject=parley.test.${randomBytes(6).toString('hex')}`;
let s: TestServer;
let second: RunningServer;

before(async () => {
  if (!onPostgres) return;
  s = await startTestServer({ env: { PARLEY_BUS_URL: busUrl, PARLEY_NODE_ID: 'a' } });
  second = await s.peer({ busUrl, nodeId: 'b' });
});
after(async () => {
  if (!onPostgres) return;
  await second.close();
  await s.close();
});

const skip = onPostgres ? false : 'several nodes need PostgreSQL (SQLite is single-node); this runs in the PostgreSQL pass';

test('an event caused on node a reaches a long-poll on node b', { skip }, async () => {
  const onB = new Client({ url: second.url } as TestServer, s.owner.userId, s.owner.email, s.owner.apiKey);
  const reg = await onB.ok('POST', 'register', { event_types: ['realm_user'] });
  assert.match(reg.queue_id, /^b-/, 'queue IDs carry the node that holds them');
  const poll = onB.get('events', { queue_id: reg.queue_id, last_event_id: -1 });
  await s.user('Cross Node');
  const r = await poll;
  assert.equal(r.status, 200);
  assert.equal(r.body.events[0].type, 'realm_user');
  assert.equal(r.body.events[0].person.full_name, 'Cross Node');
  // Any node serves any queue: node a makes the same event, with the same ID, from the event log.
  const onA = await s.owner.get('events', { queue_id: reg.queue_id, last_event_id: -1, dont_block: true });
  assert.equal(onA.status, 200, JSON.stringify(onA.body));
  assert.deepEqual(onA.body.events.map((e: { id: number; type: string }) => [e.id, e.type]), [[r.body.events[0].id, 'realm_user']]);
});

test('userChanged on node a drops the user from node b’s auth cache at once', { skip }, async () => {
  const moe = await s.user('Moe Twonodes');
  const onB = new Client({ url: second.url } as TestServer, moe.userId, moe.email, moe.apiKey);
  assert.equal((await onB.get('users/me')).status, 200);
  await s.running.app.store.db.updateTable('users').set({ is_active: 0 }).where('id', '=', moe.userId).execute();
  s.running.app.caches.userChanged(moe.userId);
  // The control message travels through NATS; well within the cache's TTL.
  await new Promise((r) => setTimeout(r, 100));
  const r = await onB.get('users/me');
  assert.equal(r.status, 401);
  assert.equal(r.body.code, 'USER_DEACTIVATED');
});

// The event queue protocol: register fields, long-poll, acknowledgement, heartbeat, filters,
// deletion, idle collection, restart survival, and the register/queue race.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { startTestServer, type TestServer } from './helpers/server.js';
import { drainEvents } from './helpers/events.js';

const clock = { t: Math.floor(Date.now() / 1000), now() { return this.t; } };
let s: TestServer;
before(async () => {
  s = await startTestServer({ clock, env: { PARLEY_HEARTBEAT_SECS: '1' } });
});
after(async () => {
  await s.close();
});

test('register returns the queue and the protocol constants', async () => {
  const r = await s.owner.ok('POST', 'register', { event_types: ['realm_user'] });
  assert.equal(typeof r.queue_id, 'string');
  assert.equal(r.last_event_id, -1);
  for (const k of ['service_feature_level', 'zulip_feature_level', 'max_topic_length', 'event_queue_longpoll_timeout_seconds', 'idle_queue_timeout_secs', 'server_typing_started_wait_period_milliseconds', 'server_typing_stopped_wait_period_milliseconds', 'server_typing_started_expiry_period_milliseconds']) {
    assert.equal(typeof r[k], 'number', k);
  }
  assert.equal(r.service_feature_level, r.zulip_feature_level);
  assert.equal(r.service_version, r.zulip_version);
  assert.equal(r.realm_empty_topic_display_name, 'general chat');
  assert.equal(r.idle_queue_timeout_secs, 600);
  assert.ok(Array.isArray(r.realm_users));
  assert.equal(r.subscriptions, undefined, 'only the requested types are fetched');
});

test('idle_queue_timeout is honoured and validated', async () => {
  const r = await s.owner.ok('POST', 'register', { event_types: ['message'], idle_queue_timeout: 120 });
  assert.equal(r.idle_queue_timeout_secs, 120);
  const bad = await s.owner.post('register', { idle_queue_timeout: 'soon' });
  assert.equal(bad.status, 400);
});

test('an unknown queue, or another user’s queue, is BAD_EVENT_QUEUE_ID', async () => {
  const r = await s.owner.get('events', { queue_id: 'nope', last_event_id: -1 });
  assert.equal(r.status, 400);
  assert.equal(r.body.code, 'BAD_EVENT_QUEUE_ID');
  assert.equal(r.body.queue_id, 'nope');
  const mine = await s.owner.ok('POST', 'register', { event_types: ['message'] });
  const eve = await s.user('Eve Snoop');
  const theirs = await eve.get('events', { queue_id: mine.queue_id, last_event_id: -1, dont_block: true });
  assert.equal(theirs.body.code, 'BAD_EVENT_QUEUE_ID');
});

test('a blocked long-poll returns as soon as an event arrives', async () => {
  const bob = await s.user('Bob Waiter');
  const reg = await bob.ok('POST', 'register', { event_types: ['realm_user'] });
  const poll = bob.get('events', { queue_id: reg.queue_id, last_event_id: -1 });
  await new Promise((r) => setTimeout(r, 100));
  await s.user('Newcomer One');
  const r = await poll;
  assert.equal(r.status, 200);
  assert.equal(r.body.queue_id, reg.queue_id);
  const adds = r.body.events.filter((e: any) => e.type === 'realm_user' && e.op === 'add');
  assert.equal(adds.length, 1);
  assert.equal(adds[0].person.full_name, 'Newcomer One');
});

test('unacknowledged events are delivered again; acknowledged ones are not', async () => {
  const reg = await s.owner.ok('POST', 'register', { event_types: ['realm_user'] });
  await s.user('Newcomer Two');
  const first = await s.owner.ok('GET', 'events', { queue_id: reg.queue_id, dont_block: true });
  const again = await s.owner.ok('GET', 'events', { queue_id: reg.queue_id, last_event_id: -1, dont_block: true });
  assert.equal(first.events.length, 1);
  assert.deepEqual(again.events, first.events);
  const acked = await s.owner.ok('GET', 'events', { queue_id: reg.queue_id, last_event_id: first.events[0].id, dont_block: true });
  assert.deepEqual(acked.events, []);
});

test('a silent long-poll gets a heartbeat', async () => {
  const reg = await s.owner.ok('POST', 'register', { event_types: ['message'] });
  const r = await s.owner.ok('GET', 'events', { queue_id: reg.queue_id, last_event_id: -1 });
  assert.equal(r.events.length, 1);
  assert.equal(r.events[0].type, 'heartbeat');
  assert.equal(typeof r.events[0].id, 'number');
});

test('event_types filters what a queue receives', async () => {
  const reg = await s.owner.ok('POST', 'register', { event_types: ['message'] });
  await s.user('Newcomer Three');
  const r = await s.owner.ok('GET', 'events', { queue_id: reg.queue_id, last_event_id: -1, dont_block: true });
  assert.deepEqual(r.events, []);
});

test('DELETE /events removes the queue', async () => {
  const reg = await s.owner.ok('POST', 'register', { event_types: ['message'] });
  await s.owner.ok('DELETE', 'events', { queue_id: reg.queue_id });
  const r = await s.owner.get('events', { queue_id: reg.queue_id, dont_block: true });
  assert.equal(r.body.code, 'BAD_EVENT_QUEUE_ID');
  const again = await s.owner.delete('events', { queue_id: reg.queue_id });
  assert.equal(again.body.code, 'BAD_EVENT_QUEUE_ID');
});

test('GET /events without queue_id registers a queue implicitly', async () => {
  const r = await s.owner.ok('GET', 'events', { event_types: ['realm_user'], dont_block: true });
  assert.equal(typeof r.queue_id, 'string');
  assert.deepEqual(r.events, []);
  await s.user('Newcomer Four');
  const next = await s.owner.ok('GET', 'events', { queue_id: r.queue_id, last_event_id: -1, dont_block: true });
  assert.equal(next.events[0].person.full_name, 'Newcomer Four');
});

test('idle queues are collected after their timeout; polled ones are kept', async () => {
  const idle = await s.owner.ok('POST', 'register', { event_types: ['message'], idle_queue_timeout: 100 });
  const busy = await s.owner.ok('POST', 'register', { event_types: ['message'], idle_queue_timeout: 100 });
  clock.t += 60;
  await s.owner.ok('GET', 'events', { queue_id: busy.queue_id, dont_block: true });
  clock.t += 60;
  s.running.app.queues.collectIdle();
  const gone = await s.owner.get('events', { queue_id: idle.queue_id, dont_block: true });
  assert.equal(gone.body.code, 'BAD_EVENT_QUEUE_ID');
  const kept = await s.owner.get('events', { queue_id: busy.queue_id, dont_block: true });
  assert.equal(kept.status, 200);
});

test('a held long-poll whose client left no longer keeps its queue from idle collection', async () => {
  const reg = await s.owner.ok('POST', 'register', { event_types: ['message'], idle_queue_timeout: 100 });
  const url = new URL(s.url);
  const auth = 'Basic ' + Buffer.from(`${s.owner.email}:${s.owner.apiKey}`).toString('base64');
  const held = http.request({ hostname: url.hostname, port: url.port, path: `/api/v1/events?queue_id=${encodeURIComponent(reg.queue_id)}&last_event_id=-1`, headers: { authorization: auth, host: s.owner.host ?? url.host }, agent: false });
  held.on('error', () => {});
  held.end();
  // Parked for a while, then the client gives up.
  await new Promise((r) => setTimeout(r, 200));
  held.destroy();
  await new Promise((r) => setTimeout(r, 200));
  clock.t += 120;
  s.running.app.queues.collectIdle();
  const gone = await s.owner.get('events', { queue_id: reg.queue_id, dont_block: true });
  assert.equal(gone.body.code, 'BAD_EVENT_QUEUE_ID', 'a waiting poll would have kept the queue');
});

test('a long-poll reports the parameters it did not use; deleting its queue answers it with no events', async () => {
  const reg = await s.owner.ok('POST', 'register', { event_types: ['message'] });
  const quick = await s.owner.ok('GET', 'events', { queue_id: reg.queue_id, last_event_id: -1, dont_block: true, colour: 'blue' });
  assert.deepEqual(quick.ignored_parameters_unsupported, ['colour']);
  const implicit = await s.owner.ok('GET', 'events', { event_types: ['message'], dont_block: true, shade: 'dark' });
  assert.deepEqual(implicit.ignored_parameters_unsupported, ['shade']);
  assert.deepEqual(implicit.events, []);
  const held = s.owner.get('events', { queue_id: reg.queue_id, last_event_id: -1, tint: 'red' });
  await new Promise((r) => setTimeout(r, 100));
  await s.owner.ok('DELETE', 'events', { queue_id: reg.queue_id });
  const answered = await held;
  assert.equal(answered.status, 200);
  assert.deepEqual(answered.body.events, []);
  assert.equal(answered.body.queue_id, reg.queue_id);
  assert.deepEqual(answered.body.ignored_parameters_unsupported, ['tint']);
});

test('queues and their pending events survive a server restart', async () => {
  const reg = await s.owner.ok('POST', 'register', { event_types: ['realm_user'] });
  await s.user('Newcomer Five');
  await s.restart();
  const r = await s.owner.ok('GET', 'events', { queue_id: reg.queue_id, last_event_id: -1, dont_block: true });
  assert.equal(r.events.length, 1);
  assert.equal(r.events[0].person.full_name, 'Newcomer Five');
  await s.user('Newcomer Six');
  const more = await s.owner.ok('GET', 'events', { queue_id: reg.queue_id, last_event_id: r.events[0].id, dont_block: true });
  assert.equal(more.events.length, 1);
  assert.ok(more.events[0].id > r.events[0].id, 'event IDs keep increasing across the restart');
});

test('registering while users are being created loses and duplicates nothing', async () => {
  const created: Promise<unknown>[] = [];
  for (let i = 0; i < 12; i++) created.push(s.user(`Racer ${i}`));
  const regs = await Promise.all([0, 1, 2].map(() => s.owner.ok('POST', 'register', { event_types: ['realm_user'] })));
  await Promise.all(created);
  const fresh = await s.owner.ok('POST', 'register', { event_types: ['realm_user'] });
  for (const reg of regs) {
    const events = await drainEvents(s.owner, reg.queue_id);
    const known = new Set(reg.realm_users.map((u: any) => u.user_id));
    for (const e of events) {
      assert.ok(!known.has(e.person.user_id), `user ${e.person.user_id} is both in the state and in an event`);
      known.add(e.person.user_id);
    }
    assert.deepEqual([...known].sort((a: any, b: any) => a - b), fresh.realm_users.map((u: any) => u.user_id));
  }
});

test('an unauthenticated register is refused when spectators are not allowed', async () => {
  const { request } = await import('./helpers/server.js');
  const r = await request(s.url, 'POST', 'register', {});
  assert.equal(r.status, 401);
  const g = await request(s.url, 'POST', 'register', { client_gravatar: true });
  assert.equal(g.status, 400);
});

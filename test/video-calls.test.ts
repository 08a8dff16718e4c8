// POST /calls/videoprovider/create: not configured, not authorized, then authorized (has_videoprovider_token) with fresh room URLs.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type Client, type TestServer } from './helpers/server.js';

let s: TestServer;
let plain: TestServer;
let ann: Client;
let ben: Client;

before(async () => {
  s = await startTestServer({ env: { PARLEY_VIDEO_BASE_URL: 'https://meet.example.org/' } });
  plain = await startTestServer();
  ann = await s.user('Ann Caller');
  ben = await s.user('Ben Watcher');
});
after(async () => {
  await s.close();
  await plain.close();
});

test('without the integration: a clear error, and no token in register', async () => {
  const r = await plain.owner.post('calls/videoprovider/create');
  assert.equal(r.status, 400);
  assert.equal(r.body.code, 'BAD_REQUEST');
  assert.equal(r.body.msg, 'Video calls are not configured on this server.');
  assert.equal((await plain.owner.post('calls/videoprovider/authorize')).body.msg, 'Video calls are not configured on this server.');
  const reg = await plain.owner.ok('POST', 'register', { fetch_event_types: ['video_calls'] });
  assert.equal(reg.has_videoprovider_token, false);
  assert.equal(reg.has_zoom_token, false);
});

test('the full flow: unauthorized error, authorize (event to the user only), then unguessable rooms; revoke', async () => {
  const before = await ann.post('calls/videoprovider/create');
  assert.equal(before.status, 400);
  assert.match(before.body.msg, /not authorized the video-call provider/);

  const reg = await ann.ok('POST', 'register', { event_types: ['has_videoprovider_token'] });
  assert.equal(reg.has_videoprovider_token, false);
  const other = await ben.ok('POST', 'register', { event_types: ['has_videoprovider_token'] });
  await ann.ok('POST', 'calls/videoprovider/authorize');
  const events = (await ann.ok('GET', 'events', { queue_id: reg.queue_id, last_event_id: -1, dont_block: true })).events.filter((e: any) => e.type !== 'heartbeat');
  assert.deepEqual(events.map(({ id: _id, ...e }: any) => e), [{ type: 'has_videoprovider_token', value: true }]);
  const bens = (await ben.ok('GET', 'events', { queue_id: other.queue_id, last_event_id: -1, dont_block: true })).events.filter((e: any) => e.type !== 'heartbeat');
  assert.deepEqual(bens, []);
  // Authorizing again changes nothing a client sees.
  await ann.ok('POST', 'calls/videoprovider/authorize', {}, { as: 'multipart' });
  const fresh = await ann.ok('POST', 'register', { fetch_event_types: ['video_calls'] });
  assert.equal(fresh.has_videoprovider_token, true);
  assert.equal(fresh.has_zoom_token, true);

  const a = (await ann.ok('POST', 'calls/videoprovider/create')).url as string;
  const b = (await ann.ok('POST', 'calls/videoprovider/create')).url as string;
  assert.match(a, /^https:\/\/meet\.example\.org\/parley-[0-9a-f]{32}$/);
  assert.notEqual(a, b);

  // Another user still has to authorize.
  assert.equal((await ben.post('calls/videoprovider/create')).status, 400);

  await ann.ok('DELETE', 'calls/videoprovider/authorize');
  assert.equal((await ann.ok('POST', 'register', { fetch_event_types: ['video_calls'] })).has_videoprovider_token, false);
  assert.equal((await ann.post('calls/videoprovider/create')).status, 400);
});

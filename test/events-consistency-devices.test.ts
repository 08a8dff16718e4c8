// Logged-in devices: POST /register_client_device and /remove_client_device, their device events and register's devices state.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type Client, type TestServer } from './helpers/server.js';
import { checkConsistency, drainEvents } from './helpers/events.js';

let s: TestServer;
let ann: Client;
let ben: Client;

before(async () => {
  s = await startTestServer();
  ann = await s.user('Ann Device');
  ben = await s.user('Ben Device');
});
after(() => s.close());

const EMPTY = { push_key_id: null, push_token_id: null, pending_push_token_id: null, push_token_last_updated_timestamp: null, push_registration_error_code: null };

test('register and remove a device: events to the owner only, state consistent', async () => {
  const watch = await ben.ok('POST', 'register', { event_types: ['device'] });
  let id = 0;
  const added = await checkConsistency(ann, async () => {
    id = (await ann.ok('POST', 'register_client_device')).device_id;
  }, { register: { fetch_event_types: ['device'] }, expect: ['device'] });
  assert.deepEqual(added.map(({ id: _e, ...e }) => e), [{ type: 'device', op: 'add', device_id: id }]);
  const reg = await ann.ok('POST', 'register', { fetch_event_types: ['device'] });
  assert.deepEqual(reg.devices, { [String(id)]: EMPTY });

  // Ben neither sees nor can remove Ann's device.
  const bad = await ben.post('remove_client_device', { device_id: id });
  assert.equal(bad.status, 400);
  assert.equal(bad.body.code, 'BAD_REQUEST');
  assert.deepEqual((await ben.ok('POST', 'register', { fetch_event_types: ['device'] })).devices, {});
  assert.deepEqual(await drainEvents(ben, watch.queue_id).then((es) => es.filter((e) => e.type !== 'heartbeat')), []);

  await checkConsistency(ann, () => ann.ok('POST', 'remove_client_device', { device_id: id }), { register: { fetch_event_types: ['device'] }, expect: ['device'] });
  assert.deepEqual((await ann.ok('POST', 'register', { fetch_event_types: ['device'] })).devices, {});
});

test('bad input and no credentials are refused', async () => {
  const missing = await ann.post('remove_client_device', {});
  assert.equal(missing.status, 400);
  assert.equal(missing.body.msg, "Missing 'device_id' argument");
  assert.equal((await ann.post('remove_client_device', { device_id: 'abc' })).status, 400);
  const anon = await fetch(new URL('/api/v1/register_client_device', s.url), { method: 'POST' });
  assert.equal(anon.status, 401);
});

// E2EE push registration without a push notification service: validation first, then PUSH_SERVICE_NOT_CONFIGURED.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from './helpers/server.js';

let s: TestServer;
before(async () => {
  s = await startTestServer();
});
after(() => s.close());

const unconfigured = { result: 'error', msg: 'Server is not configured to use push notification service.', code: 'PUSH_SERVICE_NOT_CONFIGURED' };

test('POST /mobile_push/register: bad input refused, a valid registration answers the unconfigured service', async () => {
  const missing = await s.owner.post('mobile_push/register', { push_key_id: 1 });
  assert.equal(missing.status, 400);
  assert.equal(missing.body.msg, "Missing 'device_id' argument");
  const badKind = await s.owner.post('mobile_push/register', { device_id: 1, token_kind: 'sms' });
  assert.equal(badKind.status, 400);
  assert.equal(badKind.body.code, 'BAD_REQUEST');
  assert.equal((await s.owner.post('mobile_push/register', { device_id: 'one' })).status, 400);
  const r = await s.owner.post('mobile_push/register', { device_id: 1, push_key_id: 2408, push_key: 'MTaUDJDMWypQ1WufZ1NRTHSSvgYtXh1qVNSjN3aBiEFt', token_kind: 'fcm', token_id: 'hGsEWGmyyfI=', bouncer_public_key: 'k', encrypted_push_registration: 'e' });
  assert.equal(r.status, 400);
  assert.deepEqual(r.body, unconfigured);
  const anon = await fetch(new URL('/api/v1/mobile_push/register', s.url), { method: 'POST', body: 'device_id=1', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  assert.equal(anon.status, 401);
  // Registration is still reported off.
  const reg = await s.owner.ok('POST', 'register', { fetch_event_types: ['realm'] });
  assert.equal(reg.realm_push_notifications_enabled, false);
});

test('POST /remotes/push/e2ee/register: this server is no push notification service', async () => {
  const missing = await s.owner.post('remotes/push/e2ee/register', { realm_uuid: 'u' });
  assert.equal(missing.status, 400);
  assert.equal(missing.body.msg, "Missing 'token_id' argument");
  const r = await s.owner.post('remotes/push/e2ee/register', { realm_uuid: '9aa61d0b-8ce5-488d-8e9e-fedc346e6836', token_id: '+wKIhyAx/Eg=', encrypted_push_registration: 'e', bouncer_public_key: 'k' });
  assert.equal(r.status, 400);
  assert.deepEqual(r.body, unconfigured);
});

// Legacy push tokens (APNs, FCM): validation, per-user storage and removal; test notifications without a push service.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type Client, type TestServer } from './helpers/server.js';

let s: TestServer;
let ann: Client;
let ben: Client;

before(async () => {
  s = await startTestServer();
  ann = await s.user('Ann Phone');
  ben = await s.user('Ben Phone');
});
after(() => s.close());

function err(r: { status: number; body: Record<string, any> }, msg: string, code = 'BAD_REQUEST') {
  assert.equal(r.status, 400, JSON.stringify(r.body));
  assert.equal(r.body.result, 'error');
  assert.equal(r.body.msg, msg);
  assert.equal(r.body.code, code);
}

test('APNs tokens: validated, added, refreshed, removed only by their owner', async () => {
  err(await ann.post('users/me/apns_device_token', { token: 'c0ffee' }), "Missing 'appid' argument", 'REQUEST_VARIABLE_MISSING');
  err(await ann.post('users/me/apns_device_token', { token: '', appid: 'org.zulip.Zulip' }), 'Empty or invalid length token');
  err(await ann.post('users/me/apns_device_token', { token: 'c'.repeat(4098), appid: 'org.zulip.Zulip' }), 'Empty or invalid length token');
  err(await ann.post('users/me/apns_device_token', { token: 'not-hex', appid: 'org.zulip.Zulip' }), 'Invalid APNS token');
  err(await ann.post('users/me/apns_device_token', { token: 'c0ffee', appid: 'org zulip' }), 'Invalid app ID');

  await ann.ok('POST', 'users/me/apns_device_token', { token: 'c0ffee', appid: 'org.zulip.Zulip' });
  await ann.ok('POST', 'users/me/apns_device_token', { token: 'c0ffee', appid: 'org.zulip.Zulip' });
  // Ben cannot remove Ann's token.
  err(await ben.delete('users/me/apns_device_token', { token: 'c0ffee' }), 'Token does not exist');
  await ann.ok('DELETE', 'users/me/apns_device_token', { token: 'c0ffee' });
  err(await ann.delete('users/me/apns_device_token', { token: 'c0ffee' }), 'Token does not exist');
  err(await ann.delete('users/me/apns_device_token', { token: '' }), 'Empty or invalid length token');
});

test('FCM tokens: any non-empty token up to 4096 characters', async () => {
  err(await ann.post('users/me/android_gcm_reg_id', {}), "Missing 'token' argument", 'REQUEST_VARIABLE_MISSING');
  err(await ann.post('users/me/android_gcm_reg_id', { token: '' }), 'Empty or invalid length token');
  await ann.ok('POST', 'users/me/android_gcm_reg_id', { token: 'fcm:token-1' });
  err(await ann.delete('users/me/apns_device_token', { token: 'aa' }), 'Token does not exist');
  err(await ben.delete('users/me/android_gcm_reg_id', { token: 'fcm:token-1' }), 'Token does not exist');
  await ann.ok('DELETE', 'users/me/android_gcm_reg_id', { token: 'fcm:token-1' });
  err(await ann.delete('users/me/android_gcm_reg_id', { token: 'fcm:token-1' }), 'Token does not exist');
});

test('test notifications: device checks, then the unconfigured push service', async () => {
  err(await ben.post('mobile_push/test_notification'), 'No active registered push device', 'NO_ACTIVE_PUSH_DEVICE');
  await ben.ok('POST', 'users/me/android_gcm_reg_id', { token: 'ben-device' });
  err(await ben.post('mobile_push/test_notification', { token: 'someone-else' }), 'Device not recognized', 'INVALID_PUSH_DEVICE_TOKEN');
  const unconfigured = 'Server is not configured to use push notification service.';
  err(await ben.post('mobile_push/test_notification', { token: 'ben-device' }), unconfigured, 'PUSH_SERVICE_NOT_CONFIGURED');
  err(await ben.post('mobile_push/test_notification'), unconfigured, 'PUSH_SERVICE_NOT_CONFIGURED');
  // Ann cannot use Ben's device.
  err(await ann.post('mobile_push/test_notification', { token: 'ben-device' }), 'Device not recognized', 'INVALID_PUSH_DEVICE_TOKEN');

  assert.equal((await ben.post('mobile_push/e2ee/test_notification', { device_id: 'x' })).status, 400);
  err(await ben.post('mobile_push/e2ee/test_notification', { device_id: 3 }), unconfigured, 'PUSH_SERVICE_NOT_CONFIGURED');
  err(await ben.post('mobile_push/e2ee/test_notification'), unconfigured, 'PUSH_SERVICE_NOT_CONFIGURED');
});

test('without credentials: refused', async () => {
  const r = await fetch(new URL('/api/v1/users/me/android_gcm_reg_id', s.url), { method: 'POST', body: 'token=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  assert.equal(r.status, 401);
});

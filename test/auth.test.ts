// HTTP basics: envelopes, authentication failures, unknown paths and methods, parameter forms.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, request, type TestServer } from './helpers/server.js';

let s: TestServer;
before(async () => {
  s = await startTestServer();
});
after(async () => {
  await s.close();
});

test('GET /users/me returns the authenticated user in the success envelope', async () => {
  const r = await s.owner.get('users/me');
  assert.equal(r.status, 200);
  assert.equal(r.body.result, 'success');
  assert.equal(r.body.msg, '');
  assert.equal(r.body.user_id, s.owner.userId);
  assert.equal(r.body.email, 'owner@example.com');
  assert.equal(r.body.role, 100);
  assert.equal(r.body.is_owner, true);
});

test('missing credentials give 401 UNAUTHORIZED', async () => {
  const r = await request(s.url, 'GET', 'users/me');
  assert.equal(r.status, 401);
  assert.equal(r.body.result, 'error');
  assert.equal(r.body.code, 'UNAUTHORIZED');
});

test('a wrong API key gives 401 INVALID_API_KEY', async () => {
  const r = await request(s.url, 'GET', 'users/me', {}, { auth: { email: s.owner.email, apiKey: 'nope' } });
  assert.equal(r.status, 401);
  assert.equal(r.body.code, 'INVALID_API_KEY');
});

test('a right key with another email is refused', async () => {
  const bob = await s.user('Bob Auth');
  const r = await request(s.url, 'GET', 'users/me', {}, { auth: { email: s.owner.email, apiKey: bob.apiKey } });
  assert.equal(r.status, 401);
  assert.equal(r.body.code, 'INVALID_API_KEY');
});

test('a user of another organization cannot use this one', async () => {
  const other = await s.realm2('elsewhere');
  const ok = await other.owner.get('users/me');
  assert.equal(ok.status, 200);
  const r = await request(s.url, 'GET', 'users/me', {}, { auth: { email: other.owner.email, apiKey: other.owner.apiKey } });
  assert.equal(r.status, 401);
});

test('a deactivated user gets USER_DEACTIVATED', async () => {
  const carl = await s.user('Carl Gone');
  await s.running.app.store.db.updateTable('users').set({ is_active: 0 }).where('id', '=', carl.userId).execute();
  const r = await carl.get('users/me');
  assert.equal(r.status, 401);
  assert.equal(r.body.code, 'USER_DEACTIVATED');
});

test('unknown paths give a JSON 404 and wrong methods a JSON 405', async () => {
  const r = await s.owner.get('no/such/endpoint');
  assert.equal(r.status, 404);
  assert.equal(r.body.result, 'error');
  const m = await s.owner.api('PUT', 'users/me');
  assert.equal(m.status, 405);
  assert.equal(m.body.result, 'error');
});

test('POST /fetch_api_key exchanges a password for the API key', async () => {
  const r = await request(s.url, 'POST', 'fetch_api_key', { username: 'owner@example.com', password: 'owner-password' });
  assert.equal(r.status, 200);
  assert.equal(r.body.api_key, s.owner.apiKey);
  assert.equal(r.body.user_id, s.owner.userId);
  const bad = await request(s.url, 'POST', 'fetch_api_key', { username: 'owner@example.com', password: 'wrong' });
  assert.equal(bad.status, 401);
  assert.equal(bad.body.code, 'AUTHENTICATION_FAILED');
  const missing = await request(s.url, 'POST', 'fetch_api_key', { username: 'owner@example.com' });
  assert.equal(missing.status, 400);
  assert.equal(missing.body.code, 'REQUEST_VARIABLE_MISSING');
});

test('unknown parameters are reported in ignored_parameters_unsupported', async () => {
  const r = await s.owner.get('users/me', { frobnicate: 'yes' });
  assert.equal(r.status, 200);
  assert.deepEqual(r.body.ignored_parameters_unsupported, ['frobnicate']);
});

test('repeated wrong passwords are rate-limited, even for the right one afterwards', async () => {
  await s.user('Rita Limited');
  for (let i = 0; i < 10; i++) {
    const r = await request(s.url, 'POST', 'fetch_api_key', { username: 'rita.limited@example.com', password: 'guess' + i });
    assert.equal(r.status, 401);
  }
  const blocked = await request(s.url, 'POST', 'fetch_api_key', { username: 'rita.limited@example.com', password: 'rita.limited-password' });
  assert.equal(blocked.status, 429);
  assert.equal(blocked.body.code, 'RATE_LIMIT_HIT');
  assert.equal(typeof blocked.body['retry-after'], 'number');
  const other = await request(s.url, 'POST', 'fetch_api_key', { username: 'owner@example.com', password: 'owner-password' });
  assert.equal(other.status, 200, 'other accounts are not affected');
});

test('parameters arrive as query string and multipart too', async () => {
  const q = await request(s.url, 'POST', 'fetch_api_key', { username: 'owner@example.com', password: 'owner-password' }, { as: 'query' });
  assert.equal(q.status, 200);
  assert.equal(q.body.api_key, s.owner.apiKey);
  const m = await request(s.url, 'POST', 'fetch_api_key', { username: 'owner@example.com', password: 'owner-password' }, { as: 'multipart' });
  assert.equal(m.status, 200);
  assert.equal(m.body.api_key, s.owner.apiKey);
});

test('malformed bodies and headers get 4xx JSON errors', async () => {
  const badAuth = await request(s.url, 'GET', 'users/me', {}, { headers: { authorization: 'Basic !!!' } });
  assert.equal(badAuth.status, 401);
  assert.equal(badAuth.body.result, 'error');
  const badMultipart = await request(s.url, 'POST', 'fetch_api_key', {}, { rawBody: 'garbage', headers: { 'content-type': 'multipart/form-data' } });
  assert.equal(badMultipart.status, 400);
  assert.equal(badMultipart.body.result, 'error');
});

test('PARLEY_LOG_REQUESTS=1 (as operators set it) logs one JSON line per request', async () => {
  const lines: string[] = [];
  const logged = await startTestServer({ env: { PARLEY_LOG_REQUESTS: '1' }, logStream: { write: (l: string) => void lines.push(l) } });
  try {
    await logged.owner.get('users/me');
  } finally {
    await logged.close();
  }
  const requests = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.msg === 'request');
  assert.equal(requests.length, 1, lines.join(''));
  assert.equal(requests[0].route, '/api/v1/users/me');
  assert.equal(requests[0].method, 'GET');
  assert.equal(requests[0].status, 200);
});

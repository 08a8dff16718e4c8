// The web client's sign-in: session cookie, CSRF protection, log out, password reset by mail.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, encodeParams, type TestServer } from './helpers/server.js';
import { mailedKey } from './helpers/outbox.js';

let s: TestServer;
before(async () => {
  s = await startTestServer();
});
after(async () => {
  await s.close();
});

interface Answer {
  status: number;
  body: Record<string, any>;
  headers: Headers;
}

/** A same-origin browser request: form body, the cookie if any, and extra headers. */
async function call(method: string, path: string, params: Record<string, string> = {}, headers: Record<string, string> = {}): Promise<Answer> {
  const body = method === 'GET' ? undefined : encodeParams(params);
  const url = s.url + path + (method === 'GET' && Object.keys(params).length ? '?' + encodeParams(params) : '');
  const r = await fetch(url, { method, body, headers: { ...(body !== undefined ? { 'content-type': 'application/x-www-form-urlencoded' } : {}), ...headers } });
  return { status: r.status, body: (await r.json()) as Record<string, any>, headers: r.headers };
}

async function login(email: string, password: string): Promise<{ cookie: string; csrf: string }> {
  const r = await call('POST', '/accounts/login', { username: email, password });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const cookie = r.headers.get('set-cookie')!.split(';')[0];
  return { cookie, csrf: r.body.csrf_token as string };
}

test('logging in sets an HttpOnly, SameSite=Lax session cookie and returns no API key', async () => {
  const r = await call('POST', '/accounts/login', { username: 'owner@example.com', password: 'owner-password' });
  assert.equal(r.status, 200);
  assert.equal(r.body.result, 'success');
  assert.equal(r.body.user_id, s.owner.userId);
  assert.equal(typeof r.body.csrf_token, 'string');
  assert.ok(!JSON.stringify(r.body).includes(s.owner.apiKey), 'the API key never reaches the page');
  const cookie = r.headers.get('set-cookie')!;
  assert.match(cookie, /^parley_session=[\w-]{20,}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=\d+$/);
  assert.doesNotMatch(cookie, /Secure/, 'no Secure attribute over plain HTTP');
});

test('a wrong password is refused with AUTHENTICATION_FAILED and no cookie', async () => {
  const r = await call('POST', '/accounts/login', { username: 'owner@example.com', password: 'nope' });
  assert.equal(r.status, 401);
  assert.equal(r.body.code, 'AUTHENTICATION_FAILED');
  assert.equal(r.headers.get('set-cookie'), null);
  const missing = await call('POST', '/accounts/login', { username: 'owner@example.com' });
  assert.equal(missing.status, 400);
  assert.equal(missing.body.code, 'REQUEST_VARIABLE_MISSING');
});

test('the API accepts the cookie; state changes need the CSRF token', async () => {
  const { cookie, csrf } = await login('owner@example.com', 'owner-password');
  const me = await call('GET', '/api/v1/users/me', {}, { cookie });
  assert.equal(me.status, 200);
  assert.equal(me.body.user_id, s.owner.userId);

  const msg = { type: 'stream', to: 'general', topic: 'web', content: 'forged' };
  const without = await call('POST', '/api/v1/messages', msg, { cookie });
  assert.equal(without.status, 403);
  assert.equal(without.body.code, 'CSRF_FAILED');
  const wrong = await call('POST', '/api/v1/messages', msg, { cookie, 'x-csrf-token': csrf + 'x' });
  assert.equal(wrong.status, 403);
  const recent = await s.owner.get('messages', { anchor: 'newest', num_before: 5, num_after: 0, narrow: [] });
  assert.ok(!recent.body.messages.some((m: { content: string }) => m.content.includes('forged')), 'nothing was sent');

  const sent = await call('POST', '/api/v1/messages', { type: 'stream', to: 'general', topic: 'web', content: 'from the browser' }, { cookie, 'x-csrf-token': csrf });
  assert.equal(sent.status, 200, JSON.stringify(sent.body));
  const got = await s.owner.get(`messages/${sent.body.id}`);
  assert.equal(got.body.message.content, '<p>from the browser</p>');
});

test('another site cannot use the cookie, even with a GET', async () => {
  const { cookie, csrf } = await login('owner@example.com', 'owner-password');
  const cross = await call('GET', '/api/v1/users/me', {}, { cookie, 'sec-fetch-site': 'cross-site' });
  assert.equal(cross.status, 403);
  const origin = await call('POST', '/api/v1/messages', { type: 'stream', to: 'general', topic: 'web', content: 'x' }, { cookie, 'x-csrf-token': csrf, origin: 'https://evil.example' });
  assert.equal(origin.status, 403);
  assert.equal(origin.body.code, 'CSRF_FAILED');
  const loginFromElsewhere = await call('POST', '/accounts/login', { username: 'owner@example.com', password: 'owner-password' }, { origin: 'https://evil.example' });
  assert.equal(loginFromElsewhere.status, 403);
});

test('the session endpoint gives the CSRF token back; logging out ends the session', async () => {
  const { cookie, csrf } = await login('owner@example.com', 'owner-password');
  const sess = await call('GET', '/accounts/session', {}, { cookie });
  assert.equal(sess.body.csrf_token, csrf);
  const refused = await call('POST', '/accounts/logout', {}, { cookie });
  assert.equal(refused.status, 403, 'logging out needs the CSRF token too');
  const out = await call('POST', '/accounts/logout', {}, { cookie, 'x-csrf-token': csrf });
  assert.equal(out.status, 200);
  assert.match(out.headers.get('set-cookie')!, /^parley_session=; .*Max-Age=0/);
  const after = await call('GET', '/api/v1/users/me', {}, { cookie });
  assert.equal(after.status, 401);
  assert.equal((await call('GET', '/accounts/session', {}, { cookie })).status, 401);
});

test('a forgotten password: a mailed link sets a new one once, and signs every session out', async () => {
  const dana = await s.user('Dana Reset');
  const old = await login(dana.email, 'dana.reset-password');
  const unknown = await call('POST', '/accounts/password/reset', { email: 'nobody@example.com' });
  assert.equal(unknown.status, 200, 'the same answer for unknown addresses');
  const r = await call('POST', '/accounts/password/reset', { email: dana.email });
  assert.equal(r.status, 200);
  const key = mailedKey(s, dana.email, /\/reset-password\?key=([\w-]+)/);
  const weak = await call('POST', '/accounts/password/set', { key, new_password: 'abc' });
  assert.equal(weak.status, 400);
  const set = await call('POST', '/accounts/password/set', { key, new_password: 'a-new-password' });
  assert.equal(set.status, 200, JSON.stringify(set.body));
  assert.equal((await call('POST', '/accounts/password/set', { key, new_password: 'another-one' })).status, 400, 'the link works once');
  assert.equal((await call('GET', '/api/v1/users/me', {}, { cookie: old.cookie })).status, 401, 'the old session ended');
  assert.equal((await call('POST', '/accounts/login', { username: dana.email, password: 'dana.reset-password' })).status, 401);
  await login(dana.email, 'a-new-password');
});

test('server paths are never shadowed by the client pages', async () => {
  for (const path of ['/api/v1/no-such-endpoint', '/json/users/me', '/user_uploads/1/ab/x.txt']) {
    const r = await fetch(s.url + path);
    assert.match(r.headers.get('content-type') ?? '', /application\/json/, path);
    assert.ok(r.status === 404 || r.status === 401, `${path}: ${r.status}`);
  }
});

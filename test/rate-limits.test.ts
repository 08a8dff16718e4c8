// Request rate limits: per user for the API, per IP without credentials, stricter for logins, the X-RateLimit-* headers and 429 RATE_LIMIT_HIT; shared by two nodes on Redis and on PostgreSQL.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '../src/config.js';
import { RequestRateLimits } from '../src/lib/request-rate-limits.js';
import { request, startTestServer, type ApiResponse, type Client, type TestServer } from './helpers/server.js';

const servers: TestServer[] = [];
after(async () => {
  for (const s of servers) await s.close();
});

async function server(env: Record<string, string>): Promise<TestServer> {
  const s = await startTestServer({ env });
  servers.push(s);
  return s;
}

const nowSecs = () => Math.floor(Date.now() / 1000);

/** The headers and answer of a request refused by a limit, as the original sends them. */
function assertLimited(r: ApiResponse, limit: number, windowSecs: number): void {
  assert.equal(r.status, 429, JSON.stringify(r.body));
  assert.equal(r.body.result, 'error');
  assert.equal(r.body.code, 'RATE_LIMIT_HIT');
  assert.equal(r.body.msg, 'API usage exceeded rate limit');
  const retry = r.body['retry-after'] as number;
  assert.ok(typeof retry === 'number' && retry > 0 && retry <= windowSecs, String(retry));
  assert.equal(Number(r.headers['retry-after']), Math.ceil(retry));
  assert.equal(r.headers['x-ratelimit-limit'], String(limit));
  assert.equal(r.headers['x-ratelimit-remaining'], '0');
  const reset = Number(r.headers['x-ratelimit-reset']);
  assert.ok(reset >= nowSecs() && reset <= nowSecs() + windowSecs + 1, String(reset));
}

test('per user: the limit, the remaining count and the reset time in headers; then 429 with retry-after; other users and long-polls unaffected', async () => {
  const s = await server({ PARLEY_RATE_LIMIT_API: '5/60' });
  const ann = await s.user('Ann Limited');
  const bo = await s.user('Bo Unlimited');
  const queue = (await bo.ok('POST', 'register', { event_types: ['message'] })).queue_id as string;
  for (let i = 0; i < 5; i++) {
    const r = await ann.get('users/me');
    assert.equal(r.status, 200);
    assert.equal(r.headers['x-ratelimit-limit'], '5');
    assert.equal(r.headers['x-ratelimit-remaining'], String(4 - i));
    const reset = Number(r.headers['x-ratelimit-reset']);
    assert.ok(reset > nowSecs() && reset <= nowSecs() + 61, String(reset));
  }
  assertLimited(await ann.get('users/me'), 5, 60);
  // A POST over the limit is refused before its body is looked at; nothing is sent.
  assertLimited(await ann.post('messages', { type: 'direct', to: [ann.userId], content: 'over the limit' }), 5, 60);
  const sent = await s.running.app.store.db.selectFrom('messages').select('id').where('content', '=', 'over the limit').execute();
  assert.deepEqual(sent, []);
  // Bo used one request (register); his long-polls are not counted.
  for (let i = 0; i < 10; i++) assert.equal((await bo.get('events', { queue_id: queue, last_event_id: -1, dont_block: true })).status, 200);
  const boMe = await bo.get('users/me');
  assert.equal(boMe.status, 200);
  assert.equal(boMe.headers['x-ratelimit-remaining'], '3');
});

test('per IP: requests without credentials, and refused credentials, share one limit; logins have their stricter own', async () => {
  const s = await server({ PARLEY_RATE_LIMIT_UNAUTHENTICATED: '3/60', PARLEY_RATE_LIMIT_AUTHENTICATION: '2/120' });
  const cy = await s.user('Cy Guessed');
  const anonymous = (path: string) => request(s.url, 'GET', path, {});
  assert.equal((await anonymous('server_settings')).headers['x-ratelimit-remaining'], '2');
  assert.equal((await anonymous('users/me')).status, 401);
  const wrongKey = await request(s.url, 'GET', 'users/me', {}, { auth: { email: cy.email, apiKey: 'not-the-key' } });
  assert.deepEqual([wrongKey.status, wrongKey.headers['x-ratelimit-remaining']], [401, '0']);
  assertLimited(await anonymous('server_settings'), 3, 60);
  // Cy's own requests count against Cy, not against the address.
  assert.equal((await cy.get('users/me')).status, 200);

  const login = (password: string) => request(s.url, 'POST', 'fetch_api_key', { username: cy.email, password });
  assert.equal((await login('cy.guessed-password')).status, 200);
  assert.equal((await login('wrong')).status, 401);
  assertLimited(await login('cy.guessed-password'), 2, 120);
});

test('PARLEY_RATE_LIMIT_* are checked at start-up', async () => {
  assert.throws(() => loadConfig({}, { PARLEY_RATE_LIMIT_API: 'lots' }), /PARLEY_RATE_LIMIT_API/);
  assert.throws(() => loadConfig({}, { PARLEY_RATE_LIMIT_AUTHENTICATION: '0/60' }), /PARLEY_RATE_LIMIT_AUTHENTICATION/);
  const memcached = loadConfig({}, { PARLEY_RATE_LIMIT_STORE: 'memcached://x' }).rateLimits;
  await assert.rejects(RequestRateLimits.open(memcached, '', 'x'), /PARLEY_RATE_LIMIT_STORE/);
  await assert.rejects(RequestRateLimits.open({ ...memcached, store: 'database' }, '', 'x'), /needs PostgreSQL/);
  assert.deepEqual(loadConfig({}, {}).rateLimits, { store: 'memory', apiPerUser: { points: 200, secs: 60 }, unauthenticatedPerIp: { points: 100, secs: 60 }, authenticationPerIp: { points: 10, secs: 60 } });
  // "off" lifts a limit: no headers.
  const s = await server({ PARLEY_RATE_LIMIT_API: 'off' });
  const r = await s.owner.get('users/me');
  assert.equal(r.status, 200);
  assert.equal(r.headers['x-ratelimit-limit'], undefined);
});

for (const store of ['redis://127.0.0.1:6379', 'database']) {
  test(`two nodes sharing a database count one limit (PARLEY_RATE_LIMIT_STORE=${store})`, async (t) => {
    if (!process.env.PARLEY_TEST_PG_URL) {
      // Nodes share a deployment through PostgreSQL; an SQLite file belongs to one node.
      t.skip('several nodes share a PostgreSQL database only');
      return;
    }
    const s = await server({ PARLEY_RATE_LIMIT_API: '6/60', PARLEY_RATE_LIMIT_STORE: store });
    const peer = await s.peer({});
    try {
      const dee: Client = await s.user('Dee Two Nodes');
      const viaPeer = () => request(peer.url, 'GET', 'users/me', {}, { auth: { email: dee.email, apiKey: dee.apiKey } });
      const seen: string[] = [];
      for (let i = 0; i < 3; i++) {
        seen.push((await dee.get('users/me')).headers['x-ratelimit-remaining'] as string);
        seen.push((await viaPeer()).headers['x-ratelimit-remaining'] as string);
      }
      assert.deepEqual(seen, ['5', '4', '3', '2', '1', '0']);
      assertLimited(await viaPeer(), 6, 60);
      assertLimited(await dee.get('users/me'), 6, 60);
      // Another deployment on the same store counts apart.
      const other = await server({ PARLEY_RATE_LIMIT_API: '6/60', PARLEY_RATE_LIMIT_STORE: store });
      const dee2 = await other.user('Dee Two Nodes');
      assert.equal(dee2.userId, dee.userId, 'the same user ID in both deployments');
      assert.equal((await dee2.get('users/me')).headers['x-ratelimit-remaining'], '5');
    } finally {
      await peer.close();
    }
  });
}

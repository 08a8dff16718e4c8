// HTTP/1.1 as an attacker sends it, on the lean server and with it switched off (PARLEY_LEAN_HTTP=0): nothing read after Connection: close, HEAD, bare line feeds, slow heads and bodies timed out.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, encodeParams, type Client, type TestServer } from './helpers/server.js';
import { RawClient, basicAuth } from './helpers/raw-http.js';

/**
 * Short timeouts, so that the slow-client cases end within the test; not so short that a loaded
 * machine delays a client's first bytes past them.
 */
const TIMEOUTS = { PARLEY_HEADERS_TIMEOUT_MS: '2000', PARLEY_REQUEST_TIMEOUT_MS: '3000' };

const modes = [
  { name: 'lean', env: { ...TIMEOUTS } },
  { name: 'PARLEY_LEAN_HTTP=0', env: { ...TIMEOUTS, PARLEY_LEAN_HTTP: '0' } },
];

const servers = new Map<string, { s: TestServer; ana: Client; port: number; auth: string }>();

before(async () => {
  for (const m of modes) {
    const s = await startTestServer({ env: m.env });
    const ana = await s.user('Ana Hardened');
    servers.set(m.name, { s, ana, port: Number(new URL(s.url).port), auth: basicAuth(ana.email, ana.apiKey) });
  }
});
after(async () => {
  for (const { s } of servers.values()) await s.close();
});

async function messagesWith(s: TestServer, content: string): Promise<number> {
  const rows = await s.running.app.store.db.selectFrom('messages').select('id').where('content', '=', content).execute();
  return rows.length;
}

for (const m of modes) {
  const env = () => servers.get(m.name)!;

  test(`${m.name}: a request pipelined after Connection: close is never executed`, { timeout: 60_000 }, async () => {
    const { s, ana, port, auth } = env();
    const content = `after close ${m.name}`;
    const body = encodeParams({ type: 'direct', to: [ana.userId], content });
    const c = new RawClient(port);
    // One write: an anonymous GET asking to close, then an authenticated send.
    c.send(
      'GET /api/v1/users/me HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n' +
        `POST /api/v1/messages HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${auth}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    );
    const a = await c.next();
    // The lean server answers the GET; Node's parser refuses the bytes after the close (400) instead.
    assert.equal(a.status, m.name === 'lean' ? 401 : 400, a.body);
    await c.closed();
    assert.equal(c.received.split('HTTP/1.1 ').length - 1, 1, 'one answer only');
    // Sends after the closed connection commit, and whatever the server had taken before is done by then.
    for (let i = 0; i < 3; i++) await ana.ok('POST', 'messages', { type: 'direct', to: [ana.userId], content: `marker ${i}` });
    assert.equal(await messagesWith(s, content), 0);
  });

  test(`${m.name}: HEAD is answered by Node's rules: the GET's status and headers, no body`, { timeout: 60_000 }, async () => {
    const { port, auth } = env();
    const c = new RawClient(port);
    c.send(`HEAD /api/v1/users/me HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${auth}\r\nConnection: close\r\n\r\n`);
    await c.closed();
    const [head, rest] = c.received.split('\r\n\r\n');
    assert.match(head, /^HTTP\/1\.1 \d{3} /);
    assert.equal(rest, '', 'no body after the head');
  });

  test(`${m.name}: a head with bare line feeds is refused with 400 at once`, { timeout: 60_000 }, async () => {
    const { port } = env();
    for (const text of ['GET /api/v1/users/me HTTP/1.1\nHost: localhost\n\n', 'GET /api/v1/users/me HTTP/1.1\r\nHost: localhost\n\r\n', 'GET /api/v1/users/me HTTP/1.1\r\nHost: localhost\r\n\n']) {
      const c = new RawClient(port);
      c.send(text);
      // 400, not the 408 the headers timeout would give a head waiting for its end.
      assert.equal((await c.next()).status, 400, JSON.stringify(text));
      await c.closed();
    }
  });

  test(`${m.name}: a head trickled in is ended with 408 by the headers timeout`, { timeout: 60_000 }, async () => {
    const { port } = env();
    const c = new RawClient(port);
    const text = 'GET /api/v1/users/me HTTP/1.1\r\nHost: localhost\r\nX-Slow: ' + 'a'.repeat(200);
    let i = 0;
    const timer = setInterval(() => c.send(text[i++ % text.length]), 100).unref();
    try {
      assert.equal((await c.next()).status, 408);
      await c.closed();
    } finally {
      clearInterval(timer);
    }
  });

  test(`${m.name}: a chunked body trickled one byte at a time is ended by the request timeout`, { timeout: 60_000 }, async () => {
    const { port, auth } = env();
    const c = new RawClient(port);
    c.send(`POST /api/v1/messages HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${auth}\r\nContent-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\n\r\n`);
    const timer = setInterval(() => c.send('1\r\na\r\n'), 100).unref();
    try {
      await c.closed();
      assert.match(c.received, /^HTTP\/1\.1 408 /);
    } finally {
      clearInterval(timer);
    }
  });

  test(`${m.name}: a Content-Length body trickled one byte at a time is ended by the request timeout`, { timeout: 60_000 }, async () => {
    const { port, auth } = env();
    const c = new RawClient(port);
    c.send(`POST /api/v1/messages HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${auth}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\n`);
    const timer = setInterval(() => c.send('a'), 100).unref();
    try {
      await c.closed();
      assert.match(c.received, /^HTTP\/1\.1 408 /);
    } finally {
      clearInterval(timer);
    }
  });
}

test('PARLEY_LEAN_HTTP=0 serves HTTP/1.1 through Node\'s server (its header order), the default through the lean one', async () => {
  const lengthBeforeType = async (name: string) => {
    const { port, auth } = servers.get(name)!;
    const c = new RawClient(port);
    c.send(`GET /api/v1/users/me HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${auth}\r\n\r\n`);
    const a = await c.next();
    c.socket.destroy();
    assert.equal(a.status, 200);
    const names = a.head.split('\r\n').slice(1).map((l) => l.split(':')[0].toLowerCase());
    return names.indexOf('content-length') < names.indexOf('content-type');
  };
  // Node's path is given the length first (server.ts send); the lean server appends it after the view's headers.
  assert.equal(await lengthBeforeType('PARLEY_LEAN_HTTP=0'), true);
  assert.equal(await lengthBeforeType('lean'), false);
});

// Request logs (fields, X-Request-Id, no secrets) through each of the three servers, /healthz, /readyz and /metrics (on, off, loopback, token).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import http2 from 'node:http2';
import net from 'node:net';
import os from 'node:os';
import { startTestServer, encodeParams, type Client, type TestServer } from './helpers/server.js';

/** Collects a server's log lines (pino writes one JSON line per call). */
class LogCapture {
  readonly lines: Record<string, any>[] = [];
  readonly raw: string[] = [];
  write(s: string): void {
    this.raw.push(s);
    for (const line of s.split('\n')) if (line) this.lines.push(JSON.parse(line) as Record<string, any>);
  }
  requests(): Record<string, any>[] {
    return this.lines.filter((l) => l.msg === 'request');
  }
  /** The request line with this id: it is written when the answer is, before the client reads it. */
  byId(id: string): Record<string, any> {
    const found = this.lines.filter((l) => l.req_id === id && l.msg === 'request');
    assert.equal(found.length, 1, `one request line for ${id}: ${this.raw.join('')}`);
    return found[0];
  }
}

interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/** HTTP/1.1 on a connection of its own. chunked: the body goes without a length, which only Node's server takes (the lean one hands the connection over). */
function h1(base: string, method: string, path: string, opts: { headers?: Record<string, string>; body?: string; chunked?: boolean; host?: string } = {}): Promise<RawAnswer> {
  const url = new URL(base);
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.body !== undefined) {
    headers['content-type'] ??= 'application/x-www-form-urlencoded';
    if (!opts.chunked) headers['content-length'] = String(Buffer.byteLength(opts.body));
  }
  return new Promise((resolve, reject) => {
    const req = http.request({ host: opts.host ?? url.hostname, port: url.port, method, path, headers, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on('error', reject);
    if (opts.body !== undefined) {
      if (opts.chunked) req.write(opts.body.slice(0, 3));
      req.write(opts.body.slice(opts.chunked ? 3 : 0));
    }
    req.end();
  });
}

function h2(base: string, path: string, headers: Record<string, string> = {}): Promise<RawAnswer> {
  const session = http2.connect(base);
  return new Promise<RawAnswer>((resolve, reject) => {
    const stream = session.request({ ':method': 'GET', ':path': path, ...headers });
    let text = '';
    let responseHeaders: http2.IncomingHttpHeaders = {};
    stream.setEncoding('utf8');
    stream.on('response', (h) => (responseHeaders = h));
    stream.on('data', (d: string) => (text += d));
    stream.on('end', () => resolve({ status: Number(responseHeaders[':status']), headers: responseHeaders as http.IncomingHttpHeaders, text }));
    stream.on('error', reject);
  }).finally(() => session.close());
}

const basic = (c: Client) => 'Basic ' + Buffer.from(`${c.email}:${c.apiKey}`).toString('base64');

let s: TestServer;
let logs: LogCapture;
let ana: Client;

before(async () => {
  logs = new LogCapture();
  s = await startTestServer({ logStream: logs, env: { PARLEY_METRICS: '1', PARLEY_LOG_REQUESTS: '1' } });
  ana = await s.user('Ana Logged');
});
after(async () => {
  await s.close();
});

test('a request through the lean HTTP/1.1 server logs one line with its route pattern, status, duration, user and request id', async () => {
  const r = await h1(s.url, 'GET', `/api/v1/users/${s.owner.userId}?client_gravatar=true`, { headers: { authorization: basic(ana) } });
  assert.equal(r.status, 200);
  const id = r.headers['x-request-id'] as string;
  assert.match(id, /^\S{3,}$/);
  const line = logs.byId(id);
  assert.equal(line.method, 'GET');
  assert.equal(line.route, '/api/v1/users/{user_id}', 'the pattern, not the path with its id');
  assert.equal(line.status, 200);
  assert.equal(typeof line.ms, 'number');
  assert.ok(line.ms >= 0);
  assert.equal(line.user_id, ana.userId);
  assert.equal(line.level, 30);
  assert.equal(typeof line.time, 'number');
});

test("a request Node's HTTP/1.1 server takes (a chunked body) logs the same line and echoes the id", async () => {
  const body = encodeParams({ type: 'channel', to: 'general', topic: 'logs', content: 'through node:http' });
  const r = await h1(s.url, 'POST', '/api/v1/messages', { headers: { authorization: basic(ana), 'x-request-id': 'node-h1-req.1' }, body, chunked: true });
  assert.equal(r.headers['x-request-id'], 'node-h1-req.1');
  const line = logs.byId('node-h1-req.1');
  assert.equal(line.method, 'POST');
  assert.equal(line.route, '/api/v1/messages');
  assert.equal(line.status, r.status);
  assert.equal(line.user_id, ana.userId);
});

test('a request over HTTP/2 logs the same line and echoes the id', async () => {
  const r = await h2(s.url, '/api/v1/users/me', { authorization: basic(s.owner) });
  assert.equal(r.status, 200);
  const id = r.headers['x-request-id'] as string;
  assert.ok(id);
  const line = logs.byId(id);
  assert.equal(line.route, '/api/v1/users/me');
  assert.equal(line.status, 200);
  assert.equal(line.user_id, s.owner.userId);
  const given = await h2(s.url, '/healthz', { 'x-request-id': 'h2-probe' });
  assert.equal(given.headers['x-request-id'], 'h2-probe');
  assert.equal(logs.byId('h2-probe').route, '/healthz');
});

test('a sane incoming X-Request-Id is kept; anything else is replaced by a generated one', async () => {
  const kept = await h1(s.url, 'GET', '/healthz', { headers: { 'x-request-id': 'lb-7f3a:42' } });
  assert.equal(kept.headers['x-request-id'], 'lb-7f3a:42');
  for (const bad of ['has space', 'x'.repeat(200), 'quote"d', '']) {
    const r = await h1(s.url, 'GET', '/healthz', { headers: { 'x-request-id': bad } });
    const id = r.headers['x-request-id'] as string;
    assert.ok(id && id !== bad, `replaced: ${JSON.stringify(bad)}`);
    assert.match(id, /^[A-Za-z0-9._:+/=@-]+$/);
    assert.equal(logs.byId(id).status, 200);
  }
  // Generated ids differ from request to request.
  const a = await h1(s.url, 'GET', '/healthz');
  const b = await h1(s.url, 'GET', '/healthz');
  assert.notEqual(a.headers['x-request-id'], b.headers['x-request-id']);
});

test('errors are logged with their status; unknown paths under one route label', async () => {
  const unauth = await h1(s.url, 'GET', '/api/v1/users/me');
  assert.equal(unauth.status, 401);
  assert.equal(logs.byId(unauth.headers['x-request-id'] as string).status, 401);
  const missing = await h1(s.url, 'GET', '/api/v1/no/such/thing/12345');
  assert.equal(missing.status, 404);
  const line = logs.byId(missing.headers['x-request-id'] as string);
  assert.equal(line.route, 'unmatched');
  assert.equal(line.status, 404);
});

test('no secret reaches the log: API keys, passwords, Authorization and Cookie headers, query-string keys', async () => {
  const from = logs.raw.length;
  const password = 'ana.logged-password';
  const fetched = await h1(s.url, 'POST', '/api/v1/fetch_api_key', { body: encodeParams({ username: ana.email, password }), headers: { cookie: 'sessionid=cookie-secret-value' } });
  assert.equal(fetched.status, 200);
  // The same through Node's server, and with the key in the query string.
  await h1(s.url, 'POST', '/api/v1/fetch_api_key', { body: encodeParams({ username: ana.email, password }), chunked: true });
  await h1(s.url, 'GET', `/api/v1/users/me?api_key=${ana.apiKey}&password=${password}`, { headers: { authorization: basic(ana) } });
  await h2(s.url, `/api/v1/users/me?api_key=${ana.apiKey}`, { authorization: basic(ana), cookie: 'csrftoken=cookie-secret-value' });
  const written = logs.raw.slice(from).join('');
  assert.equal(logs.raw.slice(from).length >= 4, true, 'the requests were logged');
  for (const secret of [ana.apiKey, password, basic(ana), basic(ana).slice(6), 'cookie-secret-value', 'api_key=', 'authorization', 'cookie']) {
    assert.ok(!written.toLowerCase().includes(secret.toLowerCase()), `"${secret}" is not in ${written}`);
  }
});

test('GET /healthz answers 200 while the process is up; other methods get 405', async () => {
  const r = await h1(s.url, 'GET', '/healthz');
  assert.equal(r.status, 200);
  assert.deepEqual(JSON.parse(r.text), { status: 'ok' });
  const post = await h1(s.url, 'POST', '/healthz', { body: '' });
  assert.equal(post.status, 405);
  assert.equal(JSON.parse(post.text).result, 'error');
});

test('GET /readyz checks the database and the migrations (no bus check on a single node)', async () => {
  const r = await h1(s.url, 'GET', '/readyz');
  assert.equal(r.status, 200);
  assert.deepEqual(JSON.parse(r.text), { status: 'ready', checks: { database: 'ok', migrations: 'ok' } });
});

/** The Prometheus text, read from loopback. */
async function scrape(base: string): Promise<string> {
  const r = await h1(base, 'GET', '/metrics');
  assert.equal(r.status, 200, r.text);
  assert.match(String(r.headers['content-type']), /^text\/plain; version=0\.0\.4/);
  return r.text;
}

function sample(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(series + ' '));
  assert.ok(line, `${series} in\n${text}`);
  return Number(line.slice(series.length + 1));
}

test('/metrics: requests by route pattern and status with latency histograms, sends, queues, held polls, deliveries, loop delay and memory', async () => {
  const before = await scrape(s.url);
  const sendsBefore = sample(before, 'parley_send_commits_total');
  await ana.ok('GET', 'users/me');
  await ana.ok('GET', 'users/me');
  const bob = await s.user('Bob Listening');
  const reg = await bob.ok('POST', 'register', { event_types: ['message'] });
  // A poll held open, then answered by a send.
  const poll = bob.get('events', { queue_id: reg.queue_id, last_event_id: reg.last_event_id });
  let held = 0;
  for (let i = 0; i < 200 && held < 1; i++) {
    held = sample(await scrape(s.url), 'parley_held_long_polls');
    if (held < 1) await new Promise((r) => setTimeout(r, 10));
  }
  assert.equal(held, 1, 'the held poll is counted');
  await ana.ok('POST', 'messages', { type: 'direct', to: [bob.userId], content: 'counted' });
  const answered = await poll;
  assert.equal(answered.status, 200);
  const text = await scrape(s.url);
  assert.ok(sample(text, 'parley_http_requests_total{route="/api/v1/users/me",method="GET",status="200"}') >= 2);
  assert.ok(sample(text, 'parley_http_request_duration_seconds_count{route="/api/v1/users/me",method="GET",status="200"}') >= 2);
  assert.ok(sample(text, 'parley_http_request_duration_seconds_bucket{route="/api/v1/users/me",method="GET",status="200",le="+Inf"}') >= 2);
  assert.equal(sample(text, 'parley_http_requests_total{route="/api/v1/events",method="GET",status="200"}'), 1);
  assert.equal(sample(text, 'parley_send_commits_total'), sendsBefore + 1);
  assert.ok(sample(text, 'parley_events_delivered_total') >= 1);
  assert.ok(sample(text, 'parley_event_queues') >= 1);
  assert.equal(sample(text, 'parley_held_long_polls'), 0);
  assert.match(text, /^nodejs_eventloop_lag_p99_seconds \d/m);
  assert.match(text, /^process_resident_memory_bytes \d/m);
  assert.match(text, /^nodejs_heap_size_used_bytes \d/m);
  assert.doesNotMatch(text, /users\/\d/, 'no raw path becomes a label');
});

test('/metrics from a proxied caller (Forwarded, X-Forwarded-For) is refused without a token', async () => {
  for (const headers of [{ 'x-forwarded-for': '203.0.113.9' }, { forwarded: 'for=203.0.113.9' }] as Record<string, string>[]) {
    const r = await h1(s.url, 'GET', '/metrics', { headers });
    assert.equal(r.status, 403);
    assert.equal(JSON.parse(r.text).result, 'error');
  }
});

test('/metrics answers 404 when PARLEY_METRICS is off, as an unknown path', async () => {
  const off = await startTestServer();
  try {
    const r = await h1(off.url, 'GET', '/metrics');
    assert.equal(r.status, 404);
    assert.equal(JSON.parse(r.text).result, 'error');
    assert.equal((await h1(off.url, 'GET', '/healthz')).status, 200, 'health stays on');
  } finally {
    await off.close();
  }
});

/** An address of this machine other than loopback, if it has one. */
function externalAddress(): string | undefined {
  for (const list of Object.values(os.networkInterfaces())) for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  return undefined;
}

test('/metrics to others than loopback needs the bearer token', async () => {
  const token = 'metrics-token-' + Date.now();
  const open = await startTestServer({ env: { PARLEY_METRICS: '1', PARLEY_METRICS_TOKEN: token, PARLEY_HOST: '0.0.0.0' } });
  try {
    const base = new URL(open.url);
    const external = externalAddress();
    // A caller on another address, when this machine has one; a proxied caller always.
    const callers: { host?: string; headers: Record<string, string> }[] = [{ headers: { 'x-forwarded-for': '203.0.113.9' } }];
    if (external) callers.push({ host: external, headers: {} });
    for (const c of callers) {
      const url = `http://127.0.0.1:${base.port}`;
      const none = await h1(url, 'GET', '/metrics', { host: c.host, headers: c.headers });
      assert.equal(none.status, 401);
      assert.equal(none.headers['www-authenticate'], 'Bearer');
      const wrong = await h1(url, 'GET', '/metrics', { host: c.host, headers: { ...c.headers, authorization: `Bearer ${token}x` } });
      assert.equal(wrong.status, 401);
      const basicAuth = await h1(url, 'GET', '/metrics', { host: c.host, headers: { ...c.headers, authorization: 'Basic ' + Buffer.from(`x:${token}`).toString('base64') } });
      assert.equal(basicAuth.status, 401);
      const right = await h1(url, 'GET', '/metrics', { host: c.host, headers: { ...c.headers, authorization: `Bearer ${token}` } });
      assert.equal(right.status, 200);
      assert.match(right.text, /parley_http_requests_total/);
    }
    // Loopback needs none.
    assert.equal((await h1(`http://127.0.0.1:${base.port}`, 'GET', '/metrics')).status, 200);
  } finally {
    await open.close();
  }
});

test('PARLEY_LOG_LEVEL=warn and PARLEY_LOG_REQUESTS=0 leave request lines out; the id is still echoed', async () => {
  for (const env of [{ PARLEY_LOG_LEVEL: 'warn' }, { PARLEY_LOG_REQUESTS: '0' }] as Record<string, string>[]) {
    const quiet = new LogCapture();
    const q = await startTestServer({ logStream: quiet, env });
    try {
      const r = await h1(q.url, 'GET', '/api/v1/users/me', { headers: { authorization: basic(q.owner), 'x-request-id': 'quiet-1' } });
      assert.equal(r.status, 200);
      assert.equal(r.headers['x-request-id'], 'quiet-1');
      assert.deepEqual(quiet.requests(), [], JSON.stringify(env));
    } finally {
      await q.close();
    }
  }
});

test('an unexpected error is answered 500 and logged at error level with the request id; /readyz names the database', async () => {
  const broken = new LogCapture();
  const b = await startTestServer({ logStream: broken, env: { PARLEY_LOG_REQUESTS: '1' } });
  try {
    const owner = b.owner;
    await owner.ok('GET', 'users/me');
    // The database goes away under the server (what a lost disk or server does to it).
    await b.running.app.store.db.destroy();
    const r = await h1(b.url, 'GET', '/api/v1/messages?anchor=newest&num_before=5&num_after=0', { headers: { authorization: basic(owner), 'x-request-id': 'will-fail' } });
    assert.equal(r.status, 500);
    assert.equal(JSON.parse(r.text).msg, 'Internal server error');
    const error = broken.lines.find((l) => l.msg === 'unexpected error');
    assert.ok(error, broken.raw.join(''));
    assert.equal(error.level, 50);
    assert.equal(error.req_id, 'will-fail');
    assert.ok(error.err?.stack, 'the stack is logged');
    assert.equal(broken.byId('will-fail').status, 500);
    const ready = await h1(b.url, 'GET', '/readyz');
    assert.equal(ready.status, 503);
    const body = JSON.parse(ready.text);
    assert.equal(body.status, 'unavailable');
    assert.ok(body.failed.includes('database'), ready.text);
    assert.equal(body.checks.database, 'failed');
    assert.ok(broken.lines.some((l) => l.msg === 'readiness check failed' && l.check === 'database'));
  } finally {
    await b.close().catch(() => {});
  }
});

/** A TCP relay to NATS that can be cut and restored: the bus "goes down" without touching the shared NATS server. */
async function natsRelay(): Promise<{ url: string; cut(): void; restore(): Promise<void>; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  let server: net.Server;
  let port = 0;
  const listen = () =>
    new Promise<void>((resolve) => {
      server = net.createServer((client) => {
        const upstream = net.connect(4222, '127.0.0.1');
        for (const sock of [client, upstream]) {
          sockets.add(sock);
          sock.on('close', () => sockets.delete(sock));
          sock.on('error', () => sock.destroy());
        }
        client.pipe(upstream).pipe(client);
        client.on('close', () => upstream.destroy());
        upstream.on('close', () => client.destroy());
      });
      server.listen(port, '127.0.0.1', () => {
        port = (server.address() as net.AddressInfo).port;
        resolve();
      });
    });
  await listen();
  const stop = () =>
    new Promise<void>((resolve) => {
      for (const sock of sockets) sock.destroy();
      server.close(() => resolve());
    });
  return {
    url: `nats://127.0.0.1:${port}?subject=parley-readyz-${process.pid}-${Date.now()}`,
    cut: () => void stop(),
    restore: listen,
    close: stop,
  };
}

async function readyStatus(base: string): Promise<{ status: number; body: Record<string, any> }> {
  const r = await h1(base, 'GET', '/readyz');
  return { status: r.status, body: JSON.parse(r.text) as Record<string, any> };
}

/** Asks until the answer has this status (a reconnection takes the NATS client its own while). */
async function readyBecomes(base: string, status: number): Promise<Record<string, any>> {
  let last = await readyStatus(base);
  for (let i = 0; i < 300 && last.status !== status; i++) {
    await new Promise((r) => setTimeout(r, 50));
    last = await readyStatus(base);
  }
  assert.equal(last.status, status, JSON.stringify(last.body));
  return last.body;
}

// A bus joins several nodes, which needs PostgreSQL (SQLite with a bus is refused at start).
test('GET /readyz checks a configured bus: 503 naming "bus" while it is down, 200 once it is back', { skip: process.env.PARLEY_TEST_PG_URL ? false : 'a bus needs PostgreSQL; this runs in the PostgreSQL pass' }, async () => {
  const relay = await natsRelay();
  const b = await startTestServer({ env: { PARLEY_BUS_URL: relay.url } });
  try {
    const up = await readyStatus(b.url);
    assert.equal(up.status, 200);
    assert.deepEqual(up.body.checks, { database: 'ok', migrations: 'ok', bus: 'ok' });
    relay.cut();
    const down = await readyBecomes(b.url, 503);
    assert.deepEqual(down.failed, ['bus']);
    assert.equal(down.checks.database, 'ok');
    await relay.restore();
    const back = await readyBecomes(b.url, 200);
    assert.equal(back.checks.bus, 'ok');
  } finally {
    await b.close();
    await relay.close();
  }
});

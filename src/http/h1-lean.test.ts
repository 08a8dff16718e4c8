// Unit tests of the lean HTTP/1.1 server on real sockets: timeouts, closing, response headers, pausing, hand-over.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { LeanHttp1, type LeanRequest, type LeanResponse } from './h1-lean.js';

interface Harness {
  lean: LeanHttp1;
  port: number;
  handedOver: net.Socket[];
  close(): Promise<void>;
}

async function harness(onRequest: (req: LeanRequest, res: LeanResponse) => void, timeouts = { keepAliveTimeoutMs: 300, headersTimeoutMs: 300, requestTimeoutMs: 300 }): Promise<Harness> {
  const handedOver: net.Socket[] = [];
  const lean = new LeanHttp1({
    ...timeouts,
    onRequest,
    handOver(socket) {
      handedOver.push(socket);
      socket.resume();
      // Stands in for Node's server: echoes what it was given.
      socket.on('data', (d: Buffer) => socket.end(`HTTP/1.1 200 OK\r\nContent-Length: ${d.length}\r\nConnection: close\r\n\r\n${d.toString('latin1')}`));
    },
  });
  const server = net.createServer((socket) => socket.once('data', (first: Buffer) => lean.take(socket, first)));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    lean,
    port: (server.address() as net.AddressInfo).port,
    handedOver,
    async close() {
      lean.closeAll();
      lean.close();
      for (const socket of handedOver) socket.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}

/** Sends text and collects everything until the server closes the connection (or `ms` passes). */
function exchange(port: number, text: string, ms = 3000): Promise<{ got: string; closed: boolean }> {
  return new Promise((resolve) => {
    const sock = net.connect(port, '127.0.0.1');
    let got = '';
    const timer = setTimeout(() => {
      sock.destroy();
      resolve({ got, closed: false });
    }, ms);
    sock.on('data', (d: Buffer) => (got += d.toString('latin1')));
    sock.on('close', () => {
      clearTimeout(timer);
      resolve({ got, closed: true });
    });
    sock.on('error', () => {});
    sock.write(text);
  });
}

const ok = (_req: LeanRequest, res: LeanResponse) => res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '2' }).end('ok');

test('an idle keep-alive connection closes after the keep-alive timeout, not before', async () => {
  const h = await harness(ok);
  const started = Date.now();
  const r = await exchange(h.port, 'GET /a HTTP/1.1\r\nHost: h\r\n\r\n');
  assert.ok(r.closed);
  assert.match(r.got, /^HTTP\/1\.1 200 OK\r\n/);
  assert.match(r.got, /\r\nKeep-Alive: timeout=0\r\n/);
  assert.ok(Date.now() - started >= 300, 'not before the timeout');
  await h.close();
});

test('a head that never completes gets 408 and the connection closes', async () => {
  const h = await harness(ok);
  const r = await exchange(h.port, 'GET /a HTTP/1.1\r\nHost: h\r\n');
  assert.ok(r.closed);
  assert.match(r.got, /^HTTP\/1\.1 408 Request Timeout\r\n/);
  await h.close();
});

test('a held long-poll is not timed out; its client leaving fires close on the response', async () => {
  let held: LeanResponse | null = null;
  const h = await harness((_req, res) => (held = res));
  let closedFired = 0;
  const sock = net.connect(h.port, '127.0.0.1');
  sock.write('GET /events HTTP/1.1\r\nHost: h\r\n\r\n');
  for (let i = 0; i < 100 && !held; i++) await new Promise((r) => setTimeout(r, 10));
  held!.on('close', () => closedFired++);
  await new Promise((r) => setTimeout(r, 700));
  assert.equal(sock.destroyed, false, 'kept past both timeouts while the request is being answered');
  assert.equal(held!.closed, false);
  sock.destroy();
  for (let i = 0; i < 100 && !closedFired; i++) await new Promise((r) => setTimeout(r, 10));
  assert.equal(closedFired, 1);
  assert.equal(held!.closed, true);
  await h.close();
});

test('a response header with a line break is refused before anything is written', async () => {
  let thrown: unknown = null;
  const h = await harness((_req, res) => {
    try {
      res.writeHead(200, { location: 'https://x/\r\nSet-Cookie: a=b', 'content-length': '0' }).end('');
    } catch (err) {
      thrown = err;
      res.writeHead(500, { 'content-length': '0' }).end('');
    }
  });
  const r = await exchange(h.port, 'GET /a HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n');
  assert.ok(thrown instanceof TypeError);
  assert.match(r.got, /^HTTP\/1\.1 500 Internal Server Error\r\n/);
  assert.doesNotMatch(r.got, /Set-Cookie/);
  await h.close();
});

test('closing ends idle connections at once and busy ones after their answer, with Connection: close', async () => {
  let held: LeanResponse | null = null;
  const h = await harness((req, res) => {
    if (req.url === '/hold') held = res;
    else ok(req, res);
  }, { keepAliveTimeoutMs: 60_000, headersTimeoutMs: 60_000, requestTimeoutMs: 60_000 });
  const idle = exchange(h.port, 'GET /a HTTP/1.1\r\nHost: h\r\n\r\n');
  const busy = exchange(h.port, 'GET /hold HTTP/1.1\r\nHost: h\r\n\r\n');
  for (let i = 0; i < 100 && !held; i++) await new Promise((r) => setTimeout(r, 10));
  await new Promise((r) => setTimeout(r, 50));
  h.lean.close();
  const first = await idle;
  assert.ok(first.closed);
  assert.match(first.got, /^HTTP\/1\.1 200 OK\r\n/);
  held!.writeHead(200, { 'content-length': '4' }).end('done');
  const second = await busy;
  assert.ok(second.closed);
  assert.match(second.got, /\r\nConnection: close\r\n\r\ndone$/);
  await h.close();
});

test('a paused connection reads its next request only when resumed', async () => {
  const seen: string[] = [];
  let conn: LeanResponse['connection'] | null = null;
  const h = await harness((req, res) => {
    seen.push(req.url);
    conn = res.connection;
    ok(req, res);
  });
  const sock = net.connect(h.port, '127.0.0.1');
  let got = '';
  sock.on('data', (d: Buffer) => (got += d.toString('latin1')));
  sock.write('GET /one HTTP/1.1\r\nHost: h\r\n\r\n');
  for (let i = 0; i < 100 && !conn; i++) await new Promise((r) => setTimeout(r, 10));
  conn!.pause();
  sock.write('GET /two HTTP/1.1\r\nHost: h\r\n\r\n');
  await new Promise((r) => setTimeout(r, 100));
  assert.deepEqual(seen, ['/one']);
  conn!.resume();
  for (let i = 0; i < 100 && seen.length < 2; i++) await new Promise((r) => setTimeout(r, 10));
  assert.deepEqual(seen, ['/one', '/two']);
  sock.destroy();
  await h.close();
});

test('a held connection keeps what its client sends, past the timeouts and past the read-ahead limit, and serves it all once resumed', async () => {
  const seen: string[] = [];
  let conn: LeanResponse['connection'] | null = null;
  const h = await harness((req, res) => {
    seen.push(`${req.method} ${req.url} ${req.body.length}`);
    conn = res.connection;
    ok(req, res);
  });
  const sock = net.connect(h.port, '127.0.0.1');
  try {
    let got = '';
    sock.on('data', (d: Buffer) => (got += d.toString('latin1')));
    sock.on('error', () => {});
    sock.write('GET /one HTTP/1.1\r\nHost: h\r\n\r\n');
    for (let i = 0; i < 100 && !conn; i++) await new Promise((r) => setTimeout(r, 10));
    conn!.pause();
    const body = 'x'.repeat(1024 * 1024);
    sock.write(`POST /big HTTP/1.1\r\nHost: h\r\nContent-Length: ${body.length}\r\n\r\n${body}GET /two HTTP/1.1\r\nHost: h\r\n\r\n`);
    // Past the read-ahead limit (a head and a largest body): the socket stops being read meanwhile.
    const more = 'y'.repeat(200 * 1024);
    sock.write(`POST /more HTTP/1.1\r\nHost: h\r\nContent-Length: ${more.length}\r\n\r\n${more}GET /three HTTP/1.1\r\nHost: h\r\n\r\n`);
    // Longer than the 300 ms headers timeout: a held request is the server's wait, not the client's.
    await new Promise((r) => setTimeout(r, 700));
    assert.deepEqual(seen, ['GET /one 0']);
    assert.doesNotMatch(got, /408/);
    conn!.resume();
    for (let i = 0; i < 300 && seen.length < 5; i++) await new Promise((r) => setTimeout(r, 10));
    assert.deepEqual(seen, ['GET /one 0', `POST /big ${body.length}`, 'GET /two 0', `POST /more ${more.length}`, 'GET /three 0']);
    for (let i = 0; i < 100 && (got.match(/200 OK/g) ?? []).length < 5; i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal((got.match(/200 OK/g) ?? []).length, 5);
  } finally {
    // A failed assertion must not leave the server open (the test run would hang).
    sock.destroy();
    await h.close();
  }
});

test('an unsupported request goes to the other server with every byte, after the lean answers before it', async () => {
  const h = await harness(ok);
  const next = 'POST /b HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nx\r\n0\r\n\r\n';
  const r = await exchange(h.port, 'GET /a HTTP/1.1\r\nHost: h\r\n\r\n' + next);
  assert.equal(h.handedOver.length, 1);
  assert.match(r.got, /^HTTP\/1\.1 200 OK\r\n[\s\S]*\r\n\r\nokHTTP\/1\.1 200 OK\r\nContent-Length: (\d+)\r\nConnection: close\r\n\r\n/);
  assert.ok(r.got.endsWith(`Content-Length: ${next.length}\r\nConnection: close\r\n\r\n${next}`));
  await h.close();
});

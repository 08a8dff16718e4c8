// HTTP/1.1 on the raw socket, as clients send it: pipelining, Connection: close, HTTP/1.0, requests handed to Node's server (chunked, large, malformed) and what follows them, long-polls the client abandons.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, encodeParams, type Client, type TestServer } from './helpers/server.js';
import { RawClient } from './helpers/raw-http.js';

let s: TestServer;
let ana: Client;
let port: number;
let auth: string;

before(async () => {
  s = await startTestServer();
  ana = await s.user('Ana Raw');
  port = Number(new URL(s.url).port);
  auth = 'Basic ' + Buffer.from(`${ana.email}:${ana.apiKey}`).toString('base64');
});
after(() => s.close());

const get = (path: string, extra = '') => `GET /api/v1/${path} HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${auth}\r\n${extra}\r\n`;
const post = (path: string, body: string, extra = '') =>
  `POST /api/v1/${path} HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${auth}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${extra}\r\n${body}`;
const chunked = (path: string, body: string) =>
  `POST /api/v1/${path} HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${auth}\r\nContent-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\n\r\n` +
  `${Buffer.byteLength(body).toString(16)}\r\n${body}\r\n0\r\n\r\n`;

test('pipelined requests are answered in order, with Date and keep-alive, and the connection stays usable', async () => {
  const c = new RawClient(port);
  c.send(get('users/me') + post('messages', encodeParams({ type: 'direct', to: [ana.userId], content: 'pipelined' })) + get('users/me/subscriptions'));
  const [me, sent, subs] = [await c.next(), await c.next(), await c.next()];
  assert.equal(me.status, 200);
  assert.equal(JSON.parse(me.body).email, ana.email);
  assert.match(me.head, /\r\nDate: \w{3}, \d\d \w{3} \d{4} \d\d:\d\d:\d\d GMT/);
  assert.match(me.head, /\r\nConnection: keep-alive/);
  assert.equal(sent.status, 200);
  assert.equal(typeof JSON.parse(sent.body).id, 'number');
  assert.equal(subs.status, 200);
  assert.ok(Array.isArray(JSON.parse(subs.body).subscriptions));
  c.send(get('users/me'));
  assert.equal((await c.next()).status, 200);
  assert.equal(c.ended, false);
  c.socket.destroy();
});

test('a request sent a byte at a time is answered whole', async () => {
  const c = new RawClient(port);
  const text = Buffer.from(get('users/me'));
  for (let i = 0; i < text.length; i++) c.send(text.subarray(i, i + 1));
  const a = await c.next();
  assert.equal(a.status, 200);
  assert.equal(JSON.parse(a.body).user_id, ana.userId);
  c.socket.destroy();
});

test('Connection: close gets its answer with Connection: close, then the connection ends', async () => {
  const c = new RawClient(port);
  c.send(get('users/me', 'Connection: close\r\n'));
  const a = await c.next();
  assert.equal(a.status, 200);
  assert.match(a.head, /\r\nConnection: close/);
  await c.closed();
});

test('a chunked body goes to Node, which answers it, and the connection serves requests afterwards', async () => {
  const c = new RawClient(port);
  c.send(get('users/me'));
  assert.equal((await c.next()).status, 200);
  c.send(chunked('messages', encodeParams({ type: 'direct', to: [ana.userId], content: 'chunked body' })));
  const sent = await c.next();
  assert.equal(sent.status, 200, sent.body);
  const id = JSON.parse(sent.body).id as number;
  c.send(get(`messages/${id}`));
  const read = await c.next();
  assert.equal(read.status, 200);
  assert.equal(JSON.parse(read.body).message.content, '<p>chunked body</p>');
  c.socket.destroy();
});

test('HTTP/1.0 (what proxies speak by default) is answered, and closed unless it asked for keep-alive', async () => {
  const old = new RawClient(port);
  old.send(`GET /api/v1/users/me HTTP/1.0\r\nHost: localhost\r\nAuthorization: ${auth}\r\n\r\n`);
  const a = await old.next();
  assert.equal(a.status, 200);
  assert.equal(JSON.parse(a.body).email, ana.email);
  assert.match(a.head, /\r\nConnection: close/);
  await old.closed();

  const kept = new RawClient(port);
  kept.send(`GET /api/v1/users/me HTTP/1.0\r\nHost: localhost\r\nConnection: keep-alive\r\nAuthorization: ${auth}\r\n\r\n`);
  assert.equal((await kept.next()).status, 200);
  kept.send(`GET /api/v1/users/me HTTP/1.0\r\nHost: localhost\r\nAuthorization: ${auth}\r\n\r\n`);
  assert.equal((await kept.next()).status, 200);
  await kept.closed();
});

test('a body larger than the lean limit, and malformed heads, get what Node answers', async () => {
  // 1.5 MB of form: over the lean server's limit, within Node's path's; the view refuses it as too long.
  const big = new RawClient(port);
  big.send(post('messages', encodeParams({ type: 'direct', to: [ana.userId], content: 'x'.repeat(1_500_000) })));
  const tooLong = await big.next();
  assert.equal(tooLong.status, 400);
  assert.equal(JSON.parse(tooLong.body).result, 'error');
  big.send(get('users/me'));
  assert.equal((await big.next()).status, 200);
  big.socket.destroy();

  const folded = new RawClient(port);
  folded.send(`GET /api/v1/users/me HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${auth}\r\nX-Folded: a\r\n b\r\n\r\n`);
  assert.equal((await folded.next()).status, 400);
  await folded.closed();

  const smuggled = new RawClient(port);
  smuggled.send(`POST /api/v1/messages HTTP/1.1\r\nHost: localhost\r\nContent-Length: 3\r\nContent-Length: 40\r\n\r\nabc`);
  assert.equal((await smuggled.next()).status, 400);
  await smuggled.closed();
});

test('a held long-poll whose client goes away lets go of its queue', async () => {
  const reg = await ana.ok('POST', 'register', { event_types: ['message'] });
  const queueId = reg.queue_id as string;
  const c = new RawClient(port);
  c.send(get(`events?${encodeParams({ queue_id: queueId, last_event_id: reg.last_event_id as number })}`));
  const queue = s.running.app.queues.get(queueId)!;
  for (let i = 0; i < 100 && !queue.waiter; i++) await new Promise((r) => setTimeout(r, 10));
  assert.ok(queue.waiter, 'the poll is held');
  c.socket.destroy();
  for (let i = 0; i < 100 && queue.waiter; i++) await new Promise((r) => setTimeout(r, 10));
  assert.equal(queue.waiter, null);
  // The queue still works for the client's next connection.
  const sent = await ana.ok('POST', 'messages', { type: 'direct', to: [ana.userId], content: 'after the drop' });
  const again = new RawClient(port);
  again.send(get(`events?${encodeParams({ queue_id: queueId, last_event_id: reg.last_event_id as number })}`));
  const events = JSON.parse((await again.next()).body).events as { type: string; message?: { id: number } }[];
  assert.deepEqual(
    events.filter((e) => e.type === 'message').map((e) => e.message!.id),
    [sent.id],
  );
  again.socket.destroy();
});

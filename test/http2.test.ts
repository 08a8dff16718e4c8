// HTTP/2 with prior knowledge on the API port: requests, errors, organizations by :authority, long-polls as streams, and HTTP/1.1 beside it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http2 from 'node:http2';
import net from 'node:net';
import { startTestServer, encodeParams, type Client, type ParamValue, type TestServer } from './helpers/server.js';

let s: TestServer;
let ana: Client;
let ben: Client;
let session: http2.ClientHttp2Session;

before(async () => {
  s = await startTestServer();
  ana = await s.user('Ana Sender');
  ben = await s.user('Ben Listener');
  session = http2.connect(s.url);
});
after(async () => {
  session.destroy();
  await s.close();
});

interface H2Answer {
  status: number;
  headers: http2.IncomingHttpHeaders;
  body: Record<string, any>;
}

function h2(c: Client | null, method: string, apiPath: string, params: Record<string, ParamValue> = {}, opts: { authority?: string; over?: http2.ClientHttp2Session } = {}): Promise<H2Answer> & { stream: http2.ClientHttp2Stream } {
  const encoded = encodeParams(params);
  const inQuery = method === 'GET' || method === 'DELETE';
  const headers: http2.OutgoingHttpHeaders = { ':method': method, ':path': `/api/v1/${apiPath}${inQuery && encoded ? '?' + encoded : ''}` };
  if (opts.authority) headers[':authority'] = opts.authority;
  if (c) headers.authorization = 'Basic ' + Buffer.from(`${c.email}:${c.apiKey}`).toString('base64');
  if (!inQuery) headers['content-type'] = 'application/x-www-form-urlencoded';
  const stream = (opts.over ?? session).request(headers);
  stream.end(inQuery ? undefined : encoded);
  const answer = new Promise<H2Answer>((resolve, reject) => {
    let responseHeaders: http2.IncomingHttpHeaders = {};
    let text = '';
    stream.setEncoding('utf8');
    stream.on('response', (h) => (responseHeaders = h));
    stream.on('data', (d: string) => (text += d));
    stream.on('end', () => {
      try {
        resolve({ status: Number(responseHeaders[':status']), headers: responseHeaders, body: JSON.parse(text) as Record<string, any> });
      } catch (err) {
        reject(err as Error);
      }
    });
    stream.on('error', reject);
  });
  return Object.assign(answer, { stream });
}

test('an HTTP/2 client gets the same envelopes as HTTP/1.1: success, auth error, bad parameter', async () => {
  const settings = await h2(null, 'GET', 'server_settings');
  assert.equal(settings.status, 200);
  assert.equal(settings.body.result, 'success');
  assert.equal(typeof settings.body.service_feature_level, 'number');

  const me = await h2(ana, 'GET', 'users/me');
  assert.equal(me.status, 200);
  assert.equal(me.body.email, ana.email);

  const anonymous = await h2(null, 'GET', 'users/me');
  assert.equal(anonymous.status, 401);
  assert.equal(anonymous.body.code, 'UNAUTHORIZED');
  assert.match(String(anonymous.headers['www-authenticate']), /^Basic/);

  const bad = await h2(ana, 'POST', 'messages', { type: 'stream', to: 'no such channel', topic: 't', content: 'x' });
  assert.equal(bad.status, 400);
  assert.equal(bad.body.result, 'error');
});

test('over HTTP/2 the organization comes from :authority, as it comes from Host over HTTP/1.1', async () => {
  const other = await s.realm2('h2org');
  const there = await h2(other.owner, 'GET', 'users/me', {}, { authority: other.host });
  assert.equal(there.status, 200);
  assert.equal(there.body.email, other.owner.email);
  // The same credentials are not valid at the root organization.
  const here = await h2(other.owner, 'GET', 'users/me');
  assert.equal(here.status, 401);
  const nowhere = await h2(ana, 'GET', 'users/me', {}, { authority: 'missing.localhost' });
  assert.equal(nowhere.status, 404);
});

test('many long-polls held as streams of one HTTP/2 connection each get the message, and a sent form body is read', async () => {
  const channel = `h2-${Date.now()}`;
  await ana.ok('POST', 'users/me/subscriptions', { subscriptions: [{ name: channel }], principals: [ana.userId, ben.userId] });
  const queues: { queue_id: string; last_event_id: number }[] = [];
  for (let i = 0; i < 20; i++) {
    const reg = await h2(ben, 'POST', 'register', { event_types: ['message'] });
    assert.equal(reg.status, 200);
    queues.push(reg.body as { queue_id: string; last_event_id: number });
  }
  const polls = queues.map((q) => h2(ben, 'GET', 'events', { queue_id: q.queue_id, last_event_id: q.last_event_id }));
  // Let every poll reach the server and wait there before the message exists.
  await new Promise((r) => setTimeout(r, 200));
  const sent = await h2(ana, 'POST', 'messages', { type: 'stream', to: channel, topic: 'over h2', content: 'hello streams' });
  assert.equal(sent.status, 200);
  const answers = await Promise.all(polls);
  for (const a of answers) {
    assert.equal(a.status, 200);
    const messages = (a.body.events as { type: string; message?: { id: number; content: string } }[]).filter((e) => e.type === 'message');
    assert.equal(messages.length, 1);
    assert.equal(messages[0].message!.id, sent.body.id);
    assert.match(messages[0].message!.content, /hello streams/);
  }
});

test('the server lets go of a long-poll whose stream the client cancelled, and the queue serves the next poll', async () => {
  const reg = await h2(ben, 'POST', 'register', { event_types: ['message'] });
  const queue = s.running.app.queues.get(reg.body.queue_id as string)!;
  const first = h2(ben, 'GET', 'events', { queue_id: reg.body.queue_id, last_event_id: reg.body.last_event_id });
  first.catch(() => {});
  for (let i = 0; i < 50 && !queue.waiter; i++) await new Promise((r) => setTimeout(r, 10));
  assert.ok(queue.waiter, 'the poll is held');
  first.stream.close(http2.constants.NGHTTP2_CANCEL);
  for (let i = 0; i < 50 && queue.waiter; i++) await new Promise((r) => setTimeout(r, 10));
  assert.equal(queue.waiter, null, 'a cancelled stream no longer holds the queue');
  const dm = await h2(ana, 'POST', 'messages', { type: 'direct', to: [ben.userId], content: 'after the cancel' });
  assert.equal(dm.status, 200);
  const again = await h2(ben, 'GET', 'events', { queue_id: reg.body.queue_id, last_event_id: reg.body.last_event_id });
  assert.equal(again.status, 200);
  assert.deepEqual(
    (again.body.events as { type: string; message?: { id: number } }[]).filter((e) => e.type === 'message').map((e) => e.message!.id),
    [dm.body.id],
  );
});

test('HTTP/1.1 requests still work on the same port, whole or sent a few bytes at a time', async () => {
  const whole = await ana.ok('GET', 'users/me');
  assert.equal(whole.email, ana.email);
  // "P" could begin the HTTP/2 preface or "POST": the server must wait for more before deciding.
  const port = Number(new URL(s.url).port);
  const body = encodeParams({ type: 'stream', to: 'no such channel', topic: 't', content: 'x' });
  const raw = `POST /api/v1/messages HTTP/1.1\r\nHost: localhost\r\nAuthorization: Basic ${Buffer.from(`${ana.email}:${ana.apiKey}`).toString('base64')}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`;
  const answer = await new Promise<string>((resolve, reject) => {
    const sock = net.connect(port, '127.0.0.1');
    let got = '';
    sock.setEncoding('utf8');
    sock.on('data', (d: string) => (got += d));
    sock.on('end', () => resolve(got));
    sock.on('error', reject);
    sock.setNoDelay(true);
    const pieces = [raw.slice(0, 1), raw.slice(1, 3), raw.slice(3)];
    let i = 0;
    const next = () => {
      if (i < pieces.length) sock.write(pieces[i++], () => setTimeout(next, 30));
    };
    next();
  });
  assert.match(answer, /^HTTP\/1\.1 400 /);
  assert.match(answer, /"result":"error"/);
});

// HTTP/2 bodies that stall: the body timeout answers 408 and closes the stream, other streams of the same
// connection are served meanwhile, and nothing stays behind (no message, no uploaded file, the connection usable).
// The body timer is the server's setTimeout, mocked here: the test moves the clock itself, so no outcome depends
// on how fast a loaded machine runs.
import { test, before, after, mock } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import http2 from 'node:http2';
import { startTestServer, type Client, type TestServer } from './helpers/server.js';

const BODY_TIMEOUT_MS = 5_000;

let s: TestServer;
let ana: Client;
let session: http2.ClientHttp2Session;

before(async () => {
  s = await startTestServer({ env: { PARLEY_REQUEST_TIMEOUT_MS: String(BODY_TIMEOUT_MS), PARLEY_HEADERS_TIMEOUT_MS: String(BODY_TIMEOUT_MS) } });
  ana = await s.user('Ana Stalling');
  session = http2.connect(s.url);
  session.on('error', () => undefined);
});
after(async () => {
  mock.timers.reset();
  session.destroy();
  await s.close();
});

interface Answer {
  status: number;
  body: Record<string, any>;
  /** The stream's RST_STREAM code once it closed (0: NO_ERROR, or closed by both ends). */
  closed: Promise<number>;
}

/** Opens a stream, sends `body` (all of it, or only its first `sent` bytes, then nothing more), and collects the answer. */
function open(method: string, apiPath: string, headers: http2.OutgoingHttpHeaders, body: Buffer, sent = body.length): { answer: Promise<Answer>; answered: () => boolean } {
  const head: http2.OutgoingHttpHeaders = { ':method': method, ':path': `/api/v1/${apiPath}`, authorization: 'Basic ' + Buffer.from(`${ana.email}:${ana.apiKey}`).toString('base64'), ...headers };
  if (body.length) head['content-length'] = String(body.length);
  // A GET's stream is ended by the client library with its headers.
  const stream = session.request(head, { endStream: body.length === 0 });
  stream.on('error', () => undefined);
  const closed = new Promise<number>((resolve) => stream.once('close', () => resolve(stream.rstCode ?? 0)));
  if (body.length && sent === body.length) stream.end(body);
  else if (sent > 0) stream.write(body.subarray(0, sent));
  let done = false;
  const answer = new Promise<Answer>((resolve, reject) => {
    let status = 0;
    const chunks: Buffer[] = [];
    stream.on('response', (h) => (status = Number(h[':status'])));
    stream.on('data', (d: Buffer) => chunks.push(d));
    // The answer is whole once the stream has closed; one closed without an answer fails the test instead of leaving it waiting.
    void closed.then(() => {
      done = true;
      try {
        resolve({ status, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, any>, closed });
      } catch {
        reject(new Error(`${method} ${apiPath}: the stream closed without a whole answer (status ${status})`));
      }
    });
  });
  return { answer, answered: () => done };
}

const form = (params: Record<string, string>) => Buffer.from(new URLSearchParams(params).toString());
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Moves the mocked clock past the body timeout until the stream is answered (its timer starts once the server reads its body). */
async function expire(answered: () => boolean): Promise<void> {
  for (let i = 0; !answered(); i++) {
    assert.ok(i < 100_000, 'the stalled stream was never answered');
    mock.timers.tick(BODY_TIMEOUT_MS);
    await turn();
  }
}

const incomingFiles = () => {
  const dir = path.join(s.running.app.config.dataDir, 'incoming');
  return fs.existsSync(dir) ? fs.readdirSync(dir) : [];
};

test('HTTP/2: a stalled form body and a stalled upload are answered 408 by the body timeout; other streams are served meanwhile; nothing stays behind', { timeout: 120_000 }, async () => {
  // The connection and the server's HTTP/2 side exist before the clock is mocked.
  assert.equal((await open('GET', 'users/me', {}, Buffer.alloc(0)).answer).status, 200);
  mock.timers.enable({ apis: ['setTimeout'] });

  // A message whose body stops a third of the way, and an upload whose file stops halfway.
  const message = form({ type: 'stream', to: 'general', topic: 'stalled', content: 'never sent whole' });
  const stalledMessage = open('POST', 'messages', { 'content-type': 'application/x-www-form-urlencoded' }, message, Math.floor(message.length / 3));
  const boundary = 'stalledboundary';
  const upload = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="half.txt"\r\nContent-Type: text/plain\r\n\r\n`),
    Buffer.alloc(64 * 1024, 'x'),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  const stalledUpload = open('POST', 'user_uploads', { 'content-type': `multipart/form-data; boundary=${boundary}` }, upload, 32 * 1024);

  // With the clock stopped no body timer can fire: these are answered while both stalled streams are open.
  // (Reads only: a write would start the server's own timers on the stopped clock.)
  const others = await Promise.all([
    open('GET', 'users/me', {}, Buffer.alloc(0)).answer,
    open('GET', 'messages?' + new URLSearchParams({ anchor: 'newest', num_before: '5', num_after: '0' }).toString(), {}, Buffer.alloc(0)).answer,
  ]);
  assert.deepEqual(others.map((a) => a.status), [200, 200]);
  assert.equal(stalledMessage.answered(), false);
  assert.equal(stalledUpload.answered(), false);

  await expire(() => stalledMessage.answered() && stalledUpload.answered());
  mock.timers.reset();
  for (const stalled of [await stalledMessage.answer, await stalledUpload.answer]) {
    assert.equal(stalled.status, 408);
    assert.equal(stalled.body.result, 'error');
    assert.equal(typeof stalled.body.code, 'string');
    // The server ends the stream after its answer (RST_STREAM with NO_ERROR): the client stops sending.
    assert.equal(await stalled.closed, 0);
  }

  // Nothing of the stalled requests was kept: no message, and the upload's partial file was removed.
  const kept = await s.running.app.store.db.selectFrom('messages').select('id').where('content', '=', 'never sent whole').execute();
  assert.deepEqual(kept, []);
  while (incomingFiles().length) await new Promise((resolve) => setTimeout(resolve, 20));
  assert.deepEqual(incomingFiles(), []);

  // The connection still serves new streams.
  const after = await open('GET', 'users/me', {}, Buffer.alloc(0)).answer;
  assert.equal(after.status, 200);
  assert.equal(after.body.user_id, ana.userId);
});

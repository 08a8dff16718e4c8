// Large answers are compressed (brotli or gzip) when the request accepts it, on every server path: lean HTTP/1.1, Node's HTTP/1.1 and HTTP/2.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import http2 from 'node:http2';
import zlib from 'node:zlib';
import { startTestServer, encodeParams, type Client, type TestServer } from './helpers/server.js';

let s: TestServer;
let ann: Client;

before(async () => {
  s = await startTestServer();
  ann = await s.user('Ann Compress');
  for (let i = 0; i < 5; i++) await s.user(`Someone ${i} with a longish name`);
});
after(async () => {
  await s.close();
});

interface Answer {
  status: number;
  encoding: string | undefined;
  vary: string | undefined;
  wire: number;
  body: Record<string, any>;
}

function decode(encoding: string | undefined, raw: Buffer): Record<string, any> {
  const text = encoding === 'br' ? zlib.brotliDecompressSync(raw) : encoding === 'gzip' ? zlib.gunzipSync(raw) : raw;
  return JSON.parse(text.toString()) as Record<string, any>;
}

const auth = () => 'Basic ' + Buffer.from(`${ann.email}:${ann.apiKey}`).toString('base64');
const STATE = { fetch_event_types: JSON.stringify(['realm_user', 'realm']) };

/** POST over node:http; `chunked` sends the body without a length, which the lean server hands to Node's. */
function h1(path: string, params: Record<string, string>, acceptEncoding: string | null, chunked = false): Promise<Answer> {
  const body = encodeParams(params);
  const url = new URL(`/api/v1/${path}`, s.url);
  const headers: Record<string, string> = { authorization: auth(), 'content-type': 'application/x-www-form-urlencoded' };
  if (acceptEncoding !== null) headers['accept-encoding'] = acceptEncoding;
  if (!chunked) headers['content-length'] = String(Buffer.byteLength(body));
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const raw = Buffer.concat(chunks);
        const encoding = res.headers['content-encoding'];
        resolve({ status: res.statusCode!, encoding, vary: res.headers.vary, wire: raw.length, body: decode(encoding, raw) });
      });
    });
    req.on('error', reject);
    if (chunked) req.write(body.slice(0, 5));
    req.end(chunked ? body.slice(5) : body);
  });
}

function h2(path: string, params: Record<string, string>, acceptEncoding: string | null): Promise<Answer> {
  const session = http2.connect(s.url);
  const headers: http2.OutgoingHttpHeaders = { ':method': 'POST', ':path': `/api/v1/${path}`, authorization: auth(), 'content-type': 'application/x-www-form-urlencoded' };
  if (acceptEncoding !== null) headers['accept-encoding'] = acceptEncoding;
  const stream = session.request(headers);
  stream.end(encodeParams(params));
  return new Promise((resolve, reject) => {
    let head: http2.IncomingHttpHeaders = {};
    const chunks: Buffer[] = [];
    stream.on('response', (h) => (head = h));
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('error', reject);
    stream.on('end', () => {
      session.close();
      const raw = Buffer.concat(chunks);
      const encoding = head['content-encoding'] as string | undefined;
      resolve({ status: Number(head[':status']), encoding, vary: head.vary as string | undefined, wire: raw.length, body: decode(encoding, raw) });
    });
  });
}

const withoutQueue = (b: Record<string, any>) => ({ ...b, queue_id: null });

const PATHS: [name: string, call: (path: string, params: Record<string, string>, ae: string | null) => Promise<Answer>][] = [
  ['lean HTTP/1.1', (p, params, ae) => h1(p, params, ae)],
  ["Node's HTTP/1.1", (p, params, ae) => h1(p, params, ae, true)],
  ['HTTP/2', h2],
];

for (const [name, call] of PATHS) {
  test(`${name}: brotli when accepted, gzip when only it is, the same JSON either way`, async () => {
    const plain = await call('register', STATE, null);
    assert.equal(plain.status, 200);
    assert.equal(plain.encoding, undefined);
    assert.ok(plain.wire > 4096, `the answer is large enough to compress (${plain.wire} bytes)`);
    const br = await call('register', STATE, 'gzip, deflate, br');
    assert.equal(br.encoding, 'br');
    assert.equal(br.vary, 'accept-encoding');
    assert.ok(br.wire < plain.wire / 2, `compressed ${br.wire} of ${plain.wire} bytes`);
    assert.deepEqual(withoutQueue(br.body), withoutQueue(plain.body));
    const gz = await call('register', STATE, 'gzip;q=1.0, br;q=0');
    assert.equal(gz.encoding, 'gzip');
    assert.deepEqual(withoutQueue(gz.body), withoutQueue(plain.body));
    const identity = await call('register', STATE, 'identity');
    assert.equal(identity.encoding, undefined);
    assert.equal(identity.wire, plain.wire);
  });

  test(`${name}: small answers and errors go uncompressed`, async () => {
    const small = await call('messages/render', { content: 'a *short* answer' }, 'br, gzip');
    assert.equal(small.status, 200);
    assert.equal(small.encoding, undefined);
    const bad = await call('register', { event_types: 'not json' }, 'br, gzip');
    assert.equal(bad.status, 400);
    assert.equal(bad.encoding, undefined);
    assert.equal(bad.body.result, 'error');
  });
}

// File uploads: POST /user_uploads, serving with access control, limits and quota, temporary signed URLs.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import { startTestServer, type Client, type TestServer } from './helpers/server.js';
import { newChannel } from './helpers/messages.js';
import type { Clock } from '../src/context.js';

let now = 1_700_000_000;
const clock: Clock = { now: () => now };
let s: TestServer;
let ann: Client;
let ben: Client;
let cal: Client;

before(async () => {
  s = await startTestServer({ clock, env: { PARLEY_MAX_FILE_UPLOAD_SIZE_MIB: '1', PARLEY_UPLOAD_QUOTA_MIB: '3', PARLEY_SIGNED_UPLOAD_URL_SECS: '60' } });
  ann = await s.user('Ann Uploader');
  ben = await s.user('Ben Member');
  cal = await s.user('Cal Outsider');
});
after(async () => {
  await s.close();
});

interface Raw {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  json(): Record<string, any>;
}

/** A raw request to any server path (the shared helper only speaks /api/v1 and text fields). */
function raw(method: string, path: string, opts: { client?: Client | null; host?: string; files?: { name: string; type: string; data: Buffer }[] } = {}): Promise<Raw> {
  const url = new URL(s.url);
  const headers: Record<string, string> = {};
  const host = opts.host ?? opts.client?.host;
  if (host) headers.host = host;
  if (opts.client) headers.authorization = 'Basic ' + Buffer.from(`${opts.client.email}:${opts.client.apiKey}`).toString('base64');
  let body: Buffer | undefined;
  if (opts.files) {
    const boundary = '----up' + randomBytes(6).toString('hex');
    const parts: Buffer[] = [];
    for (const f of opts.files) {
      parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${f.name}"\r\nContent-Type: ${f.type}\r\n\r\n`), f.data, Buffer.from('\r\n'));
    }
    parts.push(Buffer.from(`--${boundary}--\r\n`));
    body = Buffer.concat(parts);
    headers['content-type'] = `multipart/form-data; boundary=${boundary}`;
    headers['content-length'] = String(body.length);
  }
  return new Promise((resolve, reject) => {
    const req = http.request({ hostname: url.hostname, port: url.port, method, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const b = Buffer.concat(chunks);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: b, json: () => JSON.parse(b.toString('utf8')) as Record<string, any> });
      });
    });
    req.on('error', reject);
    if (body) req.write(body);
    req.end();
  });
}

async function upload(c: Client, name: string, type: string, data: Buffer): Promise<Record<string, any>> {
  const r = await raw('POST', '/api/v1/user_uploads', { client: c, files: [{ name, type, data }] });
  assert.equal(r.status, 200, r.body.toString());
  return r.json();
}

test('upload (multipart), then the uploader fetches it; the response has url, uri and filename', async () => {
  const data = Buffer.from('hello, parley');
  const r = await upload(ann, 'notes for (you).txt', 'text/plain', data);
  assert.match(r.url, new RegExp(`^/user_uploads/${s.realm.id}/[0-9a-f]{2}/[A-Za-z0-9_-]{24}/notes-for-you\\.txt$`));
  assert.equal(r.uri, r.url);
  assert.equal(r.filename, 'notes for (you).txt');
  const f = await raw('GET', r.url, { client: ann });
  assert.equal(f.status, 200);
  assert.deepEqual(f.body, data);
  assert.equal(f.headers['content-type'], 'text/plain');
  assert.match(String(f.headers['content-disposition']), /^attachment; filename\*=UTF-8''notes%20for%20\(you\)\.txt$/);
  // Images are shown inline.
  const img = await upload(ann, 'pic.png', 'image/png', Buffer.from([0x89, 0x50, 0x4e, 0x47]));
  const fi = await raw('GET', img.url, { client: ann });
  assert.equal(fi.headers['content-type'], 'image/png');
  assert.match(String(fi.headers['content-disposition']), /^inline;/);
  // Without credentials: 401; an unknown path: 404.
  assert.equal((await raw('GET', r.url)).status, 401);
  const missing = await raw('GET', `/user_uploads/${s.realm.id}/ab/nothing/here.txt`, { client: ann });
  assert.equal(missing.status, 404);
  assert.equal(missing.json().msg, 'This file does not exist or has been deleted.');
});

test('no file, two files, and the per-file size limit are errors; /register reports the limits', async () => {
  const none = await ann.post('user_uploads', { x: '1' }, { as: 'multipart' });
  assert.equal(none.status, 400);
  assert.equal(none.body.msg, 'You must specify a file to upload');
  const two = await raw('POST', '/api/v1/user_uploads', { client: ann, files: [{ name: 'a', type: 'text/plain', data: Buffer.from('a') }, { name: 'b', type: 'text/plain', data: Buffer.from('b') }] });
  assert.equal(two.status, 400);
  assert.equal(two.json().msg, 'You may only upload one file at a time');
  const big = await raw('POST', '/api/v1/user_uploads', { client: ann, files: [{ name: 'big.bin', type: 'application/octet-stream', data: Buffer.alloc(1024 * 1024 + 1) }] });
  assert.equal(big.status, 400);
  assert.equal(big.json().msg, 'Uploaded file is larger than the allowed limit of 1 MiB');
  const reg = await ann.ok('POST', 'register', { fetch_event_types: ['realm'] });
  assert.equal(reg.max_file_upload_size_mib, 1);
  assert.equal(reg.realm_upload_quota_mib, 3);
});

test('a user who cannot see the linking message cannot fetch the file; one who can may; another realm cannot', async () => {
  const secret = await newChannel(s, 'secret plans', { inviteOnly: true, subscribers: [ann, ben] });
  const r = await upload(ann, 'plan.pdf', 'application/pdf', Buffer.from('%PDF-1.4 plan'));
  // Before any message links it, only the uploader may fetch it.
  const early = await raw('GET', r.url, { client: ben });
  assert.equal(early.status, 403);
  assert.equal(early.json().msg, 'You are not authorized to view this file.');
  assert.equal((await ben.get(r.url.replace(/^\/user_uploads\//, 'user_uploads/'))).status, 403);

  await ann.ok('POST', 'messages', { type: 'stream', to: secret.id, topic: 'q3', content: `See [plan.pdf](${r.url})` });
  assert.equal((await raw('GET', r.url, { client: ben })).status, 200);
  const denied = await raw('GET', r.url, { client: cal });
  assert.equal(denied.status, 403);

  // Cal cannot share it by pasting the URL into a message Ben... or anyone else, can read.
  await cal.ok('POST', 'messages', { type: 'direct', to: [ben.userId], content: `look ${r.url}` });
  assert.equal((await raw('GET', r.url, { client: cal })).status, 403);
  // Ben, who may see it, can share it with Cal by a direct message; then Cal may fetch it.
  await ben.ok('POST', 'messages', { type: 'direct', to: [cal.userId], content: `here: ${r.url}` });
  assert.equal((await raw('GET', r.url, { client: cal })).status, 200);

  // Another organization: its owner, on its own host, gets 404 for this realm's path.
  const other = await s.realm2('elsewhere');
  const far = await raw('GET', r.url, { client: other.owner });
  assert.equal(far.status, 404);
  assert.equal((await other.owner.get(r.url.replace(/^\/user_uploads\//, 'user_uploads/'))).status, 404);
});

test('linking by an edit grants access; public-channel history readers may fetch', async () => {
  const pub = await newChannel(s, 'open lounge', { subscribers: [ann] });
  const r = await upload(ann, 'photo.gif', 'image/gif', Buffer.from('GIF89a'));
  const sent = await ann.ok('POST', 'messages', { type: 'stream', to: pub.id, topic: 't', content: 'soon' });
  assert.equal((await raw('GET', r.url, { client: cal })).status, 403);
  await ann.ok('PATCH', `messages/${sent.id}`, { content: `now ![](${r.url})` });
  // Cal is not subscribed but may read the public channel's history.
  assert.equal((await raw('GET', r.url, { client: cal })).status, 200);
  const guest = await s.user('Gus Guest', 600);
  assert.equal((await raw('GET', r.url, { client: guest })).status, 403);
});

test('the temporary URL works without authentication and expires', async () => {
  const r = await upload(ann, 'memo.txt', 'text/plain', Buffer.from('memo body'));
  const apiPath = r.url.replace(/^\/user_uploads\//, 'user_uploads/');
  const t = await ann.ok('GET', apiPath);
  assert.match(t.url, /^\/user_uploads\/temporary\/[^/]+\/memo\.txt$/);
  const got = await raw('GET', t.url);
  assert.equal(got.status, 200);
  assert.equal(got.body.toString(), 'memo body');
  // A tampered token is refused.
  const bad = await raw('GET', t.url.replace(/\.([A-Za-z0-9_-])/, '.9$1'));
  assert.equal(bad.status, 400);
  assert.equal(bad.json().msg, 'Invalid token');
  // Another organization's host does not serve it.
  assert.equal((await raw('GET', t.url, { host: 'elsewhere.localhost' })).status, 400);
  now += 61;
  const late = await raw('GET', t.url);
  assert.equal(late.status, 400);
  assert.equal(late.json().msg, 'Invalid token');
  // Someone without access gets no temporary URL.
  assert.equal((await cal.get(apiPath)).status, 403);
});

test('the organization quota refuses an upload that would exceed it', async () => {
  // Earlier tests stored a few bytes; three files of ~0.9 MiB reach the 3 MiB quota.
  const chunk = Buffer.alloc(900 * 1024, 1);
  for (let i = 0; i < 3; i++) await upload(ben, `part${i}.bin`, 'application/octet-stream', chunk);
  const over = await raw('POST', '/api/v1/user_uploads', { client: ben, files: [{ name: 'part3.bin', type: 'application/octet-stream', data: chunk }] });
  assert.equal(over.status, 400);
  assert.equal(over.json().msg, "Upload would exceed your organization's upload quota.");
  // Another organization has its own quota.
  const other = await s.realm2('quota2');
  const ok = await raw('POST', '/api/v1/user_uploads', { client: other.owner, files: [{ name: 'x.bin', type: 'application/octet-stream', data: chunk }] });
  assert.equal(ok.status, 200);
  assert.match(ok.json().url, new RegExp(`^/user_uploads/${other.realm.id}/`));
});

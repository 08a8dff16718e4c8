// Request bodies within limits: anonymous bodies refused unread, per-route size limits, uploads streamed to disk with a file count and size limit.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import net from 'node:net';
import { startTestServer, encodeParams, type Client, type TestServer } from './helpers/server.js';
import { basicAuth } from './helpers/raw-http.js';

let s: TestServer;
let ana: Client;
let port: number;

before(async () => {
  s = await startTestServer({ env: { PARLEY_MAX_FILE_UPLOAD_SIZE_MIB: '1' } });
  ana = await s.user('Ana Bodies');
  port = Number(new URL(s.url).port);
});
after(() => s.close());

const MIB = 1024 * 1024;

interface Outcome {
  answer: string;
  /** Body bytes the client had handed to its socket when the answer's first byte came. */
  sentWhenAnswered: number;
  /** The most this process's Buffer memory grew while the body was being sent (the server runs here too). */
  peakGrowth: number;
}

/**
 * Sends a head, then `bodyBytes` of body made of `filler` chunks (the client holds one 64 KiB chunk,
 * not the body), honouring backpressure, until the server answers or closes.
 */
async function sendLarge(head: string, prefix: string, bodyBytes: number, suffix: string): Promise<Outcome> {
  const socket = net.connect(port, '127.0.0.1');
  await new Promise((r) => socket.once('connect', r));
  const chunk = Buffer.alloc(64 * 1024, 0x61);
  let sent = 0;
  let answer = '';
  let sentWhenAnswered = -1;
  let closed = false;
  socket.on('data', (d: Buffer) => {
    if (sentWhenAnswered < 0) sentWhenAnswered = sent;
    answer += d.toString('latin1');
  });
  socket.on('error', () => undefined);
  const ended = new Promise<void>((r) => socket.once('close', () => r()));
  void ended.then(() => (closed = true));
  const base = process.memoryUsage().arrayBuffers;
  let peak = base;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().arrayBuffers)), 5);
  socket.write(head + prefix);
  const fileBytes = bodyBytes - prefix.length - suffix.length;
  for (let off = 0; off < fileBytes && !closed && sentWhenAnswered < 0; off += chunk.length) {
    const piece = chunk.subarray(0, Math.min(chunk.length, fileBytes - off));
    sent += piece.length;
    if (!socket.write(piece)) await Promise.race([new Promise((r) => socket.once('drain', r)), ended]);
  }
  if (!closed && sentWhenAnswered < 0) socket.write(suffix);
  // Until the answer comes (or the connection ends).
  while (!closed && !answer.includes('\r\n\r\n')) await new Promise((r) => setTimeout(r, 10));
  clearInterval(sampler);
  socket.destroy();
  return { answer, sentWhenAnswered: sentWhenAnswered < 0 ? sent : sentWhenAnswered, peakGrowth: peak - base };
}

function multipartUpload(authHeader: string | null, fileBytes: number, files = 1) {
  const boundary = 'parleyboundary42';
  const part = (i: number) => `--${boundary}\r\nContent-Disposition: form-data; name="file${i}"; filename="f${i}.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`;
  // Files after the first are small: only the first carries the large body.
  let prefix = '';
  for (let i = 1; i < files; i++) prefix += part(i) + 'x\r\n';
  prefix += part(0);
  const suffix = `\r\n--${boundary}--\r\n`;
  const length = prefix.length + fileBytes + suffix.length;
  const head =
    `POST /api/v1/user_uploads HTTP/1.1\r\nHost: localhost\r\n${authHeader ? `Authorization: ${authHeader}\r\n` : ''}` +
    `Content-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${length}\r\n\r\n`;
  return { head, prefix, suffix, length };
}

test('an anonymous 40 MB multipart upload is refused with 401 before its body is sent, and nothing of it is kept', { timeout: 60_000 }, async () => {
  const u = multipartUpload(null, 40 * MIB);
  const o = await sendLarge(u.head, u.prefix, u.length, u.suffix);
  assert.match(o.answer, /^HTTP\/1\.1 401 /);
  // The answer came while most of the body was still to be sent (socket buffers hold a few MB at most).
  assert.ok(o.sentWhenAnswered < 10 * MIB, `answered after ${o.sentWhenAnswered} bytes`);
  assert.ok(o.peakGrowth < 20 * MIB, `Buffer memory grew by ${o.peakGrowth} bytes`);
});

test('an upload over the limit is refused: by its declared length unread, else while its file arrives', { timeout: 60_000 }, async () => {
  const auth = basicAuth(ana.email, ana.apiKey);
  // 30 MB declared: more than files of 1 MiB can make; refused before the body is read.
  const huge = multipartUpload(auth, 30 * MIB);
  const h = await sendLarge(huge.head, huge.prefix, huge.length, huge.suffix);
  assert.match(h.answer, /^HTTP\/1\.1 413 /);
  assert.ok(h.sentWhenAnswered < 10 * MIB, `answered after ${h.sentWhenAnswered} bytes`);
  assert.ok(h.peakGrowth < 20 * MIB, `Buffer memory grew by ${h.peakGrowth} bytes`);
  // 3 MiB: within what the body may be, but the file passes its limit as it arrives.
  const big = multipartUpload(auth, 3 * MIB);
  const b = await sendLarge(big.head, big.prefix, big.length, big.suffix);
  assert.match(b.answer, /^HTTP\/1\.1 400 /);
  assert.match(b.answer, /Uploaded file is larger than the allowed limit of 1 MiB/);
});

test('a body past the limit of a route that takes no files is refused with 413 unread', { timeout: 60_000 }, async () => {
  const declared = 3 * MIB;
  const head = `POST /api/v1/messages HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${basicAuth(ana.email, ana.apiKey)}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${declared}\r\n\r\n`;
  const o = await sendLarge(head, 'content=', declared, '');
  assert.match(o.answer, /^HTTP\/1\.1 413 /);
  assert.ok(o.sentWhenAnswered < declared);
  // A multipart body to such a route: its file parts are not stored, its fields are read.
  const sent = await ana.api('POST', 'messages', { type: 'direct', to: [ana.userId], content: 'multipart fields' }, { as: 'multipart' });
  assert.equal(sent.status, 200, JSON.stringify(sent.body));
});

test('more files than an upload request may carry are refused; the files of an answered request are removed', { timeout: 60_000 }, async () => {
  const many = multipartUpload(basicAuth(ana.email, ana.apiKey), 10, 5);
  const o = await sendLarge(many.head, many.prefix, many.length, many.suffix);
  assert.match(o.answer, /^HTTP\/1\.1 400 /);
  assert.match(o.answer, /At most 4 files may be sent in one request/);
  const one = multipartUpload(basicAuth(ana.email, ana.apiKey), 1000);
  const ok = await sendLarge(one.head, one.prefix, one.length, one.suffix);
  assert.match(ok.answer, /^HTTP\/1\.1 200 /);
  const url = JSON.parse(ok.answer.slice(ok.answer.indexOf('\r\n\r\n') + 4)).url as string;
  const fetched = await ana.api('GET', url.replace(/^\//, '../../'));
  assert.equal(fetched.status, 200);
  // The temporary copies go once the answer is written.
  const incoming = path.join(s.running.app.config.dataDir, 'incoming');
  for (let i = 0; i < 50 && fs.readdirSync(incoming).length; i++) await new Promise((r) => setTimeout(r, 20));
  assert.deepEqual(fs.readdirSync(incoming), []);
  void encodeParams;
});

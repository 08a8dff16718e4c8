// Serving the built client: hashed files cached for good, precompressed copies, the page never cached, client routes.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import zlib from 'node:zlib';
import type { AddressInfo } from 'node:net';
import type { AppContext } from '../../context.js';
import { createWebHandler } from './handler.js';

let dir: string;
let server: http.Server;
let base: string;
const apiCalls: string[] = [];

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-web-'));
  fs.mkdirSync(path.join(dir, 'assets'));
  fs.writeFileSync(path.join(dir, 'index.html'), '<!doctype html><script type="module" src="/assets/app-1a2b.js"></script>');
  const js = 'console.log("hello");'.repeat(50);
  fs.writeFileSync(path.join(dir, 'assets/app-1a2b.js'), js);
  fs.writeFileSync(path.join(dir, 'assets/app-1a2b.js.gz'), zlib.gzipSync(js));
  fs.writeFileSync(path.join(dir, 'assets/app-1a2b.js.br'), zlib.brotliCompressSync(js));
  const api = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    apiCalls.push(req.url ?? '');
    res.writeHead(404, { 'content-type': 'application/json' }).end('{"result":"error"}');
  };
  // Only /accounts/ uses the app; these tests never reach it.
  const handler = createWebHandler({} as AppContext, api as never, () => {}, dir);
  server = http.createServer((req, res) => void handler(req, res));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => {
  server.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('the page is served at / with a script-only-from-self CSP and is not cached', async () => {
  const r = await fetch(base + '/');
  assert.equal(r.status, 200);
  assert.match(r.headers.get('content-type')!, /text\/html/);
  assert.equal(r.headers.get('cache-control'), 'no-cache');
  const csp = r.headers.get('content-security-policy')!;
  assert.match(csp, /script-src 'self'(;|$)/);
  assert.doesNotMatch(csp, /unsafe-inline'[^;]*;?\s*(?=script)|script-src[^;]*unsafe/);
  assert.match(await r.text(), /app-1a2b\.js/);
});

test('hashed files are immutable and sent precompressed (brotli preferred, then gzip)', async () => {
  const br = await new Promise<http.IncomingMessage>((resolve) => http.get(base + '/assets/app-1a2b.js', { headers: { 'accept-encoding': 'gzip, br' } }, resolve));
  assert.equal(br.headers['content-encoding'], 'br');
  assert.equal(br.headers['cache-control'], 'public, max-age=31536000, immutable');
  const chunks: Buffer[] = [];
  for await (const c of br) chunks.push(c as Buffer);
  assert.equal(zlib.brotliDecompressSync(Buffer.concat(chunks)).toString(), 'console.log("hello");'.repeat(50));
  const gz = await new Promise<http.IncomingMessage>((resolve) => http.get(base + '/assets/app-1a2b.js', { headers: { 'accept-encoding': 'gzip' } }, resolve));
  assert.equal(gz.headers['content-encoding'], 'gzip');
  gz.resume();
  const plain = await new Promise<http.IncomingMessage>((resolve) => http.get(base + '/assets/app-1a2b.js', resolve));
  assert.equal(plain.headers['content-encoding'], undefined);
  plain.resume();
});

test('client routes get the page; missing files and server prefixes do not', async () => {
  const route = await fetch(base + '/settings/profile');
  assert.equal(route.status, 200);
  assert.match(await route.text(), /app-1a2b/);
  assert.equal((await fetch(base + '/assets/app-old.js')).status, 404);
  for (const p of ['/api/v1/users', '/json/users/me', '/user_uploads/1/x.png', '/static/x.json']) {
    const r = await fetch(base + p);
    assert.equal(r.status, 404, p);
    assert.equal(await r.text(), '{"result":"error"}', `${p} reaches the API handler`);
  }
  assert.deepEqual(apiCalls, ['/api/v1/users', '/json/users/me', '/user_uploads/1/x.png', '/static/x.json']);
});

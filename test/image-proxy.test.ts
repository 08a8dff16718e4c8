// The image proxy: signed /external_content URLs in rendered previews and behind /thumbnail, fetched from a local HTTP server with limits.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHmac } from 'node:crypto';
import { startTestServer, type Client, type TestServer } from './helpers/server.js';
import { isBlockedAddress } from '../src/lib/image-proxy/fetch.js';
import { proxyUrl, verifiedUrl } from '../src/lib/image-proxy/sign.js';

const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
let origin: http.Server;
let base: string;
let s: TestServer;
let ann: Client;

before(async () => {
  origin = http.createServer((req, res) => {
    const url = req.url ?? '/';
    if (url === '/pic.png') res.writeHead(200, { 'content-type': 'image/png', etag: '"v1"' }).end(PNG);
    else if (url === '/clip.mp4') res.writeHead(200, { 'content-type': 'video/mp4' }).end(Buffer.alloc(64));
    else if (url === '/page.png') res.writeHead(200, { 'content-type': 'text/html' }).end('<script>alert(1)</script>');
    else if (url === '/icon.svg') res.writeHead(200, { 'content-type': 'image/svg+xml' }).end('<svg/>');
    else if (url === '/big.png') res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.alloc(1024 * 1024 + 1));
    else if (url === '/moved.png') res.writeHead(302, { location: '/pic.png' }).end();
    else if (/^\/loop\d+\.png$/.test(url)) res.writeHead(302, { location: `/loop${Number(/\d+/.exec(url)![0]) + 1}.png` }).end();
    else res.writeHead(404).end();
  });
  await new Promise<void>((r) => origin.listen(0, '127.0.0.1', () => r()));
  base = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`;
  s = await startTestServer({ env: { PARLEY_IMAGE_PROXY_ALLOW_PRIVATE: '1', PARLEY_IMAGE_PROXY_MAX_MIB: '1' } });
  ann = await s.user('Ann Images');
});
after(async () => {
  await s.close();
  origin.closeAllConnections();
  await new Promise<void>((r) => origin.close(() => r()));
});

const key = (): string => s.running.app.imageProxy!.key;
const signed = (url: string): string => proxyUrl(s.running.app.imageProxy!, url);
const get = (path: string, auth?: Client): Promise<Response> =>
  fetch(`${s.url}${path}`, { redirect: 'manual', headers: auth ? { authorization: `Basic ${Buffer.from(`${auth.email}:${auth.apiKey}`).toString('base64')}` } : {} });

test('a generated key is kept in the database: the same after a restart, and every proxy URL is signed with it', async () => {
  const k = key();
  assert.match(k, /^[0-9a-f]{64}$/);
  await s.restart();
  assert.equal(key(), k);
  const url = 'https://example.com/a.png';
  assert.equal(signed(url), `/external_content/${createHmac('sha1', k).update(url).digest('hex')}/${Buffer.from(url).toString('hex')}`);
  assert.equal(verifiedUrl(k, signed(url).split('/')[2], signed(url).split('/')[3]), url);
  assert.equal(verifiedUrl('other', signed(url).split('/')[2], signed(url).split('/')[3]), null);
});

test('a sent video preview points through the proxy; an image preview\'s /thumbnail redirects there', async () => {
  const video = `${base}/clip.mp4`;
  const id = (await ann.ok('POST', 'messages', { type: 'stream', to: 'general', topic: 'media', content: `${video}\n${base}/pic.png` })).id as number;
  const msg = (await ann.ok('GET', `messages/${id}`)).message as { content: string };
  assert.ok(msg.content.includes(`src="${signed(video)}"`), msg.content);
  const thumb = /src="(\/thumbnail\?url=[^"]+)"/.exec(msg.content)![1].replace(/&amp;/g, '&');
  const r = await get(thumb, ann);
  assert.equal(r.status, 302);
  assert.equal(r.headers.get('location'), signed(`${base}/pic.png`));
  // Not for strangers: the redirect hands out signed URLs.
  assert.equal((await get(thumb)).status, 401);
  // A same-site path (an upload) goes to itself; other schemes are refused.
  assert.equal((await get('/thumbnail?url=user_uploads%2F2%2Fab%2Fx.png&size=thumbnail', ann)).headers.get('location'), '/user_uploads/2/ab/x.png');
  assert.equal((await get('/thumbnail?url=javascript%3Aalert(1)', ann)).status, 400);
  assert.equal((await get('/thumbnail?url=%2F%2Fevil.example%2Fx.png', ann)).status, 400);
});

test('the proxy serves a signed image with caching headers and refuses what it must not fetch', async () => {
  const r = await get(signed(`${base}/pic.png`));
  assert.equal(r.status, 200);
  assert.equal(r.headers.get('content-type'), 'image/png');
  assert.equal(r.headers.get('cache-control'), 'public, max-age=86400');
  assert.equal(r.headers.get('etag'), '"v1"');
  assert.equal(r.headers.get('x-content-type-options'), 'nosniff');
  assert.deepEqual(Buffer.from(await r.arrayBuffer()), PNG);
  // Redirects are followed a few times.
  assert.equal((await get(signed(`${base}/moved.png`))).status, 200);
  assert.equal((await get(signed(`${base}/loop1.png`))).status, 502);
  // Wrong signature, wrong type (HTML, SVG), too large, missing upstream.
  const [, , digest, hex] = signed(`${base}/pic.png`).split('/');
  assert.equal((await get(`/external_content/${digest.replace(/^./, (c) => (c === 'a' ? 'b' : 'a'))}/${hex}`)).status, 403);
  assert.equal((await get(`/external_content/zz/${hex}`)).status, 403);
  assert.equal((await get(signed(`${base}/page.png`))).status, 415);
  assert.equal((await get(signed(`${base}/icon.svg`))).status, 415);
  assert.equal((await get(signed(`${base}/big.png`))).status, 413);
  assert.equal((await get(signed(`${base}/none.png`))).status, 404);
  const body = (await (await get(signed('ftp://example.com/x.png'))).json()) as { result: string };
  assert.equal(body.result, 'error');
});

test('without PARLEY_IMAGE_PROXY_ALLOW_PRIVATE, loopback and private addresses are never fetched', async () => {
  const strict = await startTestServer({ env: { PARLEY_IMAGE_PROXY_KEY: 'fixed' } });
  try {
    const proxy = strict.running.app.imageProxy!;
    assert.equal(proxy.key, 'fixed');
    for (const url of [`${base}/pic.png`, `http://localhost:${new URL(base).port}/pic.png`, 'http://[::1]/x.png', 'http://10.1.2.3/x.png']) {
      const r = await fetch(`${strict.url}${proxyUrl(proxy, url)}`, { redirect: 'manual' });
      assert.equal(r.status, 404, url);
    }
  } finally {
    await strict.close();
  }
  for (const a of ['127.0.0.1', '10.0.0.1', '172.20.1.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', 'fe80::1', 'fd00::1', '::ffff:127.0.0.1', '224.0.0.1']) assert.equal(isBlockedAddress(a), true, a);
  for (const a of ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946', '::ffff:93.184.216.34']) assert.equal(isBlockedAddress(a), false, a);
});

test('PARLEY_IMAGE_PROXY=0: previews keep their URLs, /thumbnail sends to the image itself, the proxy answers 404', async () => {
  const off = await startTestServer({ env: { PARLEY_IMAGE_PROXY: '0' } });
  try {
    assert.equal(off.running.app.imageProxy, null);
    const bob = await off.user('Bob NoProxy');
    const id = (await bob.ok('POST', 'messages', { type: 'stream', to: 'general', topic: 'media', content: 'https://example.com/v.mp4' })).id as number;
    const msg = (await bob.ok('GET', `messages/${id}`)).message as { content: string };
    assert.ok(msg.content.includes('src="https://example.com/v.mp4"'));
    const auth = { authorization: `Basic ${Buffer.from(`${bob.email}:${bob.apiKey}`).toString('base64')}` };
    const r = await fetch(`${off.url}/thumbnail?url=https%3A%2F%2Fexample.com%2Fa.png&size=full`, { redirect: 'manual', headers: auth });
    assert.equal(r.headers.get('location'), 'https://example.com/a.png');
    assert.equal((await fetch(`${off.url}${proxyUrl({ uri: '/external_content/', key: 'x' }, 'https://example.com/a.png')}`)).status, 404);
  } finally {
    await off.close();
  }
});

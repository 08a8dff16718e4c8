// The users-by-API-key cache: a changed users row takes effect at once after app.caches.userChanged,
// and unannounced changes within the TTL only.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, Client, request, type TestServer } from './helpers/server.js';
import { Caches, USER_CACHE_TTL_MS } from '../src/lib/caches.js';
import { LocalBus } from '../src/events/bus.js';

let s: TestServer;
before(async () => {
  s = await startTestServer();
});
after(async () => {
  await s.close();
});

test('a deactivated user is refused at the next request after userChanged', async () => {
  const dora = await s.user('Dora Cached');
  // Twice, so the second request is answered from the cache.
  assert.equal((await dora.get('users/me')).status, 200);
  assert.equal((await dora.get('users/me')).status, 200);
  const app = s.running.app;
  await app.store.db.updateTable('users').set({ is_active: 0 }).where('id', '=', dora.userId).execute();
  app.caches.userChanged(dora.userId);
  const r = await dora.get('users/me');
  assert.equal(r.status, 401);
  assert.equal(r.body.code, 'USER_DEACTIVATED');
});

test('a changed API key stops working at once after userChanged, and the new one works', async () => {
  const kim = await s.user('Kim Rekeyed');
  // Twice, so the second request is answered from the verified header.
  assert.equal((await kim.get('users/me')).status, 200);
  assert.equal((await kim.get('users/me')).status, 200);
  const app = s.running.app;
  const newKey = 'rekeyed' + 'x'.repeat(25);
  await app.store.db.updateTable('users').set({ api_key: newKey }).where('id', '=', kim.userId).execute();
  app.caches.userChanged(kim.userId);
  const old = await kim.get('users/me');
  assert.equal(old.status, 401);
  assert.equal(old.body.code, 'INVALID_API_KEY');
  const fresh = new Client(s, kim.userId, kim.email, newKey);
  assert.equal((await fresh.get('users/me')).status, 200);
  // The wrong email with the new key is still refused: the cache keeps every check.
  const wrongEmail = await request(s.url, 'GET', 'users/me', {}, { auth: { email: s.owner.email, apiKey: newKey } });
  assert.equal(wrongEmail.status, 401);
});

test('the cache serves a row for at most its TTL, and userChanged reaches the other nodes through the bus', async () => {
  const app = s.running.app;
  const lee = await s.user('Lee Ttl');
  let now = 1_000_000;
  const bus = new LocalBus();
  // Two caches on one bus stand for two nodes.
  const nodeA = new Caches(app.store, bus, () => now);
  const nodeB = new Caches(app.store, bus, () => now);
  assert.equal((await nodeA.userByApiKey(lee.apiKey))?.full_name, 'Lee Ttl');
  assert.equal((await nodeB.userByApiKey(lee.apiKey))?.full_name, 'Lee Ttl');
  await app.store.db.updateTable('users').set({ full_name: 'Lee Renamed' }).where('id', '=', lee.userId).execute();
  // Unannounced, the change is seen once the TTL has passed.
  assert.equal((await nodeA.userByApiKey(lee.apiKey))?.full_name, 'Lee Ttl');
  now += USER_CACHE_TTL_MS + 1;
  assert.equal((await nodeA.userByApiKey(lee.apiKey))?.full_name, 'Lee Renamed');
  assert.equal((await nodeB.userByApiKey(lee.apiKey))?.full_name, 'Lee Renamed');
  // Announced on node A, node B drops its entry at once.
  await app.store.db.updateTable('users').set({ full_name: 'Lee Again' }).where('id', '=', lee.userId).execute();
  assert.equal((await nodeB.userByApiKey(lee.apiKey))?.full_name, 'Lee Renamed');
  nodeA.userChanged(lee.userId);
  assert.equal((await nodeB.userByApiKey(lee.apiKey))?.full_name, 'Lee Again');
  assert.equal(await nodeA.userByApiKey('no-such-key'), undefined);
});

test('a verified Authorization header is trusted only while its user\'s cached row stands', async () => {
  const app = s.running.app;
  const ray = await s.user('Ray Header');
  let now = 2_000_000;
  const cache = new Caches(app.store, undefined, () => now);
  const header = 'Basic ' + Buffer.from(`${ray.email}:${ray.apiKey}`).toString('base64');
  const row = (await cache.userByApiKey(ray.apiKey))!;
  cache.rememberVerifiedHeader(header, row);
  assert.equal(cache.userForVerifiedHeader(header), row);
  // Only the cached row itself can be remembered, not a copy of it.
  cache.rememberVerifiedHeader('Basic b3RoZXI=', { ...row });
  assert.equal(cache.userForVerifiedHeader('Basic b3RoZXI='), undefined);
  now += USER_CACHE_TTL_MS + 1;
  assert.equal(cache.userForVerifiedHeader(header), undefined, 'not past the TTL');
  const again = (await cache.userByApiKey(ray.apiKey))!;
  cache.rememberVerifiedHeader(header, again);
  assert.equal(cache.userForVerifiedHeader(header), again);
  cache.userChanged(ray.userId);
  assert.equal(cache.userForVerifiedHeader(header), undefined, 'not after userChanged');
});

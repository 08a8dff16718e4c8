// Avatars: uploads (resized PNGs), deletion back to the organization default, identicons, serving, versions and events.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { startTestServer, type Client, type TestServer } from './helpers/server.js';
import { uploadAvatarRaw as uploadRaw } from './helpers/avatars.js';
import { newChannel, queueFor } from './helpers/messages.js';
import { identiconPng } from '../src/lib/avatars.js';

let s: TestServer;
let ann: Client;
let bob: Client;
before(async () => {
  s = await startTestServer({ env: { PARLEY_MAX_AVATAR_FILE_SIZE_MIB: '1' } });
  ann = await s.user('Ann Avatar');
  bob = await s.user('Bob Viewer');
});
after(async () => {
  await s.close();
});

const png = (w: number, h: number) => sharp({ create: { width: w, height: h, channels: 3, background: { r: 200, g: 30, b: 90 } } }).png().toBuffer();

async function fetchImage(urlPath: string): Promise<{ status: number; data: Buffer; headers: Headers }> {
  const r = await fetch(new URL(urlPath, s.url), { redirect: 'manual' });
  return { status: r.status, data: Buffer.from(await r.arrayBuffer()), headers: r.headers };
}

const me = async (c: Client) => (await c.ok('GET', 'users/me')).user ?? (await c.ok('GET', 'users/me'));
const own = async (c: Client) => c.ok('POST', 'register', { fetch_event_types: ['realm_user'] });

test('upload: resized PNGs served at both sizes, version increments, event to everyone', async () => {
  const queues = await Promise.all([ann, bob, s.owner].map((c) => queueFor(c, { event_types: ['realm_user'] })));
  const v0 = (await me(ann)).avatar_version as number;
  const r = await uploadRaw(ann, [await png(640, 480)]);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const url = `/api/v1/user_avatars/${s.realm.id}/${ann.userId}/standard.png?version=${v0 + 1}`;
  assert.equal(r.body.avatar_url, url);
  for (const q of queues) {
    const evs = (await q.events()).map(({ id: _id, ...e }) => e);
    assert.deepEqual(evs, [
      {
        type: 'realm_user',
        op: 'update',
        person: { user_id: ann.userId, avatar_source: 'U', avatar_url: url, avatar_url_medium: url.replace('standard', 'medium'), avatar_version: v0 + 1 },
      },
    ]);
  }
  const reg = await own(ann);
  assert.equal(reg.avatar_source, 'U');
  assert.equal(reg.avatar_url_medium, url.replace('standard', 'medium'));
  for (const [kind, size] of [['standard', 100], ['medium', 500]] as const) {
    const img = await fetchImage(url.replace('standard', kind));
    assert.equal(img.status, 200);
    assert.equal(img.headers.get('content-type'), 'image/png');
    assert.match(img.headers.get('cache-control') ?? '', /max-age=31536000, immutable/);
    const meta = await sharp(img.data).metadata();
    assert.deepEqual([meta.format, meta.width, meta.height], ['png', size, size]);
  }
  // A stale version's URL gets the current image, not cached for good.
  const stale = await fetchImage(url.replace(`version=${v0 + 1}`, `version=${v0}`));
  assert.equal(stale.status, 200);
  assert.doesNotMatch(stale.headers.get('cache-control') ?? '', /immutable/);

  await uploadRaw(ann, [await png(50, 50)]);
  assert.equal((await me(ann)).avatar_version, v0 + 2);
  assert.equal((await fetchImage(url.replace(`version=${v0 + 1}`, `version=${v0 + 2}`))).status, 200);
});

test('upload errors: no file, two files, non-image, oversize, avatar changes disabled', async () => {
  const v = (await me(bob)).avatar_version;
  const none = await bob.api('POST', 'users/me/avatar', {}, { as: 'multipart' });
  assert.deepEqual([none.status, none.body.msg], [400, 'You must upload exactly one avatar.']);
  const two = await uploadRaw(bob, [await png(10, 10), await png(10, 10)]);
  assert.deepEqual([two.status, two.body.msg], [400, 'You must upload exactly one avatar.']);
  const text = await uploadRaw(bob, [Buffer.from('this is not an image at all, just some text')]);
  assert.deepEqual([text.status, text.body.result, text.body.msg], [400, 'error', 'Could not decode image; did you upload an image file?']);
  // Random pixels do not compress: well over the 1 MiB limit this server was started with.
  const noise = await sharp(Buffer.from(Array.from({ length: 800 * 800 * 3 }, () => Math.floor(Math.random() * 256))), { raw: { width: 800, height: 800, channels: 3 } })
    .png({ compressionLevel: 0 })
    .toBuffer();
  assert.ok(noise.length > 1024 * 1024);
  const big = await uploadRaw(bob, [noise]);
  assert.deepEqual([big.status, big.body.msg], [400, 'Uploaded file is larger than the allowed limit of 1 MiB']);
  assert.equal((await me(bob)).avatar_version, v);

  const app = s.running.app;
  const realm = await app.store.db.selectFrom('realms').selectAll().where('id', '=', s.realm.id).executeTakeFirstOrThrow();
  await app.store.db.updateTable('realms').set({ settings: JSON.stringify({ ...JSON.parse(realm.settings), avatar_changes_disabled: true }) }).where('id', '=', s.realm.id).execute();
  app.caches.invalidateRealms();
  try {
    const off = await uploadRaw(bob, [await png(10, 10)]);
    assert.deepEqual([off.status, off.body.msg], [400, 'Avatar changes are disabled in this organization.']);
    const offDelete = await bob.api('DELETE', 'users/me/avatar');
    assert.deepEqual([offDelete.status, offDelete.body.msg], [400, 'Avatar changes are disabled in this organization.']);
    // Administrators still may.
    assert.equal((await uploadRaw(s.owner, [await png(10, 10)])).status, 200);
  } finally {
    await app.store.db.updateTable('realms').set({ settings: realm.settings }).where('id', '=', s.realm.id).execute();
    app.caches.invalidateRealms();
  }
  const anon = await fetch(new URL('/api/v1/users/me/avatar', s.url), { method: 'DELETE' });
  assert.equal(anon.status, 401);
});

test('delete: back to the organization default (third-party, then identicon), files gone', async () => {
  const cat = await s.user('Cat Deleter');
  await uploadRaw(cat, [await png(30, 30)]);
  const up = await me(cat);
  const uploaded = `/api/v1/user_avatars/${s.realm.id}/${cat.userId}/standard.png?version=${up.avatar_version}`;
  const q = await queueFor(bob, { event_types: ['realm_user'] });
  const file = path.join(s.running.app.config.dataDir, 'avatars', String(s.realm.id), String(cat.userId), `${up.avatar_version}-medium.png`);
  assert.ok(fs.existsSync(file));
  const r = await cat.ok('DELETE', 'users/me/avatar');
  assert.equal(fs.existsSync(file), false);
  assert.match(r.avatar_url, /^https:\/\/secure\.gravatar\.com\/avatar\/[0-9a-f]{32}\?/);
  const [ev] = await q.events();
  assert.equal(ev.person.avatar_source, 'G');
  assert.equal(ev.person.avatar_version, up.avatar_version + 1);
  // Third-party avatars are not stored here: the server URL redirects to them.
  const redirect = await fetchImage(uploaded);
  assert.equal(redirect.status, 302);
  assert.match(redirect.headers.get('location') ?? '', /^https:\/\/secure\.gravatar\.com\//);

  // An organization defaulting to identicons gives them to new users and to those who delete their upload.
  const app = s.running.app;
  const realm = await app.store.db.selectFrom('realms').selectAll().where('id', '=', s.realm.id).executeTakeFirstOrThrow();
  const settings = JSON.stringify({ ...JSON.parse(realm.settings), default_avatar_source: 'J' });
  await app.store.db.updateTable('realms').set({ settings }).where('id', '=', s.realm.id).execute();
  app.caches.invalidateRealms();
  s.realm.settings = settings;
  try {
    const dan = await s.user('Dan Default');
    const d = await me(dan);
    assert.equal(d.avatar_url, `/api/v1/user_avatars/${s.realm.id}/${dan.userId}/standard.png?version=1`);
    assert.equal((await own(dan)).avatar_source, 'J');
    await cat.ok('DELETE', 'users/me/avatar');
    assert.equal((await own(cat)).avatar_source, 'J');
    const icon = await fetchImage(d.avatar_url);
    assert.equal(icon.status, 200);
    const meta = await sharp(icon.data).metadata();
    assert.deepEqual([meta.format, meta.width, meta.height], ['png', 100, 100]);
  } finally {
    await app.store.db.updateTable('realms').set({ settings: realm.settings }).where('id', '=', s.realm.id).execute();
    app.caches.invalidateRealms();
    s.realm.settings = realm.settings;
  }
});

test('identicons: deterministic per user, different between users, symmetric', async () => {
  const a1 = await identiconPng(1, 7, 100);
  assert.deepEqual(a1, await identiconPng(1, 7, 100));
  assert.notDeepEqual(a1, await identiconPng(1, 8, 100));
  assert.notDeepEqual(a1, await identiconPng(2, 7, 100));
  const { data, info } = await sharp(a1).raw().toBuffer({ resolveWithObject: true });
  for (let y = 0; y < 100; y += 7) {
    for (let x = 0; x < 50; x += 3) {
      const l = (y * 100 + x) * info.channels;
      const r = (y * 100 + (99 - x)) * info.channels;
      assert.deepEqual([...data.subarray(l, l + 3)], [...data.subarray(r, r + 3)], `pixel ${x},${y}`);
    }
  }
  // Served identicons are the same bytes every time.
  const eve = await s.user('Eve Icon');
  await s.running.app.store.db.updateTable('users').set({ avatar_source: 'J' }).where('id', '=', eve.userId).execute();
  const medium = `/api/v1/user_avatars/${s.realm.id}/${eve.userId}/medium.png?version=1`;
  const [x, y] = [await fetchImage(medium), await fetchImage(medium)];
  assert.deepEqual(x.data, y.data);
  assert.equal((await sharp(x.data).metadata()).width, 500);
});

test('serving: unknown users, sizes, and other organizations are 404', async () => {
  const other = await s.realm2('avatarsother');
  const base = `/api/v1/user_avatars/${s.realm.id}`;
  assert.equal((await fetchImage(`${base}/999999/standard.png`)).status, 404);
  assert.equal((await fetchImage(`${base}/${ann.userId}/large.png`)).status, 404);
  assert.equal((await fetchImage(`/api/v1/user_avatars/${other.realm.id}/${other.owner.userId}/standard.png`)).status, 404);
  // A user of this organization asked for through another organization's host.
  const cross = await other.owner.api('GET', `user_avatars/${s.realm.id}/${ann.userId}/standard.png`, {}, { auth: null });
  assert.equal(cross.status, 404);
});

test('events: restricted guests hear only about users they may access', async () => {
  const gil = await s.user('Gil Guest', 600);
  const hal = await s.user('Hal Shared');
  const ida = await s.user('Ida Stranger');
  await newChannel(s, 'avatar-shared', { subscribers: [gil, hal] });
  const app = s.running.app;
  const realm = await app.store.db.selectFrom('realms').selectAll().where('id', '=', s.realm.id).executeTakeFirstOrThrow();
  const members = await app.store.db.selectFrom('user_groups').select('id').where('realm_id', '=', s.realm.id).where('name', '=', 'role:members').executeTakeFirstOrThrow();
  await app.store.db.updateTable('realms').set({ settings: JSON.stringify({ ...JSON.parse(realm.settings), can_access_all_users_group: members.id }) }).where('id', '=', s.realm.id).execute();
  app.caches.invalidateRealms();
  try {
    const q = await queueFor(gil, { event_types: ['realm_user'] });
    await uploadRaw(ida, [await png(20, 20)]);
    await uploadRaw(hal, [await png(20, 20)]);
    assert.deepEqual((await q.events()).map((e) => e.person.user_id), [hal.userId]);
  } finally {
    await app.store.db.updateTable('realms').set({ settings: realm.settings }).where('id', '=', s.realm.id).execute();
    app.caches.invalidateRealms();
  }
});

// PARLEY_FILE_STORE: "database" keeps uploads, avatars, custom emoji and exports in stored_files (one node
// here, SQLite or PostgreSQL); the default "local" keeps them under the data directory, at the same paths as before.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import sharp from 'sharp';
import { startTestServer, type Client, type TestServer } from './helpers/server.js';
import { postFiles } from './helpers/multipart.js';
import { uploadEmoji } from './helpers/emoji.js';
import { uploadAvatar } from './helpers/avatars.js';
import { getBytes } from './helpers/get-bytes.js';
import { loadConfig } from '../src/config.js';
import { configOf } from '../src/cli/common.js';
import { runExport } from '../src/export/command.js';
import { runImport } from '../src/import/command.js';

let db: TestServer;
let local: TestServer;
let tmp: string;
before(async () => {
  db = await startTestServer({ env: { PARLEY_FILE_STORE: 'database' } });
  local = await startTestServer();
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-file-store-'));
});
after(async () => {
  await db.close();
  await local.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});


const png = (size: number) => sharp({ create: { width: size, height: size, channels: 3, background: { r: 90, g: 160, b: 20 } } }).png().toBuffer();

async function upload(c: Client, data: Buffer, filename: string): Promise<string> {
  const r = await postFiles(c, 'user_uploads', [{ data, filename, contentType: 'text/plain' }]);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.url as string;
}

const storedKeys = async (s: TestServer) => (await s.running.app.store.db.selectFrom('stored_files').select('key').orderBy('key').execute()).map((r) => r.key);

test('the setting: local by default, database by PARLEY_FILE_STORE or --file-store, anything else refused', () => {
  assert.equal(loadConfig({}, {}).fileStore, 'local');
  assert.equal(loadConfig({}, { PARLEY_FILE_STORE: 'database' }).fileStore, 'database');
  assert.equal(configOf({ fileStore: 'database' }, {}).fileStore, 'database');
  assert.equal(configOf({ fileStore: 'local' }, { PARLEY_FILE_STORE: 'database' }).fileStore, 'local', 'the flag wins');
  assert.throws(() => loadConfig({}, { PARLEY_FILE_STORE: 's3' }), /file store must be local or database, got "s3"/);
});

test('database store: uploads, avatars and emoji are rows, served and deleted; nothing under the data directory', async () => {
  const ann = await db.user('Ann Rows');
  const url = await upload(ann, Buffer.from('kept in a row'), 'row.txt');
  const f = await getBytes(db, url, ann);
  assert.equal(f.status, 200);
  assert.equal(f.body.toString(), 'kept in a row');
  const t = await ann.ok('GET', url.replace(/^\//, ''));
  assert.equal((await getBytes(db, t.url as string, null)).body.toString(), 'kept in a row');

  await uploadAvatar(ann, await png(64));
  const { avatar_version: v } = await ann.ok('GET', 'users/me');
  const medium = await getBytes(db, `/api/v1/user_avatars/${db.realm.id}/${ann.userId}/medium.png?version=${v}`, null);
  assert.equal(medium.status, 200);
  assert.equal((await sharp(medium.body).metadata()).width, 500);

  const emojiPng = await png(8);
  await uploadEmoji(db.owner, 'row_emoji', emojiPng);
  const { emoji } = await ann.ok('GET', 'realm/emoji');
  const e = (Object.values(emoji) as { name: string; source_url: string }[]).find((x) => x.name === 'row_emoji')!;
  assert.ok((await getBytes(db, e.source_url, null)).body.equals(emojiPng));

  const pathId = url.replace(/^\/user_uploads\//, '');
  const keys = await storedKeys(db);
  assert.ok(keys.includes(`uploads/${pathId}`));
  assert.ok(keys.includes(`avatars/${db.realm.id}/${ann.userId}/${v}-standard.png`) && keys.includes(`avatars/${db.realm.id}/${ann.userId}/${v}-medium.png`));
  assert.ok(keys.includes(`emoji/${db.realm.id}/${e.source_url.split('/').pop()}`));
  const row = await db.running.app.store.db.selectFrom('stored_files').select(['content_type', 'size']).where('key', '=', `uploads/${pathId}`).executeTakeFirstOrThrow();
  assert.deepEqual([row.content_type, Number(row.size)], ['text/plain', 13]);

  // A new avatar replaces the old version's rows; deleting the file removes its row.
  await uploadAvatar(ann, await png(32));
  assert.equal((await storedKeys(db)).filter((k) => k.startsWith(`avatars/${db.realm.id}/${ann.userId}/`)).length, 2);
  const [att] = (await ann.ok('GET', 'attachments')).attachments as { id: number }[];
  await ann.ok('DELETE', `attachments/${att.id}`);
  assert.equal((await getBytes(db, url, ann)).status, 404);
  assert.equal((await storedKeys(db)).includes(`uploads/${pathId}`), false);
  for (const area of ['uploads', 'avatars', 'emoji']) assert.equal(fs.existsSync(path.join(db.running.app.config.dataDir, area)), false);
});

test('database store: export and import carry uploads, avatars and emoji through stored_files', async () => {
  const source = await db.realm2('fsource');
  const owner = source.owner;
  const url = await upload(owner, Buffer.from('exported bytes'), 'carried.txt');
  await owner.ok('POST', 'users/me/subscriptions', { subscriptions: [{ name: 'carry room' }] });
  await owner.ok('POST', 'messages', { type: 'stream', to: 'carry room', topic: 'files', content: `see [carried.txt](${url})` });
  await uploadAvatar(owner, await png(40));
  await uploadEmoji(owner, 'carried_emoji', await png(8));
  const archive = path.join(tmp, 'fsource.tar.gz');
  const exported = await runExport(db.running.app, 'fsource', archive);
  assert.deepEqual([exported.attachments, exported.avatars, exported.custom_emoji], [1, 1, 1]);
  const imported = await runImport(db.running.app, { format: 'zulip', path: archive, subdomain: 'fcopy' });
  const prefix = (area: string) => `${area}/${imported.realm_id}/`;
  const keys = await storedKeys(db);
  const copied = keys.filter((k) => k.startsWith(prefix('uploads')));
  assert.equal(copied.length, 1);
  const bytes = await db.running.app.files.get(copied[0]);
  assert.equal(bytes?.toString(), 'exported bytes');
  assert.equal(keys.filter((k) => k.startsWith(prefix('avatars'))).length, 2, 'both sizes');
  assert.equal(keys.filter((k) => k.startsWith(prefix('emoji'))).length, 1);
});

test('local store (the default): files under the data directory at the paths earlier versions used; no rows', async () => {
  const dir = local.running.app.config.dataDir;
  const lou = await local.user('Lou Local');
  const url = await upload(lou, Buffer.from('on disk'), 'disk.txt');
  assert.equal(fs.readFileSync(path.join(dir, 'uploads', url.replace(/^\/user_uploads\//, ''))).toString(), 'on disk');
  assert.equal((await getBytes(local, url, lou)).body.toString(), 'on disk');
  await uploadAvatar(lou, await png(20));
  const { avatar_version: v } = await lou.ok('GET', 'users/me');
  assert.ok(fs.existsSync(path.join(dir, 'avatars', String(local.realm.id), String(lou.userId), `${v}-medium.png`)));
  const emojiPng = await png(8);
  await uploadEmoji(local.owner, 'disk_emoji', emojiPng);
  const { emoji } = await lou.ok('GET', 'realm/emoji');
  const e = (Object.values(emoji) as { name: string; source_url: string }[]).find((x) => x.name === 'disk_emoji')!;
  assert.ok(fs.readFileSync(path.join(dir, 'emoji', String(local.realm.id), e.source_url.split('/').pop()!)).equals(emojiPng));
  assert.deepEqual(await storedKeys(local), []);
});

test('a stored file is never read twice to answer one request', async () => {
  const app = db.running.app;
  const ann = await db.user('Ann Counted');
  const url = await upload(ann, randomBytes(1024), 'counted.bin');
  const files = app.files;
  let reads = 0;
  const original = files.get.bind(files);
  files.get = async (key, tx) => {
    reads++;
    return original(key, tx);
  };
  try {
    assert.equal((await getBytes(db, url, ann)).status, 200);
  } finally {
    files.get = original;
  }
  assert.equal(reads, 1);
});

// Three nodes on one PostgreSQL database and a NATS bus with PARLEY_FILE_STORE=database: a file, avatar,
// custom emoji or export stored through one node is served by the others, and deleting it on one is seen on all.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import sharp from 'sharp';
import { startTestServer, Client, type TestServer } from './helpers/server.js';
import { postFiles } from './helpers/multipart.js';
import { uploadEmoji } from './helpers/emoji.js';
import { uploadAvatar } from './helpers/avatars.js';
import { getBytes } from './helpers/get-bytes.js';
import { until } from './helpers/wait.js';
import type { RunningServer } from '../src/main.js';

const onPostgres = !!process.env.PARLEY_TEST_PG_URL;
const busUrl = `nats://127.0.0.1:4222?subject=parley.test.${randomBytes(6).toString('hex')}`;
let s: TestServer;
let nodeB: RunningServer;
let nodeC: RunningServer;

before(async () => {
  if (!onPostgres) return;
  s = await startTestServer({ env: { PARLEY_BUS_URL: busUrl, PARLEY_NODE_ID: 'a', PARLEY_FILE_STORE: 'database' } });
  // Peers copy node a's configuration (file store included), each with its own data directory.
  nodeB = await s.peer({ busUrl, nodeId: 'b' });
  nodeC = await s.peer({ busUrl, nodeId: 'c' });
});
after(async () => {
  if (!onPostgres) return;
  await nodeC.close();
  await nodeB.close();
  await s.close();
});

const skip = onPostgres ? false : 'several nodes need PostgreSQL (SQLite is single-node); this runs in the PostgreSQL pass';

/** The same user's client, talking to another node. */
const on = (node: { url: string }, c: Client) => new Client({ url: node.url } as TestServer, c.userId, c.email, c.apiKey, c.host);


/** Nothing was written under a node's data directory for any kind of stored file. */
function noLocalFiles(dataDir: string): void {
  for (const area of ['uploads', 'avatars', 'emoji', 'exports']) assert.equal(fs.existsSync(path.join(dataDir, area)), false, `${area}/ under ${dataDir}`);
}

test('a file uploaded on node a downloads on b and c, also through the temporary URL; deleted on b, a answers 404', { skip }, async () => {
  const ann = await s.user('Ann Acrossnodes');
  const data = randomBytes(300 * 1024);
  const up = await postFiles(ann, 'user_uploads', [{ data, filename: 'blob.bin', contentType: 'application/octet-stream' }]);
  assert.equal(up.status, 200, JSON.stringify(up.body));
  const url = up.body.url as string;
  for (const node of [s, nodeB, nodeC]) {
    const f = await getBytes(node, url, ann);
    assert.equal(f.status, 200);
    assert.ok(f.body.equals(data), `bytes served by ${node.url}`);
  }
  // The signed URL is asked of b and fetched, without credentials, from c.
  const t = await on(nodeB, ann).ok('GET', url.replace(/^\//, ''));
  const viaToken = await getBytes(nodeC, t.url as string, null);
  assert.equal(viaToken.status, 200);
  assert.ok(viaToken.body.equals(data));

  const [att] = (await ann.ok('GET', 'attachments')).attachments as { id: number; path_id: string }[];
  await on(nodeB, ann).ok('DELETE', `attachments/${att.id}`);
  const gone = await getBytes(s, url, ann);
  assert.equal(gone.status, 404);
  assert.equal(JSON.parse(gone.body.toString()).msg, 'This file does not exist or has been deleted.');
  const rows = await s.running.app.store.db.selectFrom('stored_files').select('key').where('key', '=', `uploads/${att.path_id}`).execute();
  assert.deepEqual(rows, [], 'the stored object went with the attachment');
  for (const dir of [s.running.app.config.dataDir, nodeB.app.config.dataDir, nodeC.app.config.dataDir]) noLocalFiles(dir);
});

test('an avatar set on node a is served at both sizes by node b', { skip }, async () => {
  const bea = await s.user('Bea Avatar');
  await uploadAvatar(bea, await sharp({ create: { width: 120, height: 80, channels: 3, background: { r: 10, g: 120, b: 200 } } }).png().toBuffer());
  const { avatar_version: version } = await bea.ok('GET', 'users/me');
  for (const file of ['standard.png', 'medium.png']) {
    const p = `/api/v1/user_avatars/${s.realm.id}/${bea.userId}/${file}?version=${version}`;
    const [onA, onB] = [await getBytes(s, p, null), await getBytes(nodeB, p, null)];
    assert.equal(onB.status, 200);
    assert.equal(onB.type, 'image/png');
    assert.ok(onB.body.equals(onA.body), `${file}: b serves the image a stored`);
    const meta = await sharp(onB.body).metadata();
    assert.equal(meta.width, file === 'medium.png' ? 500 : 100);
  }
  noLocalFiles(s.running.app.config.dataDir);
});

test('a custom emoji added on node a: its image is served by node c', { skip }, async () => {
  const png = await sharp({ create: { width: 16, height: 16, channels: 4, background: { r: 250, g: 200, b: 0, alpha: 1 } } }).png().toBuffer();
  await uploadEmoji(s.owner, 'sunny_node', png);
  const { emoji } = await on(nodeC, s.owner).ok('GET', 'realm/emoji');
  const e = (Object.values(emoji) as { name: string; source_url: string }[]).find((x) => x.name === 'sunny_node')!;
  const img = await getBytes(nodeC, e.source_url, null);
  assert.equal(img.status, 200);
  assert.equal(img.type, 'image/png');
  assert.ok(img.body.equals(png));
  noLocalFiles(s.running.app.config.dataDir);
});

test('an export made on node a downloads from node c; deleted through b, a has it no more', { skip }, async () => {
  const id = (await s.owner.ok('POST', 'export/realm')).id as number;
  const done = await until('the export', async () => ((await s.owner.ok('GET', 'export/realm')).exports as { id: number; pending: boolean; export_url: string }[]).find((x) => x.id === id && !x.pending));
  const urlPath = new URL(done.export_url).pathname;
  const file = await getBytes(nodeC, urlPath, s.owner);
  assert.equal(file.status, 200);
  assert.deepEqual([...file.body.subarray(0, 2)], [0x1f, 0x8b], 'a gzip archive');
  await on(nodeB, s.owner).ok('DELETE', `export/realm/${id}`);
  assert.equal((await getBytes(s, urlPath, s.owner)).status, 404);
  noLocalFiles(s.running.app.config.dataDir);
});

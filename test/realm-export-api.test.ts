// The API's data exports: POST/GET /export/realm, the file at export_url (importable), public versus consented
// scope, GET /export/realm/consents, DELETE, and the refusals.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import { startTestServer, type Client, type TestServer } from './helpers/server.js';
import { runImport } from '../src/import/command.js';

let s: TestServer;
let ann: Client;
let bob: Client;
let tmp: string;
before(async () => {
  s = await startTestServer();
  ann = await s.user('Ann Admin', 200);
  bob = await s.user('Bob Member');
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-export-api-'));
});
after(async () => {
  await s.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

async function finished(id: number): Promise<any> {
  for (let i = 0; i < 400; i++) {
    const e = ((await ann.ok('GET', 'export/realm')).exports as any[]).find((x) => x.id === id);
    if (!e.pending) return e;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('the export did not finish');
}

function download(c: Client, url: string): Promise<{ status: number; body: Buffer }> {
  const u = new URL(url);
  const server = new URL(s.url);
  return new Promise((resolve, reject) => {
    http
      .get({ hostname: server.hostname, port: server.port, path: u.pathname, headers: { authorization: 'Basic ' + Buffer.from(`${c.email}:${c.apiKey}`).toString('base64') } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
      })
      .on('error', reject);
  });
}

test('public and consented exports: the file imports, with private data only of those who consented', async () => {
  await ann.ok('POST', 'users/me/subscriptions', { subscriptions: [{ name: 'open room' }], principals: [ann.userId, bob.userId] });
  await ann.ok('POST', 'users/me/subscriptions', { subscriptions: [{ name: 'closed room' }], principals: [ann.userId, bob.userId], invite_only: true });
  await ann.ok('POST', 'messages', { type: 'stream', to: 'open room', topic: 't', content: 'public words' });
  await ann.ok('POST', 'messages', { type: 'stream', to: 'closed room', topic: 't', content: 'private words from ann' });
  await bob.ok('POST', 'messages', { type: 'private', to: [ann.userId], content: 'dm from bob' });
  await ann.ok('POST', 'messages', { type: 'private', to: [bob.userId], content: 'dm from ann' });
  await bob.ok('PATCH', 'settings', { allow_private_data_export: true });

  const consents = (await ann.ok('GET', 'export/realm/consents')).export_consents as any[];
  assert.deepEqual(
    consents.filter((c) => [ann.userId, bob.userId].includes(c.user_id)).map((c) => [c.user_id, c.consented, c.email_address_visibility]),
    [
      [ann.userId, false, 1],
      [bob.userId, true, 1],
    ],
  );

  const publicId = (await ann.ok('POST', 'export/realm')).id;
  const consentId = (await ann.ok('POST', 'export/realm', { export_type: 'full_with_consent' })).id;
  const pub = await finished(publicId);
  const full = await finished(consentId);
  assert.deepEqual([pub.export_type, pub.acting_user_id, pub.failed_timestamp, pub.deleted_timestamp], ['public', ann.userId, null, null]);
  assert.match(pub.export_url, /\/user_uploads\/exports\/\d+\/[A-Za-z0-9_-]+\/parley-export-realm-\d+\.tar\.gz$/);

  const contents = async (url: string, subdomain: string) => {
    const file = await download(ann, url);
    assert.equal(file.status, 200);
    const archive = path.join(tmp, `${subdomain}.tar.gz`);
    fs.writeFileSync(archive, file.body);
    await runImport(s.running.app, { format: 'zulip', path: archive, subdomain });
    const realm = await s.running.app.store.db.selectFrom('realms').select('id').where('string_id', '=', subdomain).executeTakeFirstOrThrow();
    return (await s.running.app.store.db.selectFrom('messages').select('content').where('realm_id', '=', realm.id).orderBy('id').execute()).map((m) => m.content).filter((c) => /words|dm from/.test(c));
  };
  assert.deepEqual(await contents(pub.export_url, 'from-public'), ['public words']);
  assert.deepEqual(await contents(full.export_url, 'from-consent'), ['public words', 'dm from bob']);

  // Only administrators: the list, the file, new exports.
  assert.equal((await bob.get('export/realm')).status, 400);
  assert.equal((await bob.post('export/realm')).status, 400);
  assert.equal((await download(bob, pub.export_url)).status, 400);
  assert.equal((await ann.post('export/realm', { export_type: 'everything' })).body.msg, 'Invalid export_type: everything');
  assert.equal((await ann.post('export/realm', { export_type: 'full_without_consent' })).status, 400);

  await ann.ok('DELETE', `export/realm/${publicId}`);
  const gone = ((await ann.ok('GET', 'export/realm')).exports as any[]).find((x) => x.id === publicId);
  assert.ok(gone.deleted_timestamp > 0);
  assert.equal(gone.export_url, null);
  assert.equal((await download(ann, pub.export_url)).status, 404);
  assert.equal((await ann.delete(`export/realm/${publicId}`)).body.msg, 'Export already deleted');
  assert.equal((await ann.delete('export/realm/999999')).body.msg, 'Invalid data export ID');
});

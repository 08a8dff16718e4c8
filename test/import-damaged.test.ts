// Damaged exports of every format (truncated JSON, missing files, unknown user IDs): a clear error that names
// the problem, and no organization, account or stored file left behind.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { startTestServer, type TestServer } from './helpers/server.js';
import { postFiles } from './helpers/multipart.js';
import { uploadEmoji } from './helpers/emoji.js';
import { uploadAvatar } from './helpers/avatars.js';
import { runExport } from '../src/export/command.js';
import { runImport } from '../src/import/command.js';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const FIXTURES = path.resolve(root, '../shared/fixtures/import');
const present = fs.existsSync(FIXTURES);

let s: TestServer;
let tmp: string;
/** A Parley export (the original's format) with messages, an upload, an avatar and a custom emoji. */
let zulipExport: string;
before(async () => {
  s = await startTestServer();
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-damaged-'));
  const { owner, realm, host } = await s.realm2('damagesource');
  const bob = await s.user('Bob Damage', 400, { realm, host });
  await owner.ok('POST', 'users/me/subscriptions', { subscriptions: [{ name: 'talk' }], principals: [owner.userId, bob.userId] });
  const up = await postFiles(bob, 'user_uploads', [{ data: Buffer.from('notes\n'), filename: 'notes.txt', contentType: 'text/plain' }]);
  await bob.ok('POST', 'messages', { type: 'stream', to: 'talk', topic: 'files', content: `[notes.txt](${up.body.url})` });
  await owner.ok('POST', 'messages', { type: 'private', to: [bob.userId], content: 'hello' });
  await uploadAvatar(bob, await sharp({ create: { width: 20, height: 20, channels: 3, background: '#00f' } }).png().toBuffer());
  await uploadEmoji(owner, 'blue_square', await sharp({ create: { width: 8, height: 8, channels: 4, background: '#00f' } }).png().toBuffer());
  zulipExport = path.join(tmp, 'zulip');
  await runExport(s.running.app, 'damagesource', zulipExport);
});
after(async () => {
  await s.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

const db = () => s.running.app.store.db;

/** Files under the data directory's stored-file folders (uploads, avatars, emoji). */
function storedFiles(): number {
  let n = 0;
  for (const folder of ['uploads', 'avatars', 'emoji']) {
    const dir = path.join(s.running.app.config.dataDir, folder);
    if (fs.existsSync(dir)) n += fs.readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).length;
  }
  return n;
}

let copies = 0;
/** A damaged copy of an export directory. */
function damaged(from: string, damage: (dir: string) => void): string {
  const dir = path.join(tmp, `copy-${++copies}`);
  fs.cpSync(from, dir, { recursive: true });
  damage(dir);
  return dir;
}

function edit(file: string, change: (text: string) => string): void {
  const text = fs.readFileSync(file, 'utf8');
  const changed = change(text);
  assert.notEqual(changed, text, `the damage applies to ${file}`);
  fs.writeFileSync(file, changed);
}

const truncate = (file: string) => edit(file, (t) => t.slice(0, Math.floor(t.length / 2)));

/** The import fails with this error, and leaves no organization, account or file behind. */
async function refused(format: string, dir: string, error: RegExp): Promise<void> {
  const subdomain = `damaged${copies}`;
  const users = Number((await db().selectFrom('users').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
  const files = storedFiles();
  await assert.rejects(runImport(s.running.app, { format, path: dir, subdomain, team: format === 'mattermost' ? 'gryffindor' : undefined }), error);
  assert.equal(await db().selectFrom('realms').select('id').where('string_id', '=', subdomain).executeTakeFirst(), undefined, 'no organization');
  assert.equal(Number((await db().selectFrom('users').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n), users, 'no account');
  assert.equal(storedFiles(), files, 'no stored file');
}

test("the original's format: truncated JSON, missing files, unknown user IDs", async () => {
  // The undamaged export imports (so each refusal below is the damage's doing).
  const ok = await runImport(s.running.app, { format: 'zulip', path: zulipExport, subdomain: 'undamaged' });
  assert.deepEqual([ok.messages, ok.direct_messages, ok.attachments, ok.avatars, ok.custom_emoji], [1, 1, 1, 1, 1]);

  await refused('zulip', damaged(zulipExport, (d) => truncate(path.join(d, 'realm.json'))), /realm\.json is not valid JSON.*truncated/);
  await refused('zulip', damaged(zulipExport, (d) => truncate(path.join(d, 'messages-000001.json'))), /messages-000001\.json is not valid JSON/);
  await refused('zulip', damaged(zulipExport, (d) => fs.rmSync(path.join(d, 'realm.json'))), /the export has no realm\.json/);
  const uploads = JSON.parse(fs.readFileSync(path.join(zulipExport, 'uploads', 'records.json'), 'utf8')) as { path: string }[];
  await refused('zulip', damaged(zulipExport, (d) => fs.rmSync(path.join(d, 'uploads', uploads[0].path))), /missing file for attachment "notes\.txt"/);
  const avatars = JSON.parse(fs.readFileSync(path.join(zulipExport, 'avatars', 'records.json'), 'utf8')) as { path: string }[];
  const original = avatars.find((r) => r.path.endsWith('.original'))!;
  await refused('zulip', damaged(zulipExport, (d) => fs.rmSync(path.join(d, 'avatars', original.path))), /missing file for the avatar of user \d+/);
  await refused('zulip', damaged(zulipExport, (d) => fs.writeFileSync(path.join(d, 'avatars', original.path), 'not an image')), /avatar of user \d+ is not an image/);
  const emoji = JSON.parse(fs.readFileSync(path.join(zulipExport, 'emoji', 'records.json'), 'utf8')) as { path: string }[];
  await refused('zulip', damaged(zulipExport, (d) => fs.rmSync(path.join(d, 'emoji', emoji[0].path))), /missing file for custom emoji "blue_square"/);
  await refused('zulip', damaged(zulipExport, (d) => edit(path.join(d, 'messages-000001.json'), (t) => t.replace(/"sender": \d+/, '"sender": 999999'))), /message \d+ refers to unknown user ID 999999/);
  const channelSubscriber = (d: string) => {
    const file = path.join(d, 'realm.json');
    const realm = JSON.parse(fs.readFileSync(file, 'utf8'));
    const channelRecipients = new Set(realm.zerver_recipient.filter((r: any) => r.type === 2).map((r: any) => r.id));
    realm.zerver_subscription.find((sub: any) => channelRecipients.has(sub.recipient)).user_profile = 888888;
    fs.writeFileSync(file, JSON.stringify(realm));
  };
  await refused('zulip', damaged(zulipExport, channelSubscriber), /subscriber list refers to unknown user ID 888888/);
});

test('Slack: truncated JSON, missing files, unknown user IDs', { skip: !present }, async () => {
  const slack = path.join(FIXTURES, 'slack');
  await refused('slack', damaged(slack, (d) => truncate(path.join(d, 'channels.json'))), /channels\.json is not valid JSON/);
  await refused('slack', damaged(slack, (d) => truncate(path.join(d, 'random', '2018-01-20.json'))), /random\/2018-01-20\.json is not valid JSON/);
  await refused('slack', damaged(slack, (d) => fs.rmSync(path.join(d, 'users.json'))), /the export has no users\.json/);
  await refused('slack', damaged(slack, (d) => edit(path.join(d, 'random', '2018-01-20.json'), (t) => t.replace(/"user": "U8VAHEVUY"/g, '"user": "U0GHOST"'))), /unknown user ID U0GHOST/);
});

test('Mattermost: truncated JSON, missing files, unknown users', { skip: !present }, async () => {
  const mm = path.join(FIXTURES, 'mattermost');
  await refused('mattermost', damaged(mm, (d) => truncate(path.join(d, 'export.json'))), /export\.json line \d+ is not valid JSON.*truncated/);
  await refused('mattermost', damaged(mm, (d) => fs.rmSync(path.join(d, 'export.json'))), /the export has no export\.json/);
  await refused('mattermost', damaged(mm, (d) => fs.rmSync(path.join(d, 'exported_emoji'), { recursive: true })), /missing file for custom emoji/);
  await refused('mattermost', damaged(mm, (d) => edit(path.join(d, 'export.json'), (t) => t.replace(/("type":"post","post":\{"team":"gryffindor","channel":"[\w-]+","user":)"\w+"/, '$1"nobody"'))), /unknown user nobody/);
});

test("settings with unknown names or values Parley's validation refuses keep Parley's defaults; valid ones are kept", async () => {
  const dir = damaged(zulipExport, (d) => {
    const file = path.join(d, 'realm.json');
    const realm = JSON.parse(fs.readFileSync(file, 'utf8'));
    Object.assign(realm.zerver_realm[0], { invite_required: 'yes', digest_weekday: 99, default_language: 'xx', default_avatar_source: 'Q', no_such_setting: true, waiting_period_threshold: 3, can_invite_users_group: 424242 });
    const bob = realm.zerver_userprofile.find((u: any) => u.full_name === 'Bob Damage');
    Object.assign(bob, { twenty_four_hour_time: 'true', emojiset: 'weird', web_font_size_px: 0, enter_sends: true, __self_set: ['x'] });
    fs.writeFileSync(file, JSON.stringify(realm));
  });
  const out = await runImport(s.running.app, { format: 'zulip', path: dir, subdomain: 'settingscheck' });
  const realm = await db().selectFrom('realms').select('settings').where('id', '=', out.realm_id).executeTakeFirstOrThrow();
  const settings = JSON.parse(realm.settings);
  assert.equal(settings.waiting_period_threshold, 3);
  for (const k of ['invite_required', 'digest_weekday', 'default_language', 'default_avatar_source', 'no_such_setting']) assert.equal(settings[k], undefined, k);
  const members = (await db().selectFrom('user_groups').select('id').where('realm_id', '=', out.realm_id).where('name', '=', 'role:members').executeTakeFirstOrThrow()).id;
  assert.equal(settings.can_invite_users_group, members, 'an unknown group leaves the default group');
  const bob = await db().selectFrom('users').select('settings').where('realm_id', '=', out.realm_id).where('full_name', '=', 'Bob Damage').executeTakeFirstOrThrow();
  assert.deepEqual(JSON.parse(bob.settings), { enter_sends: true, __self_set: ['enter_sends'] });
});

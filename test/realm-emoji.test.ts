// Custom emoji: upload (multipart), names, files, permissions, deactivation, serving, events and Markdown.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { startTestServer, type Client, type TestServer } from './helpers/server.js';
import { queueFor } from './helpers/messages.js';
import { uploadEmoji, uploadEmojiRaw } from './helpers/emoji.js';

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da6364f8cf00000301010018dd8db40000000049454e44ae426082', 'hex');
let s: TestServer;
let mel: Client;
let gus: Client;
let ada: Client;
before(async () => {
  s = await startTestServer();
  mel = await s.user('Mel Member');
  gus = await s.user('Gus Guest', 600);
  ada = await s.user('Ada Admin', 200);
});
after(async () => {
  await s.close();
});

function fetchRaw(url: string): Promise<{ status: number; type: string | undefined; body: Buffer }> {
  return new Promise((resolve, reject) => {
    http.get(url, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: res.headers['content-type'], body: Buffer.concat(chunks) }));
    }).on('error', reject);
  });
}

test('upload, list, serve the file, use it in a message', async () => {
  const modern = await queueFor(ada, { event_types: ['realm_emoji'], client_capabilities: { individual_emoji_changes: true } });
  const legacy = await queueFor(gus, { event_types: ['realm_emoji'] });
  await uploadEmoji(mel, 'Party Parrot', PNG);
  const { emoji } = await mel.ok('GET', 'realm/emoji');
  const [e] = Object.values(emoji) as any[];
  assert.deepEqual({ ...e, id: undefined, source_url: undefined }, { id: undefined, name: 'party_parrot', source_url: undefined, still_url: null, deactivated: false, author_id: mel.userId });
  assert.equal(emoji[e.id].id, e.id);
  const file = await fetchRaw(s.url + e.source_url);
  assert.equal(file.status, 200);
  assert.equal(file.type, 'image/png');
  assert.ok(file.body.equals(PNG));
  assert.equal((await fetchRaw(s.url + e.source_url.replace(/\/[^/]+$/, '/../../x.png'))).status, 404);
  const [add] = await modern.events();
  assert.deepEqual([add.type, add.op, add.emoji], ['realm_emoji', 'add', e]);
  const [upd] = await legacy.events();
  assert.deepEqual([upd.op, upd.realm_emoji], ['update', emoji]);
  const id = (await mel.ok('POST', 'messages', { type: 'stream', to: 'general', topic: 'emoji', content: 'hi :party_parrot:' })).id;
  const m = await mel.ok('GET', `messages/${id}`);
  assert.match(m.message.content, new RegExp(`<img[^>]*src="${e.source_url}"`));
  const reg = await mel.ok('POST', 'register', { fetch_event_types: ['realm_emoji'] });
  assert.deepEqual(reg.realm_emoji, emoji);
});

test('upload errors: name, file count, format, duplicates, permission', async () => {
  let r = await uploadEmojiRaw(mel, 'bad!name', [{ data: PNG }]);
  assert.deepEqual([r.status, r.body.msg], [400, 'Invalid emoji name.']);
  r = await uploadEmojiRaw(mel, 'two', []);
  assert.deepEqual([r.status, r.body.msg], [400, 'You must upload exactly one file.']);
  r = await uploadEmojiRaw(mel, 'two', [{ data: PNG }, { data: PNG }]);
  assert.equal(r.body.msg, 'You must upload exactly one file.');
  r = await uploadEmojiRaw(mel, 'text', [{ data: Buffer.from('not an image at all') }]);
  assert.deepEqual([r.status, r.body.msg], [400, 'Invalid image format']);
  r = await uploadEmojiRaw(mel, 'big', [{ data: Buffer.concat([PNG, Buffer.alloc(5 * 1024 * 1024)]) }]);
  assert.match(r.body.msg, /larger than the allowed limit/);
  r = await uploadEmojiRaw(mel, 'party_parrot', [{ data: PNG }]);
  assert.deepEqual([r.status, r.body.msg], [400, 'A custom emoji with this name already exists.']);
  // Guests are not in the default can_add_custom_emoji_group (members).
  r = await uploadEmojiRaw(gus, 'guest_emoji', [{ data: PNG }]);
  assert.deepEqual([r.status, r.body.msg], [400, 'Insufficient permission']);
});

test('deactivation: author or administrator; unknown names; events in both forms', async () => {
  await uploadEmoji(ada, 'admins_own', PNG);
  let r = await mel.delete('realm/emoji/admins_own');
  assert.deepEqual([r.status, r.body.msg], [400, 'Must be an organization administrator or emoji author']);
  r = await mel.delete('realm/emoji/nope');
  assert.deepEqual([r.status, r.body.code, r.body.msg], [404, 'BAD_REQUEST', "Emoji 'nope' does not exist"]);
  const modern = await queueFor(gus, { event_types: ['realm_emoji'], client_capabilities: { individual_emoji_changes: true } });
  const legacy = await queueFor(mel, { event_types: ['realm_emoji'] });
  await mel.ok('DELETE', 'realm/emoji/party_parrot');
  await ada.ok('DELETE', 'realm/emoji/admins_own');
  const { emoji } = await mel.ok('GET', 'realm/emoji');
  const parrot = (Object.values(emoji) as any[]).find((e) => e.name === 'party_parrot');
  assert.equal(parrot.deactivated, true);
  const evs = await modern.events();
  assert.deepEqual(evs[0], { type: 'realm_emoji', op: 'update_one', emoji_id: parrot.id, data: { deactivated: true }, id: 0 });
  const old = await legacy.events();
  assert.deepEqual(old.map((e) => e.op), ['update', 'update']);
  assert.deepEqual(old[1].realm_emoji, emoji);
  // The name is free again; the deactivated emoji no longer renders.
  await uploadEmoji(mel, 'party_parrot', PNG);
  r = await mel.delete('realm/emoji/admins_own');
  assert.equal(r.status, 404);
});

// Reacting with custom emoji (reaction_type realm_emoji): by name, by ID, the original's errors, deactivation.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type Client, type TestServer } from './helpers/server.js';
import { queueFor } from './helpers/messages.js';
import { uploadEmoji } from './helpers/emoji.js';

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da6364f8cf00000301010018dd8db40000000049454e44ae426082', 'hex');
let s: TestServer;
let rae: Client;
let sid: Client;
let msg = 0;
let parrotId = '';

before(async () => {
  s = await startTestServer();
  rae = await s.user('Rae React');
  sid = await s.user('Sid Sees');
  msg = (await rae.ok('POST', 'messages', { type: 'stream', to: 'general', topic: 'custom', content: 'react to me' })).id;
  await uploadEmoji(rae, 'party_parrot', PNG);
  await uploadEmoji(rae, 'octopus', PNG);
  const { emoji } = await rae.ok('GET', 'realm/emoji');
  parrotId = (Object.values(emoji) as any[]).find((e) => e.name === 'party_parrot').id;
});
after(async () => {
  await s.close();
});

test('a custom emoji by name and by ID; the reaction event and the message carry its ID as the code', async () => {
  const q = await queueFor(sid);
  await rae.ok('POST', `messages/${msg}/reactions`, { emoji_name: 'party_parrot' });
  const ev = (await q.events()).find((e) => e.type === 'reaction');
  assert.deepEqual([ev?.op, ev?.emoji_name, ev?.emoji_code, ev?.reaction_type], ['add', 'party_parrot', parrotId, 'realm_emoji']);
  const dup = await sid.post(`messages/${msg}/reactions`, { emoji_name: 'party_parrot', emoji_code: parrotId, reaction_type: 'realm_emoji' }, { as: 'multipart' });
  assert.equal(dup.status, 200);
  const m = (await sid.ok('GET', `messages/${msg}`)).message;
  assert.deepEqual(
    m.reactions.map((r: any) => [r.emoji_name, r.emoji_code, r.reaction_type, r.user_id]),
    [
      ['party_parrot', parrotId, 'realm_emoji', rae.userId],
      ['party_parrot', parrotId, 'realm_emoji', sid.userId],
    ],
  );
  // Removing by code, then by name.
  await sid.ok('DELETE', `messages/${msg}/reactions`, { emoji_code: parrotId, reaction_type: 'realm_emoji' }, { as: 'query' });
  await rae.ok('DELETE', `messages/${msg}/reactions`, { emoji_name: 'party_parrot' });
  assert.deepEqual((await rae.ok('GET', `messages/${msg}`)).message.reactions, []);
});

test('a custom emoji shadows the Unicode emoji of the same name, as in the original', async () => {
  await rae.ok('POST', `messages/${msg}/reactions`, { emoji_name: 'octopus' });
  const [r] = (await rae.ok('GET', `messages/${msg}`)).message.reactions;
  assert.equal(r.reaction_type, 'realm_emoji');
  await rae.ok('DELETE', `messages/${msg}/reactions`, { emoji_name: 'octopus' });
  // The Unicode one is still reachable by its code.
  await rae.ok('POST', `messages/${msg}/reactions`, { emoji_name: 'octopus', emoji_code: '1f419', reaction_type: 'unicode_emoji' });
  await rae.ok('DELETE', `messages/${msg}/reactions`, { emoji_code: '1f419' });
});

test('errors: unknown ID, wrong name, deactivated emoji (still removable), another organization', async () => {
  let r = await rae.post(`messages/${msg}/reactions`, { emoji_name: 'party_parrot', emoji_code: '999999', reaction_type: 'realm_emoji' });
  assert.deepEqual([r.status, r.body.code, r.body.msg], [400, 'BAD_REQUEST', 'Invalid custom emoji.']);
  r = await rae.post(`messages/${msg}/reactions`, { emoji_name: 'parrot', emoji_code: parrotId, reaction_type: 'realm_emoji' });
  assert.deepEqual([r.status, r.body.msg], [400, 'Invalid custom emoji name.']);
  r = await rae.post(`messages/${msg}/reactions`, { emoji_name: 'party_parrot', reaction_type: 'unicode_emoji' });
  assert.deepEqual([r.status, r.body.msg], [400, "Emoji 'party_parrot' does not exist"]);

  await sid.ok('POST', `messages/${msg}/reactions`, { emoji_name: 'party_parrot' });
  await s.owner.ok('DELETE', 'realm/emoji/party_parrot');
  r = await rae.post(`messages/${msg}/reactions`, { emoji_name: 'party_parrot', emoji_code: parrotId, reaction_type: 'realm_emoji' });
  assert.deepEqual([r.status, r.body.msg], [400, 'This custom emoji has been deactivated.']);
  r = await rae.post(`messages/${msg}/reactions`, { emoji_name: 'party_parrot' });
  assert.deepEqual([r.status, r.body.msg], [400, "Emoji 'party_parrot' does not exist"]);
  await sid.ok('DELETE', `messages/${msg}/reactions`, { emoji_code: parrotId, reaction_type: 'realm_emoji' });

  // Another organization's emoji IDs mean nothing here.
  const { owner: other } = await s.realm2('emojiorg');
  const omsg = (await other.ok('POST', 'messages', { type: 'direct', to: [other.userId], content: 'hi' })).id;
  r = await other.post(`messages/${omsg}/reactions`, { emoji_name: 'octopus', emoji_code: parrotId, reaction_type: 'realm_emoji' });
  assert.deepEqual([r.status, r.body.msg], [400, 'Invalid custom emoji.']);
  r = await other.post(`messages/${msg}/reactions`, { emoji_name: 'octopus' });
  assert.equal(r.status, 400);
});

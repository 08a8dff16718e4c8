// Emoji reactions: adding and removing by name or code, errors, access, and the reaction events.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type Client, type TestServer } from './helpers/server.js';
import { newChannel, queueFor } from './helpers/messages.js';

let s: TestServer;
let rae: Client;
let sid: Client;
let msg = 0;

before(async () => {
  s = await startTestServer();
  rae = await s.user('Rae React');
  sid = await s.user('Sid Sees');
  msg = (await rae.ok('POST', 'messages', { type: 'stream', to: 'general', topic: 'fun', content: 'react to me' })).id;
});
after(async () => {
  await s.close();
});

test('add by name, see it on the message, and remove it; events reach recipients', async () => {
  const q = await queueFor(sid);
  await rae.ok('POST', `messages/${msg}/reactions`, { emoji_name: 'octopus' });
  const m = (await sid.ok('GET', `messages/${msg}`)).message;
  assert.deepEqual(m.reactions, [{ emoji_name: 'octopus', emoji_code: '1f419', reaction_type: 'unicode_emoji', user_id: rae.userId }]);
  const add = (await q.events()).find((e) => e.type === 'reaction');
  assert.deepEqual(add, {
    type: 'reaction',
    op: 'add',
    message_id: msg,
    emoji_name: 'octopus',
    emoji_code: '1f419',
    reaction_type: 'unicode_emoji',
    user_id: rae.userId,
    id: add?.id,
  });
  const dup = await rae.post(`messages/${msg}/reactions`, { emoji_name: 'octopus' });
  assert.equal(dup.status, 400);
  assert.equal(dup.body.msg, 'Reaction already exists.');
  await rae.ok('DELETE', `messages/${msg}/reactions`, { emoji_name: 'octopus' });
  const rm = (await q.events()).find((e) => e.type === 'reaction');
  assert.equal(rm?.op, 'remove');
  const again = await rae.delete(`messages/${msg}/reactions`, { emoji_name: 'octopus' });
  assert.equal(again.body.code, 'REACTION_DOES_NOT_EXIST');
  assert.equal(again.body.msg, "Reaction doesn't exist.");
});

test('emoji codes, reaction types and the service extra emoji', async () => {
  await rae.ok('POST', `messages/${msg}/reactions`, { emoji_name: '+1', emoji_code: '1f44d', reaction_type: 'unicode_emoji' });
  await rae.ok('DELETE', `messages/${msg}/reactions`, { emoji_code: '1f44d', reaction_type: 'unicode_emoji' }, { as: 'query' });
  await rae.ok('POST', `messages/${msg}/reactions`, { emoji_name: 'parley', reaction_type: 'service_extra_emoji' }, { as: 'multipart' });
  await rae.ok('POST', `messages/${msg}/reactions`, { emoji_name: 'zulip', emoji_code: 'zulip', reaction_type: 'zulip_extra_emoji' });
  const m = (await rae.ok('GET', `messages/${msg}`)).message;
  assert.deepEqual(
    m.reactions.map((r: any) => [r.emoji_name, r.reaction_type]),
    [
      ['parley', 'service_extra_emoji'],
      ['zulip', 'service_extra_emoji'],
    ],
  );
  const badName = await rae.post(`messages/${msg}/reactions`, { emoji_name: 'not_an_emoji_at_all' });
  assert.equal(badName.status, 400);
  assert.equal(badName.body.msg, "Emoji 'not_an_emoji_at_all' does not exist");
  const badCode = await rae.post(`messages/${msg}/reactions`, { emoji_name: 'octopus', emoji_code: 'zzzz' });
  assert.equal(badCode.body.code, 'BAD_REQUEST');
  const missing = await rae.post(`messages/${msg}/reactions`, {});
  assert.equal(missing.body.code, 'REQUEST_VARIABLE_MISSING');
});

test('reactions need access to the message', async () => {
  const secret = await newChannel(s, 'react-secret', { inviteOnly: true, subscribers: [rae] });
  const hidden = (await rae.ok('POST', 'messages', { type: 'stream', to: secret.id, topic: 't', content: 'hidden' })).id;
  const r = await sid.post(`messages/${hidden}/reactions`, { emoji_name: 'smile' });
  assert.equal(r.body.msg, 'Invalid message(s)');
  const other = await s.realm2('react-other');
  const o = await other.owner.post(`messages/${msg}/reactions`, { emoji_name: 'smile' });
  assert.equal(o.body.msg, 'Invalid message(s)');
  // A member who joined later reacts to public history: the message enters their history.
  const late = await s.user('Lou Late');
  await late.ok('POST', `messages/${msg}/reactions`, { emoji_name: 'smile' });
  const m = (await late.ok('GET', `messages/${msg}`)).message;
  assert.deepEqual(m.flags, ['read', 'historical']);
});

// GET /streams/{stream_id}/email_address: the per-channel gateway address, its sender rules and refusals.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type Client, type TestServer } from './helpers/server.js';
import { newChannel } from './helpers/messages.js';

let s: TestServer;
let ann: Client;
let ben: Client;
let gus: Client;

before(async () => {
  s = await startTestServer();
  ann = await s.user('Ann Poster');
  ben = await s.user('Ben Other');
  gus = await s.user('Gus Guest', 600);
});
after(async () => {
  await s.close();
});

const ADDRESS = /^([a-z0-9-]+)\.([0-9a-f]{32})@localhost$/;

test('the address: channel slug and a secret token; stable per sender, different per caller and sender', async () => {
  const ch = await newChannel(s, 'Support Desk!', { subscribers: [ann] });
  const a = await ann.ok('GET', `streams/${ch.id}/email_address`);
  const m = ADDRESS.exec(a.email);
  assert.ok(m, a.email);
  assert.equal(m[1], 'support-desk');
  assert.equal((await ann.ok('GET', `streams/${ch.id}/email_address`)).email, a.email);
  const b = await ben.ok('GET', `streams/${ch.id}/email_address`);
  assert.notEqual(b.email, a.email, 'each caller gets their own token');
  const self = await ann.ok('GET', `streams/${ch.id}/email_address`, { sender_id: ann.userId });
  assert.notEqual(self.email, a.email);
  const row = await s.running.app.store.db.selectFrom('channel_email_addresses').selectAll().where('email_token', '=', ADDRESS.exec(self.email)![2]).executeTakeFirstOrThrow();
  assert.equal(row.sender_id, ann.userId);
  assert.equal(row.stream_id, ch.id);
  // The default sender is the email gateway bot; naming it explicitly gives the same address.
  const gatewayRow = await s.running.app.store.db.selectFrom('channel_email_addresses').selectAll().where('email_token', '=', m[2]).executeTakeFirstOrThrow();
  const gateway = await s.running.app.store.db.selectFrom('users').selectAll().where('id', '=', gatewayRow.sender_id).executeTakeFirstOrThrow();
  assert.equal(gateway.full_name, 'Email Gateway');
  assert.equal(gateway.is_bot, 1);
  assert.equal((await ann.ok('GET', `streams/${ch.id}/email_address`, { sender_id: gateway.id }, { as: 'query' })).email, a.email);
});

test('sender_id: a bot the caller owns is allowed; someone else, or another user’s bot, is not', async () => {
  const ch = await newChannel(s, 'bots-welcome', { subscribers: [ann] });
  const bot = await ann.ok('POST', 'bots', { full_name: 'Ann Mail Bot', short_name: 'annmail' });
  const viaBot = await ann.ok('GET', `streams/${ch.id}/email_address`, { sender_id: bot.user_id });
  assert.match(viaBot.email, ADDRESS);
  const other = await ann.get(`streams/${ch.id}/email_address`, { sender_id: ben.userId });
  assert.equal(other.status, 400);
  assert.equal(other.body.msg, 'Invalid sender_id');
  const notOwner = await ben.get(`streams/${ch.id}/email_address`, { sender_id: bot.user_id });
  assert.equal(notOwner.body.msg, 'Invalid sender_id');
  const bad = await ann.get(`streams/${ch.id}/email_address`, { sender_id: 'x' });
  assert.equal(bad.body.code, 'BAD_REQUEST');
});

test('BAD_REQUEST for unknown, inaccessible and other organizations’ channels; only those allowed to post', async () => {
  const unknown = await ann.get('streams/999999/email_address');
  assert.equal(unknown.status, 400);
  assert.equal(unknown.body.code, 'BAD_REQUEST');
  assert.equal(unknown.body.msg, 'Invalid channel ID');
  const secret = await newChannel(s, 'secret', { inviteOnly: true, subscribers: [ann] });
  assert.equal((await ben.get(`streams/${secret.id}/email_address`)).body.msg, 'Invalid channel ID');
  assert.match((await ann.ok('GET', `streams/${secret.id}/email_address`)).email, ADDRESS);
  const pub = await newChannel(s, 'open', { subscribers: [] });
  const guest = await gus.get(`streams/${pub.id}/email_address`);
  assert.equal(guest.status, 400);
  assert.equal(guest.body.code, 'BAD_REQUEST');
  const other = await s.realm2('mailorg');
  assert.equal((await other.owner.get(`streams/${pub.id}/email_address`)).body.msg, 'Invalid channel ID');

  // A channel where only administrators may post.
  const admins = (await s.running.app.store.db.selectFrom('user_groups').select('id').where('realm_id', '=', s.realm.id).where('name', '=', 'role:administrators').executeTakeFirstOrThrow()).id;
  const announce = await newChannel(s, 'announce', { subscribers: [ann, s.owner] });
  await s.running.app.store.db.updateTable('streams').set({ permissions: JSON.stringify({ can_send_message_group: admins }) }).where('id', '=', announce.id).execute();
  const denied = await ann.get(`streams/${announce.id}/email_address`);
  assert.equal(denied.status, 400);
  assert.equal(denied.body.msg, 'You do not have permission to post in this channel.');
  assert.match((await s.owner.ok('GET', `streams/${announce.id}/email_address`)).email, ADDRESS);
});

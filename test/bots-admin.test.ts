// Bot administration: GET /bots, PATCH and DELETE /bots/{id}, API keys; permissions and events.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type Client, type TestServer } from './helpers/server.js';
import { queueFor } from './helpers/messages.js';
import { notificationBot } from '../src/actions/system-bots.js';

let s: TestServer;
let ann: Client; // a member who owns bots
let ben: Client; // another member
let ada: Client; // an administrator
let gus: Client;
before(async () => {
  s = await startTestServer();
  ann = await s.user('Ann Owner');
  ben = await s.user('Ben Other');
  ada = await s.user('Ada Admin', 200);
  gus = await s.user('Gus Guest', 600);
});
after(async () => {
  await s.close();
});

const bare = async (q: { events(): Promise<Record<string, any>[]> }) => (await q.events()).map(({ id: _id, ...e }) => e);
const newBot = async (c: Client, short: string) => (await c.ok('POST', 'bots', { full_name: `${short} bot`, short_name: short })) as { user_id: number; api_key: string };
const expectError = async (p: Promise<{ status: number; body: Record<string, any> }>, msg: string, status = 400) => {
  const r = await p;
  assert.deepEqual([r.status, r.body.result, r.body.msg], [status, 'error', msg]);
};

test('GET /bots: own bots for members, every bot for administrators', async () => {
  const a = await newBot(ann, 'annlist');
  const b = await newBot(ben, 'benlist');
  const mine = (await ann.ok('GET', 'bots')).bots;
  assert.deepEqual(mine.map((x: any) => x.user_id), [a.user_id]);
  assert.equal(mine[0].api_key, a.api_key);
  assert.equal(mine[0].bot_owner_id, ann.userId);
  assert.deepEqual([mine[0].default_sending_stream, mine[0].default_events_register_stream, mine[0].default_all_public_streams], [null, null, false]);
  const all = (await ada.ok('GET', 'bots')).bots.map((x: any) => x.user_id);
  assert.ok(all.includes(a.user_id) && all.includes(b.user_id));
  assert.deepEqual((await gus.ok('GET', 'bots')).bots, []);
});

test('PATCH /bots/{id}: name, default channels, owner; events to the right users', async () => {
  const bot = await newBot(ann, 'patchy');
  const [qAnn, qBen, qAda, qGus] = await Promise.all([ann, ben, ada, gus].map((c) => queueFor(c, { event_types: ['realm_user', 'realm_bot'] })));
  await ann.ok('PATCH', `bots/${bot.user_id}`, { full_name: 'Patchy Renamed' });
  for (const q of [qAnn, qBen, qAda, qGus]) assert.deepEqual(await bare(q), [{ type: 'realm_user', op: 'update', person: { user_id: bot.user_id, full_name: 'Patchy Renamed' } }]);

  await ann.ok('PATCH', `bots/${bot.user_id}`, { default_sending_stream: 'general', default_all_public_streams: true }, { as: 'multipart' });
  const upd = await bare(qAnn);
  assert.deepEqual(upd, [
    { type: 'realm_bot', op: 'update', bot: { user_id: bot.user_id, default_sending_stream: 'general' } },
    { type: 'realm_bot', op: 'update', bot: { user_id: bot.user_id, default_all_public_streams: true } },
  ]);
  assert.deepEqual(await bare(qAda), upd);
  assert.deepEqual(await bare(qBen), [], 'realm_bot goes only to the owner and administrators');
  const listed = (await ann.ok('GET', 'bots')).bots.find((b: any) => b.user_id === bot.user_id);
  assert.deepEqual([listed.default_sending_stream, listed.default_all_public_streams, listed.full_name], ['general', true, 'Patchy Renamed']);
  await ann.ok('PATCH', `bots/${bot.user_id}`, { default_sending_stream: '' });
  assert.equal((await ann.ok('GET', 'bots')).bots.find((b: any) => b.user_id === bot.user_id).default_sending_stream, null);

  // A new owner: everyone sees bot_owner_id; the old owner loses the bot, the new one gains it.
  await bare(qAnn);
  await bare(qAda);
  await ann.ok('PATCH', `bots/${bot.user_id}`, { bot_owner_id: ben.userId });
  const ownerForm = { type: 'realm_user', op: 'update', person: { user_id: bot.user_id, bot_owner_id: ben.userId } };
  assert.deepEqual(await bare(qAnn), [ownerForm, { type: 'realm_bot', op: 'delete', bot: { user_id: bot.user_id } }]);
  const benEvents = await bare(qBen);
  assert.deepEqual(benEvents[0], ownerForm);
  assert.deepEqual([benEvents[1].type, benEvents[1].op, benEvents[1].bot.user_id], ['realm_bot', 'add', bot.user_id]);
  assert.deepEqual(await bare(qAda), [ownerForm]);
  assert.deepEqual(await bare(qGus), [ownerForm]);
  await expectError(ann.patch(`bots/${bot.user_id}`, { full_name: 'Stolen' }), 'Insufficient permission');
  assert.equal((await s.owner.ok('GET', `users/${bot.user_id}`)).user.bot_owner_id, ben.userId);
});

test('PATCH errors and permissions', async () => {
  const bot = await newBot(ann, 'errs');
  const other = await newBot(ann, 'errs2');
  await expectError(ben.patch(`bots/${bot.user_id}`, { full_name: 'Nope' }), 'Insufficient permission');
  await expectError(gus.patch(`bots/${bot.user_id}`, { full_name: 'Nope' }), 'Insufficient permission');
  await expectError(ann.patch(`bots/${ben.userId}`, { full_name: 'Nope' }), 'No such bot');
  await expectError(ann.patch('bots/999999', { full_name: 'Nope' }), 'No such bot');
  await expectError(ann.patch(`bots/${bot.user_id}`, { full_name: '  ' }), 'Name too short!');
  await expectError(ann.patch(`bots/${bot.user_id}`, { full_name: 'errs2 bot' }), 'Name is already in use!');
  await expectError(ann.patch(`bots/${bot.user_id}`, { bot_owner_id: 999999 }), 'Failed to change owner, no such user');
  await expectError(ann.patch(`bots/${bot.user_id}`, { bot_owner_id: other.user_id }), "Failed to change owner, bots can't own other bots");
  await expectError(ann.patch(`bots/${bot.user_id}`, { bot_owner_id: 'x' }), 'bot_owner_id is not an integer');
  await expectError(ann.patch(`bots/${bot.user_id}`, { default_sending_stream: 'no such channel' }), "Invalid channel name 'no such channel'");
  await expectError(ann.patch(`bots/${bot.user_id}`, { default_all_public_streams: 'maybe' }), 'default_all_public_streams is not a boolean');
  await expectError(ann.patch(`bots/${bot.user_id}`, { role: 250 }), 'Invalid role');
  // Roles are administrators' to give, as for people.
  await expectError(ann.patch(`bots/${bot.user_id}`, { role: 300 }), 'Must be an organization administrator');
  // A refused role leaves the rest of the request undone too.
  await expectError(ann.patch(`bots/${bot.user_id}`, { full_name: 'Half done', role: 300 }), 'Must be an organization administrator');
  await expectError(ada.patch(`bots/${bot.user_id}`, { full_name: 'Half done', role: 100 }), 'Must be an organization owner');
  assert.notEqual((await ada.ok('GET', `users/${bot.user_id}`)).user.full_name, 'Half done');
  await ada.ok('PATCH', `bots/${bot.user_id}`, { role: 300 });
  assert.equal((await ada.ok('GET', `users/${bot.user_id}`)).user.role, 300);
  // Another organization's administrator cannot reach the bot.
  const r2 = await s.realm2('botsother');
  await expectError(r2.owner.patch(`bots/${bot.user_id}`, { full_name: 'Far' }), 'No such bot');
  // System bots belong to the server.
  const nb = await notificationBot(s.running.app, s.realm);
  await expectError(s.owner.patch(`bots/${nb.id}`, { full_name: 'Mine now' }), 'Insufficient permission');
  await expectError(s.owner.delete(`bots/${nb.id}`), 'Insufficient permission');
});

test('API key: owner and administrators; regenerating stops the old key at once', async () => {
  const bot = await newBot(ann, 'keyed');
  const email = (await ann.ok('GET', `users/${bot.user_id}`)).user.email;
  const asBot = (key: string) => s.owner.api('GET', 'users/me', {}, { auth: { email, apiKey: key } });
  assert.equal((await asBot(bot.api_key)).status, 200);
  assert.equal((await ann.ok('GET', `bots/${bot.user_id}/api_key`)).api_key, bot.api_key);
  await expectError(ben.get(`bots/${bot.user_id}/api_key`), 'Insufficient permission');
  const { api_key } = await ann.ok('POST', `bots/${bot.user_id}/api_key/regenerate`);
  assert.notEqual(api_key, bot.api_key);
  assert.equal((await asBot(bot.api_key)).status, 401, 'the old key is refused immediately');
  assert.equal((await asBot(api_key)).status, 200);
  const again = (await ada.ok('POST', `bots/${bot.user_id}/api_key/regenerate`)).api_key;
  assert.equal((await asBot(api_key)).status, 401);
  assert.equal((await asBot(again)).status, 200);
  await expectError(ben.post(`bots/${bot.user_id}/api_key/regenerate`), 'Insufficient permission');
  await expectError(gus.post(`bots/${bot.user_id}/api_key/regenerate`), 'Insufficient permission');
});

test('DELETE /bots/{id}: deactivates; events; the bot can no longer act', async () => {
  const bot = await newBot(ann, 'doomed');
  const email = (await ann.ok('GET', `users/${bot.user_id}`)).user.email;
  await expectError(ben.delete(`bots/${bot.user_id}`), 'Insufficient permission');
  const [qAnn, qBen] = await Promise.all([ann, ben].map((c) => queueFor(c, { event_types: ['realm_user', 'realm_bot'] })));
  await ann.ok('DELETE', `bots/${bot.user_id}`);
  assert.deepEqual(await bare(qBen), [{ type: 'realm_user', op: 'update', person: { user_id: bot.user_id, is_active: false } }]);
  const annEvents = await bare(qAnn);
  assert.deepEqual(annEvents[1], { type: 'realm_bot', op: 'remove', bot: { user_id: bot.user_id, full_name: 'doomed bot' } });
  assert.equal((await s.owner.api('GET', 'users/me', {}, { auth: { email, apiKey: bot.api_key } })).status, 401);
  assert.equal((await ann.ok('GET', `users/${bot.user_id}`)).user.is_active, false);
  await expectError(ann.delete(`bots/${bot.user_id}`), 'No such bot');
  assert.ok(!(await ann.ok('GET', 'bots')).bots.some((b: any) => b.user_id === bot.user_id));
});

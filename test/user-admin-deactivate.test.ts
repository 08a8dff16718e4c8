// DELETE /users/{user_id} and POST /users/{user_id}/reactivate: bots first, actions, email, queues, authentication.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startTestServer, type Client, type TestServer } from './helpers/server.js';
import { MODERN_CAPABILITIES, checkConsistency, drainEvents } from './helpers/events.js';
import { limitAccessToMembers } from './helpers/people.js';
import { newChannel } from './helpers/messages.js';

let s: TestServer;
let admin: Client;
let member: Client;
before(async () => {
  s = await startTestServer();
  admin = await s.user('Ada Admin', 200);
  member = await s.user('Mel Member');
});
after(async () => {
  await s.close();
});

const getUser = async (id: number) => (await s.owner.ok('GET', `users/${id}`)).user;

function mailsTo(address: string): string[] {
  const dir = path.join(s.running.app.config.dataDir, 'outbox');
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .sort()
    .map((f) => fs.readFileSync(path.join(dir, f), 'utf8'))
    .filter((m) => m.includes(`\r\nTo: ${address}\r\n`));
}

test('deactivation: bots first, realm_user and realm_bot events, queues gone, authentication refused at once', async () => {
  const u = await s.user('Dee Activated');
  const bot = await u.ok('POST', 'bots', { full_name: 'Dee Bot', short_name: 'deebot' });
  const watcher = await s.user('Wat Cher');
  const q = await watcher.ok('POST', 'register', { event_types: ['realm_user'] });
  const aq = await admin.ok('POST', 'register', { event_types: ['realm_bot'] });
  const own = await u.ok('POST', 'register', { event_types: ['message'] });
  await admin.ok('DELETE', `users/${u.userId}`);

  assert.equal((await getUser(u.userId)).is_active, false);
  assert.equal((await getUser(bot.user_id)).is_active, false);
  const events = await drainEvents(watcher, q.queue_id);
  const deact = events.filter((e) => e.type === 'realm_user' && e.person.is_active === false).map((e) => e.person.user_id);
  assert.deepEqual(deact, [bot.user_id, u.userId]);
  const botEvents = await drainEvents(admin, aq.queue_id);
  assert.ok(botEvents.some((e) => e.type === 'realm_bot' && e.op === 'delete' && e.bot.user_id === bot.user_id));
  // The user's queue is gone and the key no longer works.
  const poll = await s.owner.get('events', { queue_id: own.queue_id, last_event_id: -1, dont_block: true }, { auth: { email: u.email, apiKey: u.apiKey } });
  assert.deepEqual([poll.status, poll.body.code], [401, 'USER_DEACTIVATED']);
  assert.equal(s.running.app.queues.get(own.queue_id), undefined);
  const botCall = await s.owner.get('users/me', {}, { auth: { email: `deebot-bot@localhost`, apiKey: bot.api_key } });
  assert.equal(botCall.status, 401);
  const login = await s.owner.post('fetch_api_key', { username: u.email, password: 'dee.activated-password' }, { auth: null });
  assert.deepEqual([login.status, login.body.code], [401, 'USER_DEACTIVATED']);

  // Already deactivated; bots go through DELETE /bots.
  let r = await admin.delete(`users/${u.userId}`);
  assert.deepEqual([r.status, r.body.msg], [400, 'User is deactivated']);
  const activeBot = await member.ok('POST', 'bots', { full_name: 'Live Bot', short_name: 'livebot' });
  r = await admin.delete(`users/${activeBot.user_id}`);
  assert.equal(r.body.msg, 'No such user');
});

test('permissions: administrators only, owners for owners, the only owner stays, other organizations', async () => {
  const u = await s.user('Per Mission');
  let r = await member.delete(`users/${u.userId}`);
  assert.deepEqual([r.status, r.body.code, r.body.msg], [400, 'BAD_REQUEST', 'Must be an organization administrator']);
  r = await s.owner.delete(`users/${s.owner.userId}`);
  assert.deepEqual([r.status, r.body.code, r.body.msg], [400, 'BAD_REQUEST', 'Cannot deactivate the only organization owner']);
  const owner2 = await s.user('Sec Owner', 100);
  r = await admin.delete(`users/${owner2.userId}`);
  assert.equal(r.body.msg, 'Must be an organization owner');
  // With a second owner, the first one can go, and come back.
  await owner2.ok('DELETE', `users/${s.owner.userId}`);
  await owner2.ok('POST', `users/${s.owner.userId}/reactivate`);
  const other = await s.realm2('deactorg');
  r = await other.owner.delete(`users/${u.userId}`);
  assert.equal(r.body.msg, 'No such user');
  r = await admin.delete(`users/${u.userId}`, { actions: { delete_everything: true } });
  assert.equal(r.body.msg, 'Invalid actions key: delete_everything');
  r = await admin.delete(`users/${u.userId}`, { actions: { delete_profile: 'yes' } });
  assert.equal(r.body.msg, 'actions["delete_profile"] is not a boolean');
  assert.equal((await getUser(u.userId)).is_active, true);
});

test('actions: delete_profile and message deletions, applied to the bots and the user', async () => {
  const u = await s.user('Del Messages');
  const bot = await u.ok('POST', 'bots', { full_name: 'Del Bot', short_name: 'delbot' });
  await newChannel(s, 'deact-public', { subscribers: [u, member] });
  await newChannel(s, 'deact-private', { inviteOnly: true, subscribers: [u, member] });
  const pub = (await u.ok('POST', 'messages', { type: 'stream', to: 'deact-public', topic: 't', content: 'public' })).id;
  const priv = (await u.ok('POST', 'messages', { type: 'stream', to: 'deact-private', topic: 't', content: 'private' })).id;
  const dm = (await u.ok('POST', 'messages', { type: 'direct', to: [member.userId], content: 'direct' })).id;
  const botDm = (await s.owner.ok('POST', 'messages', { type: 'direct', to: [member.userId], content: 'keep' }, {})).id;
  const botMsg = (await member.ok('POST', 'messages', { type: 'direct', to: [bot.user_id], content: 'to the bot' })).id;
  const q = await member.ok('POST', 'register', { event_types: ['delete_message', 'realm_user'], client_capabilities: { bulk_message_deletion: true } });
  await admin.ok('DELETE', `users/${u.userId}`, { actions: { delete_profile: true, delete_public_channel_messages: true, delete_direct_messages: true } }, { as: 'multipart' });

  const events = await drainEvents(member, q.queue_id);
  const deleted = events.filter((e) => e.type === 'delete_message').flatMap((e) => e.message_ids);
  assert.deepEqual(deleted.sort(), [pub, dm].sort());
  const fetched = await member.ok('GET', 'messages', { anchor: 'newest', num_before: 50, num_after: 0 });
  const ids = fetched.messages.map((m: any) => m.id);
  assert.ok(ids.includes(priv) && ids.includes(botDm) && ids.includes(botMsg));
  assert.ok(!ids.includes(pub) && !ids.includes(dm));
  const gone = await getUser(u.userId);
  assert.equal(gone.full_name, 'Deleted user');
  assert.equal(gone.is_deleted, true);
  assert.ok(!String(gone.avatar_url).includes('gravatar'));
  const goneBot = await getUser(bot.user_id);
  assert.equal(goneBot.full_name, 'Deleted user');
  assert.equal(goneBot.is_deleted, true);
  assert.ok(events.some((e) => e.type === 'realm_user' && e.person.user_id === u.userId && e.person.full_name === 'Deleted user'));
  // Without actions nothing is deleted and is_deleted stays absent.
  const v = await s.user('Plain Leaver');
  await admin.ok('DELETE', `users/${v.userId}`, {}, { as: 'query' });
  assert.equal('is_deleted' in (await getUser(v.userId)), false);
});

test('deactivation_notification_comment sends the notification email', async () => {
  const a = await s.user('Mail Custom');
  const b = await s.user('Mail Plain');
  const c = await s.user('Mail None');
  await admin.ok('DELETE', `users/${a.userId}`, { deactivation_notification_comment: 'Farewell, and thanks!' });
  await admin.ok('DELETE', `users/${b.userId}`, { deactivation_notification_comment: '' });
  await admin.ok('DELETE', `users/${c.userId}`);
  const [ma] = mailsTo(a.email);
  assert.ok(ma.includes('deactivated') && ma.includes('Farewell, and thanks!'));
  const [mb] = mailsTo(b.email);
  assert.ok(mb.includes('deactivated') && !mb.includes('The administrator wrote'));
  assert.equal(mailsTo(c.email).length, 0);
  const long = await s.user('Mail Long');
  const r = await admin.delete(`users/${long.userId}`, { deactivation_notification_comment: 'x'.repeat(2001) });
  assert.equal(r.body.msg, 'deactivation_notification_comment is too long (limit: 2000 characters)');
});

test('reactivation: is_active true event, the key works again; errors', async () => {
  const u = await s.user('Re Active');
  await admin.ok('DELETE', `users/${u.userId}`);
  let r = await member.post(`users/${u.userId}/reactivate`);
  assert.equal(r.body.msg, 'Must be an organization administrator');
  const q = await member.ok('POST', 'register', { event_types: ['realm_user'] });
  await admin.ok('POST', `users/${u.userId}/reactivate`);
  const events = await drainEvents(member, q.queue_id);
  assert.ok(events.some((e) => e.type === 'realm_user' && e.person.user_id === u.userId && e.person.is_active === true));
  assert.equal((await u.get('users/me')).status, 200);
  // Group events name only groups clients know: a group's creator is also in its anonymous can_manage_group.
  await u.ok('POST', 'user_groups/create', { name: 'Re Actives', description: '', members: [u.userId] });
  await admin.ok('DELETE', `users/${u.userId}`);
  const gq = await member.ok('POST', 'register', { event_types: ['user_group'], fetch_event_types: ['realm_user_groups'] });
  await admin.ok('POST', `users/${u.userId}/reactivate`);
  const known = new Set((gq.realm_user_groups as { id: number }[]).map((g) => g.id));
  const groupEvents = (await drainEvents(member, gq.queue_id)).filter((e) => e.type === 'user_group');
  assert.ok(groupEvents.length > 0);
  for (const e of groupEvents) assert.ok(known.has(e.group_id), `user_group ${e.op} names group ${e.group_id}, which no client has`);
  r = await admin.post(`users/${u.userId}/reactivate`);
  assert.deepEqual([r.status, r.body.msg], [400, 'User is already active']);
  r = await admin.post('users/999999/reactivate');
  assert.equal(r.body.msg, 'No such user');
  // A bot comes back only with its owner.
  const owner = await s.user('Bot Keeper');
  const bot = await owner.ok('POST', 'bots', { full_name: 'Kept Bot', short_name: 'keptbot' });
  await admin.ok('DELETE', `users/${owner.userId}`);
  r = await admin.post(`users/${bot.user_id}/reactivate`);
  assert.deepEqual([r.status, r.body.msg], [400, 'Cannot reactivate a bot whose owner is deactivated']);
  const aq = await admin.ok('POST', 'register', { event_types: ['realm_bot'] });
  await admin.ok('POST', `users/${owner.userId}/reactivate`);
  await admin.ok('POST', `users/${bot.user_id}/reactivate`);
  const botEvents = await drainEvents(admin, aq.queue_id);
  assert.ok(botEvents.some((e) => e.type === 'realm_bot' && e.op === 'add' && e.bot.user_id === bot.user_id));
});

// Last: it limits who may see whom for the rest of the file.
test('a restricted guest who may not access the user keeps a consistent state through deactivation and reactivation', async () => {
  await limitAccessToMembers(s);
  const gus = await s.user('Gus Restricted', 600);
  const vic = await s.user('Vic Hidden');
  await vic.ok('POST', 'user_groups/create', { name: 'Vic Team', description: '', members: [vic.userId] });
  for (const register of [{}, { client_capabilities: { ...MODERN_CAPABILITIES, user_list_incomplete: true } }]) {
    const down = await checkConsistency(gus, () => admin.ok('DELETE', `users/${vic.userId}`, { actions: JSON.stringify({ delete_profile: false }) }), { register });
    assert.ok(!down.some((e) => e.type === 'realm_user' && e.person.user_id === vic.userId), 'nothing about a user the guest may not access');
    await checkConsistency(gus, () => admin.ok('POST', `users/${vic.userId}/reactivate`), { register });
  }
  await checkConsistency(gus, () => admin.ok('DELETE', `users/${vic.userId}`, { actions: JSON.stringify({ delete_profile: true }) }));
});

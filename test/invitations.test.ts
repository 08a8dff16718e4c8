// POST /invites end to end: the mailed link (read from the outbox), sign-up, first login, welcome and referrer messages; refusals.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mailTo as mailToOf, mailedKey } from './helpers/outbox.js';
import { startTestServer, request, Client, type TestServer } from './helpers/server.js';
import { newChannel } from './helpers/messages.js';

const clock = { t: Math.floor(Date.now() / 1000), now() { return this.t; } };
let s: TestServer;
let mia: Client;
let gus: Client;

before(async () => {
  s = await startTestServer({ clock });
  mia = await s.user('Mia Member');
  gus = await s.user('Gus Guest', 600);
});
after(async () => {
  await s.close();
});

const mailTo = (address: string) => mailToOf(s, address);
const inviteKey = (address: string) => mailedKey(s, address, /\/api\/v1\/invites\/accept\?key=([A-Za-z0-9_-]+)/);

const anon = (method: string, p: string, params: Record<string, unknown>, as?: 'form' | 'query' | 'multipart') => request(s.url, method, p, params as never, { as });
const accept = (key: string, fullName = 'New Person', password = 'a-good-password') => anon('POST', 'invites/accept', { key, full_name: fullName, password });

async function newGroup(name: string, permissions: Record<string, number> = {}): Promise<number> {
  const row = await s.running.app.store.db
    .insertInto('user_groups')
    .values({ realm_id: s.realm.id, name, description: '', is_system_group: 0, deactivated: 0, date_created: 1, creator_id: s.owner.userId, permissions: JSON.stringify(permissions) })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

async function messagesOf(c: Client): Promise<any[]> {
  const r = await c.ok('GET', 'messages', { anchor: 'newest', num_before: 50, num_after: 0, narrow: [], apply_markdown: false });
  return r.messages;
}

test('invite → email → accept → first login: role, channels, groups, welcome text and the referrer notice', async () => {
  const ch = await newChannel(s, 'invited-channel', { subscribers: [s.owner] });
  const def = await newChannel(s, 'default-channel', { subscribers: [] });
  await s.running.app.store.db.insertInto('default_streams').values({ realm_id: s.realm.id, stream_id: def.id }).execute();
  const group = await newGroup('Designers');
  await s.owner.ok('POST', 'invites', {
    invitee_emails: 'new.person@example.com',
    invite_as: 300,
    stream_ids: [ch.id],
    group_ids: [group],
    include_realm_default_subscriptions: true,
    welcome_message_custom_text: 'Read the **handbook** first.',
  });
  const mail = mailTo('new.person@example.com');
  assert.equal(mail.length, 1);
  assert.match(mail[0], /Subject: Olivia Owner invited you to join Test Org/);
  const key = inviteKey('new.person@example.com');

  const listed = await s.owner.ok('GET', 'invites');
  const inv = listed.invites.find((i: any) => i.email === 'new.person@example.com');
  assert.deepEqual(Object.keys(inv).sort(), ['email', 'expiry_date', 'id', 'invited', 'invited_as', 'invited_by_user_id', 'is_multiuse', 'notify_referrer_on_join']);
  assert.equal(inv.invited_as, 300);
  assert.equal(inv.invited_by_user_id, s.owner.userId);
  assert.equal(inv.expiry_date, clock.t + 14400 * 60);
  assert.equal(inv.notify_referrer_on_join, true);
  assert.equal(inv.is_multiuse, false);

  const shown = await anon('GET', 'invites/accept', { key });
  assert.equal(shown.status, 200);
  assert.equal(shown.body.email, 'new.person@example.com');

  const watcher = await mia.ok('POST', 'register', { event_types: ['realm_user', 'user_group', 'subscription'] });
  const r = await accept(key);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const userId = r.body.user_id as number;
  // Everyone learns of the new person and of their group membership.
  const seen = (await mia.ok('GET', 'events', { queue_id: watcher.queue_id, last_event_id: -1, dont_block: true })).events;
  assert.ok(seen.some((e: any) => e.type === 'realm_user' && e.op === 'add' && e.person.user_id === userId && e.person.role === 300));
  assert.ok(seen.some((e: any) => e.type === 'user_group' && e.op === 'add_members' && e.group_id === group && e.user_ids[0] === userId));

  // First login with the chosen password.
  const login = await anon('POST', 'fetch_api_key', { username: 'new.person@example.com', password: 'a-good-password' });
  assert.equal(login.status, 200, JSON.stringify(login.body));
  const me = new Client(s, userId, login.body.email, login.body.api_key);
  const profile = await me.ok('GET', 'users/me');
  assert.equal(profile.role, 300);
  assert.equal(profile.full_name, 'New Person');
  const subs = (await me.ok('GET', 'users/me/subscriptions')).subscriptions.map((x: any) => x.stream_id).sort((x: number, y: number) => x - y);
  const defaults = (await s.running.app.store.db.selectFrom('default_streams').select('stream_id').where('realm_id', '=', s.realm.id).execute()).map((d) => d.stream_id);
  assert.ok(defaults.includes(def.id));
  assert.deepEqual(subs, [...new Set([ch.id, ...defaults])].sort((x, y) => x - y));
  const member = await s.running.app.store.db.selectFrom('user_group_members').select('user_id').where('group_id', '=', group).execute();
  assert.deepEqual(member.map((m) => m.user_id), [userId]);

  const mine = await messagesOf(me);
  assert.ok(mine.some((m) => m.sender_full_name === 'Welcome Bot' && m.content.startsWith('Welcome to Test Org')));
  assert.ok(mine.some((m) => m.sender_full_name === 'Welcome Bot' && m.content === 'Read the **handbook** first.'));
  const ownerMsgs = await messagesOf(s.owner);
  assert.ok(ownerMsgs.some((m) => m.sender_full_name === 'Notification Bot' && m.content === `@_**New Person|${userId}** accepted your invitation to join Test Org!`));

  // The key works once; the accepted invitation is no longer pending.
  const again = await accept(key, 'Someone Else');
  assert.equal(again.status, 400);
  assert.equal(again.body.msg, 'This invitation has already been used');
  assert.ok(!(await s.owner.ok('GET', 'invites')).invites.some((i: any) => i.id === inv.id));
});

test('notify_referrer_on_join false and an empty welcome text: no referrer notice, no custom message; guests get only the invited channels', async () => {
  const ch = await newChannel(s, 'guest-room', { subscribers: [s.owner] });
  await s.owner.ok('POST', 'invites', { invitee_emails: 'quiet@example.com', invite_as: 600, stream_ids: [ch.id], notify_referrer_on_join: false, welcome_message_custom_text: '' }, { as: 'multipart' });
  const before = (await messagesOf(s.owner)).length;
  const r = await accept(inviteKey('quiet@example.com'), 'Quiet Guest');
  assert.equal(r.status, 200);
  const login = await anon('POST', 'fetch_api_key', { username: 'quiet@example.com', password: 'a-good-password' });
  const me = new Client(s, r.body.user_id, login.body.email, login.body.api_key);
  assert.equal((await me.ok('GET', 'users/me')).role, 600);
  assert.deepEqual((await me.ok('GET', 'users/me/subscriptions')).subscriptions.map((x: any) => x.stream_id), [ch.id]);
  const mine = await messagesOf(me);
  assert.equal(mine.filter((m) => m.sender_full_name === 'Welcome Bot').length, 1);
  assert.equal((await messagesOf(s.owner)).length, before);
});

test('expired and revoked links are refused; unknown keys too', async () => {
  await s.owner.ok('POST', 'invites', { invitee_emails: 'late@example.com', stream_ids: [], invite_expires_in_minutes: 10 });
  const key = inviteKey('late@example.com');
  clock.t += 11 * 60;
  const r = await accept(key);
  assert.equal(r.status, 400);
  assert.equal(r.body.msg, 'This invitation has expired');
  assert.ok(!(await s.owner.ok('GET', 'invites')).invites.some((i: any) => i.email === 'late@example.com'), 'expired invitations are not listed');

  await s.owner.ok('POST', 'invites', { invitee_emails: 'revoked@example.com', stream_ids: [] });
  const id = (await s.owner.ok('GET', 'invites')).invites.find((i: any) => i.email === 'revoked@example.com').id;
  await s.owner.ok('DELETE', `invites/${id}`);
  const rev = await accept(inviteKey('revoked@example.com'));
  assert.equal(rev.body.msg, 'This invitation has been revoked');
  const again = await s.owner.delete(`invites/${id}`);
  assert.equal(again.body.msg, 'No such invitation');

  const unknown = await accept('not-a-key');
  assert.equal(unknown.status, 400);
  assert.equal(unknown.body.msg, 'Invalid invitation link');
  const shown = await anon('GET', 'invites/accept', { key: 'not-a-key' });
  assert.equal(shown.body.code, 'BAD_REQUEST');
});

test('never-expiring invitations (null) and sign-up parameter checks', async () => {
  await s.owner.ok('POST', 'invites', { invitee_emails: 'forever@example.com', stream_ids: [], invite_expires_in_minutes: null });
  const inv = (await s.owner.ok('GET', 'invites')).invites.find((i: any) => i.email === 'forever@example.com');
  assert.equal(inv.expiry_date, null);
  const key = inviteKey('forever@example.com');
  assert.equal((await accept(key, 'Forever', 'abc')).body.msg, 'The password is too weak.');
  assert.equal((await accept(key, '   ')).body.msg, 'Name too short!');
  const missing = await anon('POST', 'invites/accept', { key, full_name: 'X' });
  assert.equal(missing.body.code, 'REQUEST_VARIABLE_MISSING');
  clock.t += 365 * 86400;
  assert.equal((await accept(key, 'Forever Person')).status, 200);
});

test('INVITATION_FAILED: existing and deactivated accounts are skipped, the others still invited', async () => {
  const gone = await s.user('Gone Person');
  await s.running.app.store.db.updateTable('users').set({ is_active: 0 }).where('id', '=', gone.userId).execute();
  s.running.app.caches.userChanged(gone.userId);
  const r = await s.owner.post('invites', { invitee_emails: `${mia.email}\nfresh@example.com, ${gone.email}`, stream_ids: [] });
  assert.equal(r.status, 400);
  assert.equal(r.body.code, 'INVITATION_FAILED');
  assert.deepEqual(r.body.errors, [
    [mia.email, 'Already has an account.', false],
    [gone.email, 'Account has been deactivated.', true],
  ]);
  assert.equal(r.body.sent_invitations, true);
  assert.equal(r.body.daily_limit_reached, false);
  assert.equal(r.body.license_limit_reached, false);
  assert.equal(mailTo('fresh@example.com').length, 1);
  assert.equal(mailTo(mia.email).length, 0);

  const none = await s.owner.post('invites', { invitee_emails: mia.email, stream_ids: [] });
  assert.equal(none.body.code, 'INVITATION_FAILED');
  assert.equal(none.body.sent_invitations, false);
  assert.equal(none.body.msg, "We weren't able to invite anyone.");

  const bad = await s.owner.post('invites', { invitee_emails: 'ok.one@example.com, not-an-address', stream_ids: [] });
  assert.equal(bad.body.code, 'INVITATION_FAILED');
  assert.deepEqual(bad.body.errors, [['not-an-address', 'Invalid address.', false]]);
  assert.equal(bad.body.sent_invitations, false);
  assert.equal(mailTo('ok.one@example.com').length, 0, 'nothing is sent when an address is invalid');
});

test('BAD_REQUEST: no address, bad channel, permissions for roles, channels and groups', async () => {
  const e = async (c: Client, params: Record<string, unknown>, msg: string) => {
    const r = await c.post('invites', params as never);
    assert.equal(r.status, 400, JSON.stringify(r.body));
    assert.equal(r.body.code, 'BAD_REQUEST');
    assert.equal(r.body.msg, msg);
  };
  await e(s.owner, { invitee_emails: ' , \n', stream_ids: [] }, 'You must specify at least one email address.');
  const missing = await s.owner.post('invites', { invitee_emails: 'x@example.com' });
  assert.equal(missing.body.code, 'REQUEST_VARIABLE_MISSING');
  await e(s.owner, { invitee_emails: 'x@example.com', stream_ids: [999999] }, 'Invalid channel ID 999999. No invites were sent.');
  const secret = await newChannel(s, 'secret-room', { inviteOnly: true, subscribers: [s.owner] });
  await e(mia, { invitee_emails: 'x@example.com', stream_ids: [secret.id] }, `Invalid channel ID ${secret.id}. No invites were sent.`);
  const other = await s.realm2('elsewhere');
  const foreign = await newChannel(s, 'foreign', { subscribers: [], realmId: other.realm.id });
  await e(s.owner, { invitee_emails: 'x@example.com', stream_ids: [foreign.id] }, `Invalid channel ID ${foreign.id}. No invites were sent.`);
  assert.equal(mailTo('x@example.com').length, 0);

  await e(gus, { invitee_emails: 'x@example.com', stream_ids: [] }, 'Insufficient permission');
  await e(mia, { invitee_emails: 'x@example.com', stream_ids: [], invite_as: 200 }, 'Insufficient permission');
  await e(mia, { invitee_emails: 'x@example.com', stream_ids: [], invite_as: 300 }, 'Insufficient permission');
  const invalidRole = await s.owner.post('invites', { invitee_emails: 'x@example.com', stream_ids: [], invite_as: 250 });
  assert.equal(invalidRole.body.msg, 'Invalid invite_as');
  const badExpiry = await s.owner.post('invites', { invitee_emails: 'x@example.com', stream_ids: [], invite_expires_in_minutes: 0 });
  assert.equal(badExpiry.body.msg, 'Invalid invite_expires_in_minutes');

  const group = await newGroup('Locked Group');
  await e(mia, { invitee_emails: 'x@example.com', stream_ids: [], group_ids: [group] }, 'Insufficient permission');
  await e(s.owner, { invitee_emails: 'x@example.com', stream_ids: [], group_ids: [999999] }, 'Invalid user group');
  const members = (await s.running.app.store.db.selectFrom('user_groups').select('id').where('realm_id', '=', s.realm.id).where('name', '=', 'role:members').executeTakeFirstOrThrow()).id;
  await e(s.owner, { invitee_emails: 'x@example.com', stream_ids: [], group_ids: [members] }, 'Invalid user group');
  const open = await newGroup('Open Group', { can_add_members_group: members });
  await mia.ok('POST', 'invites', { invitee_emails: 'grouped@example.com', stream_ids: [], group_ids: [open] });

  // Subscribing others restricted to administrators: members may name no channel, except organization defaults.
  const admins = (await s.running.app.store.db.selectFrom('user_groups').select('id').where('realm_id', '=', s.realm.id).where('name', '=', 'role:administrators').executeTakeFirstOrThrow()).id;
  const settings = JSON.parse(s.realm.settings) as Record<string, unknown>;
  await s.running.app.store.db.updateTable('realms').set({ settings: JSON.stringify({ ...settings, can_add_subscribers_group: admins }) }).where('id', '=', s.realm.id).execute();
  s.running.app.caches.invalidateRealms();
  try {
    const pub = await newChannel(s, 'public-room', { subscribers: [mia] });
    await e(mia, { invitee_emails: 'x@example.com', stream_ids: [pub.id] }, 'You do not have permission to subscribe other users to channels.');
    await mia.ok('POST', 'invites', { invitee_emails: 'nochannels@example.com', stream_ids: [] });
    await s.owner.ok('POST', 'invites', { invitee_emails: 'admin.pick@example.com', stream_ids: [pub.id] });
  } finally {
    await s.running.app.store.db.updateTable('realms').set({ settings: JSON.stringify(settings) }).where('id', '=', s.realm.id).execute();
    s.running.app.caches.invalidateRealms();
  }
});

test('welcome_message_custom_text: 8000 code points at most; only administrators set it', async () => {
  const long = '😀'.repeat(8001);
  const r = await s.owner.post('invites', { invitee_emails: 'long@example.com', stream_ids: [], welcome_message_custom_text: long });
  assert.equal(r.body.code, 'BAD_REQUEST');
  assert.equal(r.body.msg, 'welcome_message_custom_text is too long (limit: 8000 characters)');
  await s.owner.ok('POST', 'invites', { invitee_emails: 'exact@example.com', stream_ids: [], welcome_message_custom_text: '😀'.repeat(8000) });

  await mia.ok('POST', 'invites', { invitee_emails: 'from.member@example.com', stream_ids: [], welcome_message_custom_text: 'Ignored for members' });
  const row = await s.running.app.store.db.selectFrom('invitations').select('welcome_message_custom_text').where('email', '=', 'from.member@example.com').executeTakeFirstOrThrow();
  assert.equal(row.welcome_message_custom_text, null);
});

test('GET /invites and DELETE /invites/{id}: administrators manage all, others their own; other organizations see nothing', async () => {
  const ned = await s.user('Ned Inviter');
  await ned.ok('POST', 'invites', { invitee_emails: 'neds.friend@example.com', stream_ids: [] }, { as: 'multipart' });
  await mia.ok('POST', 'invites', { invitee_emails: 'mias.friend@example.com', stream_ids: [] });
  const nedList = (await ned.ok('GET', 'invites')).invites;
  assert.deepEqual(nedList.map((i: any) => i.email), ['neds.friend@example.com']);
  const all = (await s.owner.ok('GET', 'invites')).invites.map((i: any) => i.email);
  assert.ok(all.includes('neds.friend@example.com') && all.includes('mias.friend@example.com'));
  const miaInvite = (await mia.ok('GET', 'invites')).invites.find((i: any) => i.email === 'mias.friend@example.com');
  const denied = await ned.delete(`invites/${miaInvite.id}`);
  assert.equal(denied.status, 400);
  assert.equal(denied.body.msg, 'Must be an organization administrator');
  await mia.ok('DELETE', `invites/${miaInvite.id}`);
  const other = await s.realm2('another');
  assert.deepEqual((await other.owner.ok('GET', 'invites')).invites, []);
  const cross = await other.owner.delete(`invites/${nedList[0].id}`);
  assert.equal(cross.body.msg, 'No such invitation');
  // A key from one organization does not work in another.
  const key = inviteKey('neds.friend@example.com');
  const r = await request(s.url, 'POST', 'invites/accept', { key, full_name: 'X Y', password: 'long-enough' }, { host: other.host });
  assert.equal(r.body.msg, 'Invalid invitation link');
});

// Changing one's email: PATCH /settings email → a mailed one-time link → /settings/email/confirm, its events and refusals.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { mailTo as mailToOf, mailedKey } from './helpers/outbox.js';
import { startTestServer, Client, type TestServer } from './helpers/server.js';
import { expectError } from './helpers/assertions.js';
import { grantCanCreateUsers } from './helpers/people.js';

const clock = { t: Math.floor(Date.now() / 1000), now() { return this.t; } };
let s: TestServer;
let eve: Client;
let fay: Client;

before(async () => {
  s = await startTestServer({ clock });
  eve = await s.user('Eve Email');
  fay = await s.user('Fay Friend');
});
after(async () => {
  await s.close();
});

const mailTo = (address: string) => mailToOf(s, address);
const outboxDir = () => path.join(s.running.app.config.dataDir, 'outbox');
const lastKey = (address: string) => mailedKey(s, address, /\/api\/v1\/settings\/email\/confirm\?key=([A-Za-z0-9_-]+)/);

const confirm = (key: string, method = 'GET', as?: 'form' | 'query' | 'multipart') => s.owner.api(method, 'settings/email/confirm', { key }, { auth: null, as });

/** A client authenticating with a changed email (basic auth names the current address). */
const renamed = (c: Client, email: string) => new Client(s, c.userId, email, c.apiKey, c.host);

async function queue(c: Client) {
  const reg = await c.ok('POST', 'register', { event_types: ['realm_user'], client_gravatar: false });
  let last = -1;
  return {
    client: c,
    async events(): Promise<Record<string, any>[]> {
      const r = await this.client.ok('GET', 'events', { queue_id: reg.queue_id, last_event_id: last, dont_block: true });
      if (r.events.length) last = r.events[r.events.length - 1].id;
      return (r.events as Record<string, any>[]).filter((e) => e.type !== 'heartbeat').map(({ id: _id, ...rest }) => rest);
    },
  };
}


test('an email change is confirmed by the mailed link, then announced', async () => {
  const [qe, qf] = [await queue(eve), await queue(fay)];
  await eve.ok('PATCH', 'settings', { email: 'eve.new@example.org' });
  // Nothing changes until the link is followed.
  assert.equal((await eve.ok('GET', 'users/me')).email, eve.email);
  assert.deepEqual(await qf.events(), []);
  const mail = mailTo('eve.new@example.org')[0];
  assert.match(mail, /^From: Parley <noreply@localhost>\r\n/);
  assert.match(mail, /\r\nSubject: Confirm your new email address for Test Org\r\n/);
  assert.match(mail, /http:\/\/localhost\/api\/v1\/settings\/email\/confirm\?key=/);

  const r = await confirm(lastKey('eve.new@example.org'));
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.email, 'eve.new@example.org');
  const me = await s.owner.ok('GET', `users/${eve.userId}`);
  assert.equal(me.user.email, 'eve.new@example.org');
  assert.equal(me.user.delivery_email, 'eve.new@example.org');

  const fe = await qf.events();
  assert.deepEqual(fe.slice(0, 2), [
    { type: 'realm_user', op: 'update', person: { user_id: eve.userId, new_email: 'eve.new@example.org' } },
    { type: 'realm_user', op: 'update', person: { user_id: eve.userId, delivery_email: 'eve.new@example.org' } },
  ]);
  // Third-party avatars are found by address: the URL follows the change.
  assert.equal(fe[2].person.avatar_source, 'G');
  assert.match(fe[2].person.avatar_url, /gravatar/);
  // Basic authentication now names the new address; the API key is unchanged.
  assert.equal((await eve.get('users/me')).status, 401);
  eve = renamed(eve, 'eve.new@example.org');
  qe.client = eve;
  assert.equal((await qe.events()).length, 3);
  // The old address is told.
  assert.equal(mailTo(eve.email).length, 1);

  // The account now logs in with the new address.
  const login = await s.owner.post('fetch_api_key', { username: 'eve.new@example.org', password: 'eve.email-password' }, { auth: null });
  assert.equal(login.status, 200);
  const again = await confirm(lastKey('eve.new@example.org'));
  assert.equal(again.body.msg, 'This confirmation key has already been used');
});

test('a hidden address keeps its dummy API email: viewers not allowed to see it learn nothing but the avatar', async () => {
  const gil = await s.user('Gil Hidden');
  const guest = await s.user('Gia Guest', 600);
  await gil.ok('PATCH', 'settings', { email_address_visibility: 2 });
  const qg = await queue(guest);
  await gil.ok('PATCH', 'settings', { email: 'gil.new@example.org' }, { as: 'multipart' });
  await confirm(lastKey('gil.new@example.org'), 'POST', 'form');
  const events = await qg.events();
  assert.equal(events.some((e) => 'new_email' in e.person || 'delivery_email' in e.person), false);
  // The third-party avatar is looked up by the real address, so its URL changes.
  assert.deepEqual(events.map((e) => e.person.avatar_source), ['G']);
});

test('refusals: invalid address, address in use, disabled changes, unknown and expired keys', async () => {
  await expectError(eve.patch('settings', { email: 'not-an-address' }), "Invalid email 'not-an-address'");
  await expectError(eve.patch('settings', { email: fay.email }), `Email '${fay.email}' already in use`);
  await expectError(eve.patch('settings', { email: fay.email.toUpperCase() }), `Email '${fay.email.toUpperCase()}' already in use`);
  await expectError(confirm('no-such-key'), 'Invalid confirmation key');
  const missing = await s.owner.api('GET', 'settings/email/confirm', {}, { auth: null });
  assert.equal(missing.body.code, 'REQUEST_VARIABLE_MISSING');

  const before = mailTo('fay.same@example.org').length;
  await fay.ok('PATCH', 'settings', { email: 'fay.same@example.org' });
  const key = lastKey('fay.same@example.org');
  assert.equal(mailTo('fay.same@example.org').length, before + 1);
  clock.t += 24 * 3600 + 1;
  try {
    await expectError(confirm(key), 'This confirmation key has expired');
  } finally {
    clock.t -= 24 * 3600 + 1;
  }

  // A newer request replaces the older link.
  await fay.ok('PATCH', 'settings', { email: 'fay.typo@example.org' });
  const typo = lastKey('fay.typo@example.org');
  await fay.ok('PATCH', 'settings', { email: 'fay.right@example.org' });
  await expectError(confirm(typo), 'Invalid confirmation key');
  // Someone else takes the address before the link is followed.
  const right = lastKey('fay.right@example.org');
  await grantCanCreateUsers(s, s.owner.userId);
  await s.owner.ok('POST', 'users', { email: 'fay.right@example.org', password: 'whatever-pass', full_name: 'Squatter' });
  await expectError(confirm(right), "Email 'fay.right@example.org' already in use");

  // Asking for one's current address sends nothing.
  const count = fs.existsSync(outboxDir()) ? fs.readdirSync(outboxDir()).length : 0;
  await fay.ok('PATCH', 'settings', { email: fay.email });
  assert.equal(fs.readdirSync(outboxDir()).length, count);

  const db = s.running.app.store.db;
  await db.updateTable('realms').set({ settings: JSON.stringify({ email_changes_disabled: true }) }).where('id', '=', s.realm.id).execute();
  s.running.app.caches.invalidateRealms();
  try {
    await expectError(fay.patch('settings', { email: 'fay.blocked@example.org' }), 'Email address changes are disabled in this organization.');
    await s.owner.ok('PATCH', 'settings', { email: 'owner.allowed@example.org' });
    assert.equal(mailTo('owner.allowed@example.org').length, 1);
  } finally {
    await db.updateTable('realms').set({ settings: '{}' }).where('id', '=', s.realm.id).execute();
    s.running.app.caches.invalidateRealms();
  }
});

test('a key works only in its own organization', async () => {
  const other = await s.realm2('mailorg');
  await other.owner.ok('PATCH', 'settings', { email: 'boss.moved@example.org' });
  const key = lastKey('boss.moved@example.org');
  await expectError(confirm(key), 'Invalid confirmation key');
  const r = await s.owner.api('GET', 'settings/email/confirm', { key }, { auth: null, host: other.host });
  assert.equal(r.status, 200, JSON.stringify(r.body));
});

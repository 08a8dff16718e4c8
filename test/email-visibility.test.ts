// Email visibility: dummy API emails, delivery_email per viewer, messages and events, the organization default.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client, startTestServer, type TestServer } from './helpers/server.js';
import { doCreateUser } from '../src/actions/users.js';
import { queueFor } from './helpers/messages.js';
import { realmHostName } from '../src/lib/users.js';

let s: TestServer;
let host: string;
let mod: Client;
let mem: Client;
let gus: Client;
before(async () => {
  s = await startTestServer();
  host = realmHostName(s.running.app.config.externalUrl, s.realm);
  mod = await s.user('Mo Moderator', 300);
  mem = await s.user('Mem Member', 400);
  gus = await s.user('Gus Guest', 600);
});
after(async () => {
  await s.close();
});

/** Events without their queue IDs. */
const bare = async (q: { events(): Promise<Record<string, any>[]> }) => (await q.events()).map(({ id: _id, ...e }) => e);
const userAs = async (viewer: Client, id: number) => (await viewer.ok('GET', `users/${id}`)).user;

test('hidden addresses: dummy API email for everyone, delivery_email only to the allowed', async () => {
  const hid = await s.user('Hid Den');
  const real = hid.email;
  const dummy = `user${hid.userId}@${host}`;
  const queues = await Promise.all([s.owner, mod, mem, gus, hid].map((c) => queueFor(c, { event_types: ['realm_user'] })));
  await hid.ok('PATCH', 'settings', { email_address_visibility: 5 }); // moderators
  // Everyone learns the new API email; members and guests lose the real one; the avatar is resent (third-party).
  for (const [i, q] of queues.entries()) {
    const evs = await bare(q);
    assert.deepEqual(evs[0], { type: 'realm_user', op: 'update', person: { user_id: hid.userId, new_email: dummy } }, `viewer ${i}`);
    const lost = evs.filter((e) => 'delivery_email' in e.person);
    assert.deepEqual(lost, i === 2 || i === 3 ? [{ type: 'realm_user', op: 'update', person: { user_id: hid.userId, delivery_email: null } }] : [], `viewer ${i}`);
    const avatar = evs[evs.length - 1].person;
    assert.equal(avatar.avatar_source, 'G');
    assert.match(avatar.avatar_url, /^https:\/\/secure\.gravatar\.com\/avatar\//);
  }
  for (const [viewer, delivery] of [[s.owner, real], [mod, real], [mem, null], [gus, null], [hid, real]] as const) {
    const u = await userAs(viewer, hid.userId);
    assert.deepEqual([u.email, u.delivery_email], [dummy, delivery]);
  }
  // The user's own register: the dummy API email and the real delivery email.
  const own = await hid.ok('POST', 'register', { fetch_event_types: ['realm_user'] });
  assert.deepEqual([own.email, own.delivery_email], [dummy, real]);
  // The real address still authenticates (HTTP Basic takes either).
  await hid.ok('GET', 'users/me');
  // Messages show the dummy address as sender and recipient.
  const dm = await hid.ok('POST', 'messages', { type: 'direct', to: [mem.userId], content: 'psst' });
  const m = (await mem.ok('GET', `messages/${dm.id}`)).message;
  assert.equal(m.sender_email, dummy);
  assert.ok(m.display_recipient.some((r: any) => r.id === hid.userId && r.email === dummy));
  assert.ok(!JSON.stringify(m).includes(real), 'the real address appears nowhere in the message');
  // GET /users/{email}: the dummy always finds the user; the real one only for viewers who may see it.
  assert.equal((await mem.ok('GET', `users/${encodeURIComponent(dummy)}`)).user.user_id, hid.userId);
  assert.equal((await mem.get(`users/${encodeURIComponent(real)}`)).status, 400);
  assert.equal((await mod.ok('GET', `users/${encodeURIComponent(real)}`)).user.user_id, hid.userId);
});

test('client_gravatar: null avatar_url only for public addresses', async () => {
  const pub = await s.user('Pub Lic');
  const hid = await s.user('Hid Two');
  await hid.ok('PATCH', 'settings', { email_address_visibility: 4 });
  const reg = await mem.ok('POST', 'register', { fetch_event_types: ['realm_user'], client_gravatar: true });
  const byId = (id: number) => reg.realm_users.find((u: any) => u.user_id === id);
  assert.equal(byId(pub.userId).avatar_url, null);
  assert.match(byId(hid.userId).avatar_url, /^https:\/\/secure\.gravatar\.com\/avatar\/[0-9a-f]{32}\?/);
  const id = (await hid.ok('POST', 'messages', { type: 'stream', to: 'general', topic: 'g', content: 'x' })).id;
  const msg = (await mem.ok('GET', `messages/${id}`, { client_gravatar: true })).message;
  assert.notEqual(msg.avatar_url, null);
});

test('every visibility level: delivery_email per viewer role; bots always public', async () => {
  const t = await s.user('Tee Target');
  const expected: Record<number, [boolean, boolean, boolean]> = {
    // moderator, member, guest
    1: [true, true, true],
    2: [true, true, false],
    3: [false, false, false],
    4: [false, false, false],
    5: [true, false, false],
  };
  for (const [level, sees] of Object.entries(expected)) {
    await t.ok('PATCH', 'settings', { email_address_visibility: Number(level) });
    for (const [i, viewer] of [mod, mem, gus].entries()) {
      const u = await userAs(viewer, t.userId);
      assert.equal(u.delivery_email, sees[i] ? t.email : null, `level ${level} viewer ${i}`);
      assert.equal(u.email, level === '1' ? t.email : `user${t.userId}@${host}`);
    }
    assert.equal((await userAs(s.owner, t.userId)).delivery_email, t.email);
  }
  const bot = (await mem.ok('POST', 'bots', { full_name: 'Vis Bot', short_name: 'visbot' })).user_id;
  const b = await userAs(gus, bot);
  assert.equal(b.delivery_email, b.email);
});

test('changing between hidden levels sends no new_email; errors are refused', async () => {
  const t = await s.user('Lev Els');
  await t.ok('PATCH', 'settings', { email_address_visibility: 2 });
  const q = await queueFor(gus, { event_types: ['realm_user'] });
  const qm = await queueFor(mem, { event_types: ['realm_user'] });
  await t.ok('PATCH', 'settings', { email_address_visibility: 4 });
  assert.deepEqual(await bare(q), [], 'the guest saw nothing before and sees nothing now');
  assert.deepEqual(await bare(qm), [{ type: 'realm_user', op: 'update', person: { user_id: t.userId, delivery_email: null } }]);
  const r = await t.patch('settings', { email_address_visibility: 6 });
  assert.deepEqual([r.status, r.body.msg], [400, 'Invalid email_address_visibility']);
});

test('the organization default applies to new people', async () => {
  const app = s.running.app;
  await app.store.write((tx) => tx.updateTable('realms').set({ settings: JSON.stringify({ email_address_visibility: 3 }) }).where('id', '=', s.realm.id).execute());
  app.caches.invalidateRealms();
  try {
    const q = await queueFor(mem, { event_types: ['realm_user'] });
    const realm = await app.store.db.selectFrom('realms').selectAll().where('id', '=', s.realm.id).executeTakeFirstOrThrow();
    const row = await doCreateUser(app, realm, { email: 'new.comer@example.com', fullName: 'New Comer', password: 'new-comer-pw', role: 400 });
    const n = new Client(s, row.id, row.email, row.api_key);
    assert.equal(row.email, `user${n.userId}@${host}`);
    const [add] = (await bare(q)).filter((e) => e.op === 'add');
    assert.deepEqual([add.person.email, add.person.delivery_email], [`user${n.userId}@${host}`, null]);
    assert.equal((await n.ok('POST', 'register', { fetch_event_types: ['user_settings'] })).user_settings.email_address_visibility, 3);
  } finally {
    await app.store.write((tx) => tx.updateTable('realms').set({ settings: '{}' }).where('id', '=', s.realm.id).execute());
    app.caches.invalidateRealms();
  }
});

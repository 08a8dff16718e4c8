// Register's realm_users (JSON text from the per-organization cache, lib/state/user-json.ts) equals presentUser over every user, for viewers of each role, and follows every kind of change.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type Client, type TestServer } from './helpers/server.js';
import { PRESENTED_USER_COLUMNS, presentUser } from '../src/presenters/user.js';
import { canSeeDeliveryEmail } from '../src/lib/users.js';
import { realmProfileData } from '../src/lib/profile-fields.js';

let s: TestServer;
const viewers: Record<string, Client> = {};

before(async () => {
  s = await startTestServer();
  viewers.member = await s.user('Mia Member');
  viewers.moderator = await s.user('Mo Moderator', 300);
  viewers.admin = await s.user('Ada Admin', 200);
  viewers.guest = await s.user('Gus Guest', 600);
  viewers.owner = s.owner;
  // A member whose own address is hidden from members: their list differs from other members' in their own row.
  viewers.private = await s.user('Pia Private');
  await viewers.private.ok('PATCH', 'settings', { email_address_visibility: 4 });
  const db = s.running.app.store.db;
  // Email visibility of each level, names needing escapes, a time zone, profile data, an uploaded
  // avatar, an imported stub, a hidden address, a bot, a deactivated and a deleted user.
  for (const level of [1, 2, 3, 4, 5]) {
    const u = await s.user(`Level ${level} "quoted" \\ backslash Zoë 😀`);
    await u.ok('PATCH', 'settings', { email_address_visibility: level, timezone: 'Europe/Berlin' });
  }
  const field = (await s.owner.ok('POST', 'realm/profile_fields', { name: 'Phone', field_type: 1 })).id as number;
  const withProfile = await s.user('Pat Profile');
  await s.owner.ok('PATCH', `users/${withProfile.userId}`, { profile_data: JSON.stringify([{ id: field, value: '+1 555' }]) });
  const uploaded = await s.user('Uma Upload');
  await db.updateTable('users').set({ avatar_source: 'U', avatar_version: 3 }).where('id', '=', uploaded.userId).execute();
  const stub = await s.user('Sam Stub');
  // Control characters the API refuses, as an import could bring them.
  await db.updateTable('users').set({ is_imported_stub: 1, full_name: 'Sam\tStub\u0001\u2028' }).where('id', '=', stub.userId).execute();
  const hidden = await s.user('Hal Hidden');
  await db.updateTable('users').set({ email: `user${hidden.userId}@example.org` }).where('id', '=', hidden.userId).execute();
  await viewers.member.ok('POST', 'bots', { full_name: 'Bea Bot', short_name: 'bea' });
  const gone = await s.user('Dee Deactivated');
  await s.owner.ok('DELETE', `users/${gone.userId}`);
  const deleted = await s.user('Del Deleted');
  await db.updateTable('users').set({ is_deleted: 1 }).where('id', '=', deleted.userId).execute();
});
after(async () => {
  await s.close();
});

/** What presentUser gives for every active and deactivated user of the realm, as this viewer sees them. */
async function expected(viewer: Client, clientGravatar: boolean, avatarOptional = false) {
  const db = s.running.app.store.db;
  const me = await db.selectFrom('users').selectAll().where('id', '=', viewer.userId).executeTakeFirstOrThrow();
  const rows = await db.selectFrom('users').select(PRESENTED_USER_COLUMNS).where('realm_id', '=', s.realm.id).orderBy('id').execute();
  const profiles = await realmProfileData(db, s.realm.id);
  const present = (u: (typeof rows)[number]) => {
    const p = presentUser(u, { clientGravatar, canSeeDeliveryEmail: canSeeDeliveryEmail(me, u), profileData: profiles.get(u.id) });
    if (avatarOptional && p.avatar_url === null) delete p.avatar_url;
    return p;
  };
  return { realm_users: rows.filter((u) => u.is_active).map(present), realm_non_active_users: rows.filter((u) => !u.is_active).map(present) };
}

for (const role of ['member', 'moderator', 'admin', 'guest', 'owner']) {
  test(`realm_users and realm_non_active_users as a ${role} sees them, with and without client_gravatar`, async () => {
    for (const clientGravatar of [true, false]) {
      const got = await viewers[role].ok('POST', 'register', { fetch_event_types: JSON.stringify(['realm_user']), client_gravatar: String(clientGravatar) });
      const want = await expected(viewers[role], clientGravatar);
      assert.deepEqual(got.realm_users, want.realm_users);
      assert.deepEqual(got.realm_non_active_users, want.realm_non_active_users);
      assert.ok(want.realm_users.length >= 15 && want.realm_non_active_users.length === 1);
    }
  });
}

async function registerUsers(viewer: Client, clientGravatar: boolean, avatarOptional = false) {
  const capabilities = JSON.stringify({ user_avatar_url_field_optional: avatarOptional });
  return viewer.ok('POST', 'register', { fetch_event_types: JSON.stringify(['realm_user']), client_gravatar: String(clientGravatar), client_capabilities: capabilities });
}

async function assertCurrent(label: string) {
  for (const role of ['member', 'private', 'admin', 'guest']) {
    for (const [clientGravatar, avatarOptional] of [[true, false], [false, false], [true, true]]) {
      const got = await registerUsers(viewers[role], clientGravatar, avatarOptional);
      const want = await expected(viewers[role], clientGravatar, avatarOptional);
      assert.deepEqual(got.realm_users, want.realm_users, `${label}: ${role}, client_gravatar ${clientGravatar}, avatar optional ${avatarOptional}`);
      assert.deepEqual(got.realm_non_active_users, want.realm_non_active_users, `${label}: ${role}`);
    }
  }
}

test('the cached lists follow changes made through the API and straight in the database', async () => {
  const db = s.running.app.store.db;
  await assertCurrent('before');
  // Through the API: a name, an email visibility, profile data, a deactivation, a new user.
  await viewers.member.ok('PATCH', 'settings', { full_name: 'Mia Renamed' });
  await assertCurrent('renamed');
  await viewers.guest.ok('PATCH', 'settings', { email_address_visibility: 4 });
  await assertCurrent('visibility');
  const field = (await s.owner.ok('POST', 'realm/profile_fields', { name: 'Desk', field_type: 1 })).id as number;
  await s.owner.ok('PATCH', `users/${viewers.moderator.userId}`, { profile_data: JSON.stringify([{ id: field, value: 'B-12' }]) });
  await assertCurrent('profile data');
  await s.owner.ok('DELETE', `realm/profile_fields/${field}`);
  await assertCurrent('profile field removed');
  await s.owner.ok('DELETE', `users/${viewers.moderator.userId}`);
  await assertCurrent('deactivated');
  await s.user('Nina New');
  await assertCurrent('new user');
  // Straight in the database, as an import or an operator's fix would: no event, no action.
  await db.updateTable('users').set({ timezone: 'Asia/Tokyo', avatar_version: 9 }).where('id', '=', viewers.admin.userId).execute();
  await assertCurrent('database update');
  // (Not a viewer's own role: the server keeps authenticated rows for a while, as the test reads them.)
  const other = await s.user('Rob Role');
  await db.updateTable('users').set({ role: 200, delivery_email: 'rob.role@example.net' }).where('id', '=', other.userId).execute();
  await assertCurrent('role and address');
});

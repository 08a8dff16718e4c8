// Register's realm_users (JSON written by SQLite on its fast path) equals presentUser over every user, for viewers of each role.
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
async function expected(viewer: Client, clientGravatar: boolean) {
  const db = s.running.app.store.db;
  const me = await db.selectFrom('users').selectAll().where('id', '=', viewer.userId).executeTakeFirstOrThrow();
  const rows = await db.selectFrom('users').select(PRESENTED_USER_COLUMNS).where('realm_id', '=', s.realm.id).orderBy('id').execute();
  const profiles = await realmProfileData(db, s.realm.id);
  const present = (u: (typeof rows)[number]) => presentUser(u, { clientGravatar, canSeeDeliveryEmail: canSeeDeliveryEmail(me, u), profileData: profiles.get(u.id) });
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

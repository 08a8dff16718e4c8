// PATCH /settings with target_users: administrators edit other users' settings in bulk, honoring skip_if_already_edited.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type Client, type TestServer } from './helpers/server.js';
import { expectError } from './helpers/assertions.js';

let s: TestServer;
let admin: Client;
let mod: Client;
let ada: Client;
let bea: Client;
let cal: Client;

before(async () => {
  s = await startTestServer();
  admin = await s.user('Ari Admin', 200);
  mod = await s.user('Moe Moderator', 300);
  ada = await s.user('Ada Member');
  bea = await s.user('Bea Member');
  cal = await s.user('Cal Member');
});
after(async () => {
  await s.close();
});

const settingOf = async (c: Client, name: string) => (await c.ok('POST', 'register', { fetch_event_types: ['user_settings'] })).user_settings[name];

async function queue(c: Client) {
  const reg = await c.ok('POST', 'register', { event_types: ['user_settings', 'realm_user'] });
  let last = -1;
  return {
    async events(): Promise<Record<string, any>[]> {
      const r = await c.ok('GET', 'events', { queue_id: reg.queue_id, last_event_id: last, dont_block: true });
      if (r.events.length) last = r.events[r.events.length - 1].id;
      return (r.events as Record<string, any>[]).filter((e) => e.type !== 'heartbeat').map(({ id: _id, ...rest }) => rest);
    },
  };
}

async function groupId(name: string): Promise<number> {
  const groups = (await s.owner.ok('POST', 'register', { fetch_event_types: ['realm_user_groups'] })).realm_user_groups as { id: number; name: string }[];
  return groups.find((g) => g.name === name)!.id;
}


test('an administrator edits listed users; each is told, the administrator is unchanged', async () => {
  const [qa, qb, qc, qadmin] = await Promise.all([ada, bea, cal, admin].map(queue));
  await admin.ok('PATCH', 'settings', { target_users: { user_ids: [ada.userId, bea.userId] }, color_scheme: 2, default_language: 'es' });
  for (const q of [qa, qb]) {
    assert.deepEqual(await q.events(), [
      { type: 'user_settings', op: 'update', property: 'color_scheme', value: 2 },
      { type: 'user_settings', op: 'update', property: 'default_language', value: 'es', language_name: 'Spanish' },
    ]);
  }
  assert.deepEqual(await qc.events(), []);
  assert.deepEqual(await qadmin.events(), []);
  assert.equal(await settingOf(ada, 'color_scheme'), 2);
  assert.equal(await settingOf(cal, 'color_scheme'), 1);
  assert.equal(await settingOf(admin, 'color_scheme'), 1);
});

test('group_ids reach active members recursively', async () => {
  // role:moderators has role:administrators (and through it the owners) as a subgroup.
  await admin.ok('PATCH', 'settings', { target_users: { group_ids: [await groupId('role:moderators')] }, web_font_size_px: 19 }, { as: 'multipart' });
  for (const c of [mod, admin, s.owner]) assert.equal(await settingOf(c, 'web_font_size_px'), 19);
  for (const c of [ada, bea, cal]) assert.equal(await settingOf(c, 'web_font_size_px'), 16);
  // A timezone set in bulk is also announced to everyone as a realm_user update.
  const watcher = await queue(cal);
  await s.owner.ok('PATCH', 'settings', { target_users: JSON.stringify({ user_ids: [ada.userId], group_ids: [] }), timezone: 'Europe/Paris' }, { as: 'query' });
  assert.deepEqual(await watcher.events(), [{ type: 'realm_user', op: 'update', person: { user_id: ada.userId, email: ada.email, timezone: 'Europe/Paris' } }]);
});

test('skip_if_already_edited skips users who chose that setting themselves', async () => {
  await bea.ok('PATCH', 'settings', { enter_sends: false }); // the default, but chosen
  await cal.ok('PATCH', 'settings', { left_side_userlist: true }); // another setting
  const target = { user_ids: [ada.userId, bea.userId, cal.userId], skip_if_already_edited: true };
  await admin.ok('PATCH', 'settings', { target_users: target, enter_sends: true });
  assert.equal(await settingOf(ada, 'enter_sends'), true);
  assert.equal(await settingOf(bea, 'enter_sends'), false, 'bea chose it herself');
  assert.equal(await settingOf(cal, 'enter_sends'), true, 'cal chose only another setting');
  // Without skip_if_already_edited the choice is overridden; the administrator is then the last to have set it.
  await admin.ok('PATCH', 'settings', { target_users: { user_ids: [bea.userId] }, enter_sends: true });
  assert.equal(await settingOf(bea, 'enter_sends'), true);
  await admin.ok('PATCH', 'settings', { target_users: target, enter_sends: false });
  assert.equal(await settingOf(bea, 'enter_sends'), false);
  const reg = await bea.ok('POST', 'register', { fetch_event_types: ['user_settings'] });
  assert.equal('__self_set' in reg.user_settings, false);
});

test('permissions and invalid targets', async () => {
  await expectError(ada.patch('settings', { target_users: { user_ids: [bea.userId] }, enter_sends: true }), 'Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL');
  await expectError(mod.patch('settings', { target_users: { user_ids: [bea.userId] }, enter_sends: true }), 'Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL');
  await expectError(admin.patch('settings', { target_users: { user_ids: [987654] }, enter_sends: true }), 'No such user');
  await expectError(admin.patch('settings', { target_users: { group_ids: [987654] }, enter_sends: true }), 'Invalid user group');
  await expectError(admin.patch('settings', { target_users: { user_ids: 'all' }, enter_sends: true }), 'target_users["user_ids"] is not a list');
  await expectError(admin.patch('settings', { target_users: { user_ids: [], skip_if_already_edited: 'yes' } }), 'target_users["skip_if_already_edited"] is not a boolean');
  await expectError(admin.patch('settings', { target_users: [1], enter_sends: true }), 'target_users is not a dict');
  await expectError(admin.patch('settings', { target_users: { users: [1] } }), "Invalid target_users: unexpected key 'users'");
  await expectError(admin.patch('settings', { target_users: { user_ids: [bea.userId] }, new_password: 'x', old_password: 'y' }), "'old_password' cannot be changed for other users");
  await expectError(admin.patch('settings', { target_users: { user_ids: [bea.userId] }, email: 'x@example.com' }), "'email' cannot be changed for other users");
  await expectError(admin.patch('settings', { target_users: { user_ids: [bea.userId] }, color_scheme: 7 }), 'Invalid color_scheme');

  const gone = await s.user('Gone Member');
  await s.running.app.store.db.updateTable('users').set({ is_active: 0 }).where('id', '=', gone.userId).execute();
  await expectError(admin.patch('settings', { target_users: { user_ids: [gone.userId] }, enter_sends: true }), 'User is deactivated');
  const other = await s.realm2('bulkorg');
  await expectError(admin.patch('settings', { target_users: { user_ids: [other.owner.userId] }, enter_sends: true }), 'No such user');
  // Nothing to change is still a success.
  await admin.ok('PATCH', 'settings', { target_users: { user_ids: [] } });
});

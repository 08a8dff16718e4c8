// PATCH /settings for one's own settings: every table field, validation, aliases, parameter forms and events.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type Client, type TestServer } from './helpers/server.js';
import { expectError } from './helpers/assertions.js';
import { USER_SETTINGS, type SettingValue } from '../src/models/user-settings.js';

let s: TestServer;
let sam: Client;
let tom: Client;

before(async () => {
  s = await startTestServer();
  sam = await s.user('Sam Settings');
  tom = await s.user('Tom Watcher');
});
after(async () => {
  await s.close();
});

/** A queue for the given event types; `events()` returns what arrived since the last call. */
async function queue(c: Client, types = ['user_settings', 'realm_user']) {
  const reg = await c.ok('POST', 'register', { event_types: types, client_gravatar: false });
  let last = -1;
  return {
    state: reg,
    async events(): Promise<Record<string, any>[]> {
      const r = await c.ok('GET', 'events', { queue_id: reg.queue_id, last_event_id: last, dont_block: true });
      if (r.events.length) last = r.events[r.events.length - 1].id;
      return (r.events as Record<string, any>[]).filter((e) => e.type !== 'heartbeat').map(({ id: _id, ...rest }) => rest);
    },
  };
}

const settingsOf = async (c: Client) => (await c.ok('POST', 'register', { fetch_event_types: ['user_settings'] })).user_settings as Record<string, SettingValue>;

/** A valid value other than the default, for every setting of the table. */
function otherValue(name: string): SettingValue {
  const spec = USER_SETTINGS[name];
  if (name === 'timezone') return 'Asia/Kolkata';
  if (spec.allowed) return spec.allowed.find((v) => v !== spec.default)!;
  if (spec.type === 'bool') return !spec.default;
  return (spec.default as number) + 1;
}


test('every setting of the table: stored, in register, announced to the user only', async () => {
  const mine = await queue(sam);
  const theirs = await queue(tom, ['user_settings']);
  for (const name of Object.keys(USER_SETTINGS)) {
    const value = otherValue(name);
    const r = await sam.ok('PATCH', 'settings', { [name]: value });
    assert.equal(r.ignored_parameters_unsupported, undefined, name);
    const settingsEvents = (await mine.events()).filter((e) => e.type === 'user_settings');
    const expected: Record<string, unknown> = { type: 'user_settings', op: 'update', property: name, value };
    if (name === 'default_language') expected.language_name = 'German';
    assert.deepEqual(settingsEvents, [expected], name);
    assert.equal((await settingsOf(sam))[name], value, name);
  }
  assert.deepEqual(await theirs.events(), []);
  // Setting a value it already has changes nothing and announces nothing.
  await sam.ok('PATCH', 'settings', { twenty_four_hour_time: otherValue('twenty_four_hour_time') });
  assert.deepEqual(await mine.events(), []);
  // Back to the defaults: stored overrides disappear, and register shows the defaults again.
  for (const name of Object.keys(USER_SETTINGS)) await sam.ok('PATCH', 'settings', { [name]: name === 'timezone' ? '' : USER_SETTINGS[name].default });
  const back = await settingsOf(sam);
  for (const name of Object.keys(USER_SETTINGS)) assert.equal(back[name], USER_SETTINGS[name].default, name);
  const row = await s.running.app.store.db.selectFrom('users').select('settings').where('id', '=', sam.userId).executeTakeFirstOrThrow();
  assert.deepEqual(Object.keys(JSON.parse(row.settings)), ['__self_set']);
  assert.equal('__self_set' in back, false);
});

test('register lists the choices alongside the values', async () => {
  const us = await settingsOf(tom);
  assert.deepEqual(us.emojiset_choices, [
    { key: 'modern', text: 'Modern style' },
    { key: 'social', text: 'Social style' },
    { key: 'text', text: 'Plain text' },
  ]);
  assert.ok(Array.isArray(us.available_notification_sounds));
  assert.equal(us.timezone, '');
});

test('several settings in one request, and the deprecated aliases', async () => {
  const mine = await queue(sam, ['user_settings']);
  await sam.ok('PATCH', 'settings/display', { color_scheme: 2, emojiset: 'text' });
  await sam.ok('PATCH', 'settings/notifications', { enable_sounds: false, notification_sound: 'ding' });
  assert.deepEqual(
    (await mine.events()).map((e) => [e.property, e.value]),
    [
      ['color_scheme', 2],
      ['emojiset', 'text'],
      // In the order of the settings table.
      ['notification_sound', 'ding'],
      ['enable_sounds', false],
    ],
  );
});

test('parameter forms: form, query, multipart; legacy JSON-quoted strings', async () => {
  await sam.ok('PATCH', 'settings', { web_font_size_px: 18 }, { as: 'query' });
  await sam.ok('PATCH', 'settings', { high_contrast_mode: true, web_home_view: 'recent' }, { as: 'multipart' });
  await sam.ok('PATCH', 'settings', { default_language: '"fr"' });
  const us = await settingsOf(sam);
  assert.equal(us.web_font_size_px, 18);
  assert.equal(us.high_contrast_mode, true);
  assert.equal(us.web_home_view, 'recent');
  assert.equal(us.default_language, 'fr');
});

test('unsupported parameters are listed, dense_mode among them', async () => {
  const r = await sam.ok('PATCH', 'settings', { dense_mode: true, bogus: 1, enter_sends: true });
  assert.deepEqual(r.ignored_parameters_unsupported, ['dense_mode', 'bogus']);
  assert.equal((await settingsOf(sam)).enter_sends, true);
  const empty = await sam.ok('PATCH', 'settings', {});
  assert.deepEqual(empty, { result: 'success', msg: '' });
});

test('web_channel_default_view accepts 1 to 4', async () => {
  for (const v of [1, 2, 3, 4]) {
    await sam.ok('PATCH', 'settings', { web_channel_default_view: v });
    assert.equal((await settingsOf(sam)).web_channel_default_view, v);
  }
  for (const v of [0, 5]) await expectError(sam.patch('settings', { web_channel_default_view: v }), 'Invalid web_channel_default_view');
});

test('invalid values are refused, and one invalid value changes nothing', async () => {
  const before = await settingsOf(sam);
  const cases: [Record<string, unknown>, string][] = [
    [{ twenty_four_hour_time: 'maybe' }, 'twenty_four_hour_time is not a boolean'],
    [{ color_scheme: 'dark' }, 'color_scheme is not an integer'],
    [{ color_scheme: 4 }, 'Invalid color_scheme'],
    [{ emojiset: 'google' }, 'Invalid emojiset'],
    [{ default_language: 'xx' }, 'Invalid default_language'],
    [{ web_home_view: 'feed' }, 'Invalid web_home_view'],
    [{ web_animate_image_previews: 'sometimes' }, 'Invalid web_animate_image_previews'],
    [{ demote_inactive_streams: 9 }, 'Invalid demote_inactive_streams'],
    [{ email_address_visibility: 6 }, 'Invalid email_address_visibility'],
    [{ desktop_icon_count_display: 5 }, 'Invalid desktop_icon_count_display'],
    [{ resolved_topic_notice_auto_read_policy: 'sometimes' }, 'Invalid resolved_topic_notice_auto_read_policy'],
    [{ notification_sound: 'boom' }, "Invalid notification sound 'boom'"],
    [{ email_notifications_batching_period_seconds: 0 }, 'Invalid email batching period: 0 seconds'],
    [{ email_notifications_batching_period_seconds: 7 * 24 * 3600 + 1 }, 'Invalid email batching period: 604801 seconds'],
    [{ web_font_size_px: -3 }, 'Invalid web_font_size_px'],
    [{ timezone: 'Mars/Olympus' }, "Invalid timezone 'Mars/Olympus'"],
    [{ timezone: 'europe/berlin' }, "Invalid timezone 'europe/berlin'"],
    [{ timezone: '+05:00' }, "Invalid timezone '+05:00'"],
  ];
  for (const [params, msg] of cases) {
    await expectError(sam.patch('settings', { enter_sends: !before.enter_sends, ...params } as never), msg);
  }
  assert.deepEqual(await settingsOf(sam), before);
});

test('timezones: IANA names (canonical or linked), UTC, and empty; others see the change', async () => {
  const watcher = await queue(tom, ['realm_user']);
  for (const tz of ['UTC', 'Europe/Berlin', 'Asia/Kolkata', 'Asia/Calcutta', 'America/Argentina/Buenos_Aires', 'Etc/GMT+5', '']) {
    await sam.ok('PATCH', 'settings', { timezone: tz });
    assert.equal((await settingsOf(sam)).timezone, tz);
    assert.deepEqual(await watcher.events(), [{ type: 'realm_user', op: 'update', person: { user_id: sam.userId, email: sam.email, timezone: tz } }]);
  }
  await sam.ok('PATCH', 'settings', { timezone: 'Pacific/Auckland' });
  const me = (await tom.ok('GET', `users/${sam.userId}`)).user;
  assert.equal(me.timezone, 'Pacific/Auckland');
});

test('email_address_visibility: viewers who gain or lose sight of the address are told', async () => {
  const mod = await s.user('Mo Moderator', 300);
  const member = await s.user('Mem Member', 400);
  const guest = await s.user('Gus Guest', 600);
  const [qm, qmem, qg] = await Promise.all(
    [mod, member, guest].map(async (c) => {
      const q = await queue(c, ['realm_user']);
      // Only the delivery_email form here (the dummy API email is tested in email-visibility.test.ts).
      return { events: async () => (await q.events()).filter((e) => 'delivery_email' in e.person) };
    }),
  );
  const deliveryOf = async (viewer: Client) => (await viewer.ok('GET', `users/${sam.userId}`)).user.delivery_email;
  await sam.ok('PATCH', 'settings', { email_address_visibility: 2 }); // members
  assert.deepEqual(await qg.events(), [{ type: 'realm_user', op: 'update', person: { user_id: sam.userId, delivery_email: null } }]);
  assert.deepEqual(await qmem.events(), []);
  await sam.ok('PATCH', 'settings', { email_address_visibility: 5 }); // moderators
  assert.deepEqual(await qmem.events(), [{ type: 'realm_user', op: 'update', person: { user_id: sam.userId, delivery_email: null } }]);
  assert.deepEqual(await qm.events(), []);
  assert.equal(await deliveryOf(mod), sam.email);
  assert.equal(await deliveryOf(member), null);
  await sam.ok('PATCH', 'settings', { email_address_visibility: 3 }); // administrators
  assert.deepEqual(await qm.events(), [{ type: 'realm_user', op: 'update', person: { user_id: sam.userId, delivery_email: null } }]);
  assert.equal(await deliveryOf(s.owner), sam.email);
  await sam.ok('PATCH', 'settings', { email_address_visibility: 1 }); // everyone
  for (const q of [qm, qmem, qg]) assert.deepEqual(await q.events(), [{ type: 'realm_user', op: 'update', person: { user_id: sam.userId, delivery_email: sam.email } }]);
});

test('full_name: checked, stored, announced to everyone; name_changes_disabled ignores members', async () => {
  const watcher = await queue(tom, ['realm_user']);
  await sam.ok('PATCH', 'settings', { full_name: '  Samantha Settings ' });
  assert.deepEqual(await watcher.events(), [{ type: 'realm_user', op: 'update', person: { user_id: sam.userId, full_name: 'Samantha Settings' } }]);
  assert.equal((await sam.ok('GET', 'users/me')).full_name, 'Samantha Settings');
  await sam.ok('PATCH', 'settings', { full_name: 'Samantha Settings' });
  assert.deepEqual(await watcher.events(), [], 'an unchanged name announces nothing');
  await expectError(sam.patch('settings', { full_name: '   ' }), 'Name too short!');
  await expectError(sam.patch('settings', { full_name: 'x'.repeat(101) }), 'Name too long!');

  const db = s.running.app.store.db;
  await db.updateTable('realms').set({ settings: JSON.stringify({ name_changes_disabled: true }) }).where('id', '=', s.realm.id).execute();
  s.running.app.caches.invalidateRealms();
  try {
    await sam.ok('PATCH', 'settings', { full_name: 'Not Allowed' });
    assert.equal((await sam.ok('GET', 'users/me')).full_name, 'Samantha Settings');
    const admin = await s.user('Ann Admin Names', 200);
    await admin.ok('PATCH', 'settings', { full_name: 'Ann Renamed' });
    assert.equal((await admin.ok('GET', 'users/me')).full_name, 'Ann Renamed');
  } finally {
    await db.updateTable('realms').set({ settings: '{}' }).where('id', '=', s.realm.id).execute();
    s.running.app.caches.invalidateRealms();
  }
  await watcher.events();
});

test('password: the old one is required and checked; a wrong one changes nothing', async () => {
  const pam = await s.user('Pam Password');
  const login = (password: string) => s.owner.post('fetch_api_key', { username: pam.email, password }, { auth: null });
  await expectError(pam.patch('settings', { new_password: 'brand-new-secret' }), "Missing 'old_password' argument", 'REQUEST_VARIABLE_MISSING');
  await expectError(pam.patch('settings', { old_password: 'wrong', new_password: 'brand-new-secret', enter_sends: true, full_name: 'Pam Changed' }), 'Wrong password!');
  assert.equal((await settingsOf(pam)).enter_sends, false);
  assert.equal((await pam.ok('GET', 'users/me')).full_name, 'Pam Password');
  await expectError(pam.patch('settings', { old_password: 'pam.password-password', new_password: 'abc' }), 'New password is too weak!');
  assert.equal((await login('pam.password-password')).status, 200);

  await pam.ok('PATCH', 'settings', { old_password: 'pam.password-password', new_password: 'brand-new-secret' }, { as: 'multipart' });
  assert.equal((await login('pam.password-password')).status, 401);
  assert.equal((await login('brand-new-secret')).status, 200);
  // The API key is unchanged: the session that changed the password goes on working.
  await pam.ok('GET', 'users/me');
});

test('enable_drafts_synchronization off is accepted and announced', async () => {
  const mine = await queue(sam, ['user_settings']);
  await sam.ok('PATCH', 'settings', { enable_drafts_synchronization: false });
  assert.deepEqual(await mine.events(), [{ type: 'user_settings', op: 'update', property: 'enable_drafts_synchronization', value: false }]);
  await sam.ok('PATCH', 'settings', { enable_drafts_synchronization: true });
});

test('target_users with account fields, and unauthenticated requests, are refused', async () => {
  const r = await sam.patch('settings', { enter_sends: true }, { auth: null });
  assert.equal(r.status, 401);
  await expectError(sam.patch('settings', { target_users: { user_ids: [tom.userId] }, enter_sends: true }), 'Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL');
  await expectError(s.owner.patch('settings', { target_users: { user_ids: [tom.userId] }, full_name: 'Nope' }), "'full_name' cannot be changed for other users");
});

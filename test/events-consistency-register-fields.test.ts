// Register's remaining top-level fields: the new organization settings (PATCH /realm and their realm events),
// the deprecated *_policy numbers following their group settings, receives_typing_notifications following
// the user's setting, and the server's stated limits. In its own process; see test/events-consistency.test.ts.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type Client, type TestServer } from './helpers/server.js';
import { checkConsistency } from './helpers/events.js';
import { newChannel } from './helpers/messages.js';
import { grantCanCreateUsers } from './helpers/people.js';
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from '../src/actions/account.js';
import { MAX_REMINDER_NOTE_LENGTH } from '../src/actions/reminders.js';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH, REMINDER_NOTE_MAX_LENGTH } from '../src/lib/state/realm-extras.js';

let s: TestServer;
let admin: Client;
let ann: Client;
let groupId: (name: string) => number;

before(async () => {
  s = await startTestServer();
  admin = await s.user('Ada Fields', 200);
  ann = await s.user('Ann Fields');
  const groups = (await ann.ok('GET', 'user_groups')).user_groups as { id: number; name: string }[];
  groupId = (n) => groups.find((g) => g.name === n)!.id;
});
after(async () => {
  await s.close();
});

test('the server’s fields: limits equal to what is enforced, a self-hosted plan, permission metadata', async () => {
  const r = await ann.ok('POST', 'register', {});
  assert.deepEqual([PASSWORD_MIN_LENGTH, PASSWORD_MAX_LENGTH, REMINDER_NOTE_MAX_LENGTH], [MIN_PASSWORD_LENGTH, MAX_PASSWORD_LENGTH, MAX_REMINDER_NOTE_LENGTH]);
  assert.deepEqual([r.password_min_length, r.password_max_length, r.max_reminder_note_length], [MIN_PASSWORD_LENGTH, MAX_PASSWORD_LENGTH, MAX_REMINDER_NOTE_LENGTH]);
  assert.deepEqual([r.realm_plan_type, r.zulip_plan_is_not_limited, r.realm_billing, r.realm_owner_full_content_access], [1, true, { has_pending_sponsorship_request: false }, false]);
  assert.match(r.realm_uuid, /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.equal((await admin.ok('POST', 'register', {})).realm_uuid, r.realm_uuid, 'one organization, one UUID');
  const other = await s.realm2('fieldsorg');
  assert.notEqual((await other.owner.ok('POST', 'register', {})).realm_uuid, r.realm_uuid);
  const bot = await ann.ok('POST', 'bots', { full_name: 'Domain Bot', short_name: 'domainbot', bot_type: 1 });
  assert.ok(String(bot.email ?? (await ann.ok('GET', `users/${bot.user_id}`)).user.email).endsWith(`@${r.realm_bot_domain}`));
  assert.deepEqual(r.server_supported_permission_settings.realm.can_create_web_public_channel_group.allowed_system_groups, ['role:moderators', 'role:administrators', 'role:owners', 'role:nobody']);
  assert.equal(r.server_supported_permission_settings.realm.can_invite_users_group.allow_everyone_group, false);
  assert.equal(r.server_supported_permission_settings.group.can_manage_group.default_group_name, 'group_creator');
  assert.equal(r.server_supported_permission_settings.stream.can_send_message_group.default_group_name, 'role:everyone');
  assert.deepEqual(Object.values(r.gif_rating_policy_options).map((o: any) => o.id), [0, 1, 2, 3, 4, 5]);
  assert.deepEqual([r.onboarding_steps, r.realm_default_stream_groups, r.realm_embedded_bots, r.stop_words, r.realm_filters], [[], [], [], [], []]);
  assert.deepEqual([r.giphy_api_key, r.tenor_api_key, r.klipy_api_key, r.navigation_tour_video_url], ['', '', '', null]);
  assert.deepEqual([r.realm_create_public_stream_policy, r.realm_create_private_stream_policy, r.realm_create_web_public_stream_policy, r.realm_wildcard_mention_policy], [1, 1, 7, 5]);
  assert.deepEqual(r.realm_workplace_users_group, groupId('role:nobody'));
  // Only with the types asked for.
  const narrow = await ann.ok('POST', 'register', { fetch_event_types: ['message'] });
  assert.equal('realm_uuid' in narrow || 'stop_words' in narrow, false);
  assert.equal(narrow.receives_typing_notifications, true);
});

test('a password longer than the stated maximum is refused', async () => {
  const long = 'x'.repeat(MAX_PASSWORD_LENGTH + 1);
  const r = await ann.patch('settings', { old_password: 'ann.fields-password', new_password: long });
  assert.deepEqual([r.status, r.body.msg], [400, 'Password is too long.']);
});

test('the new organization settings: PATCH /realm, realm events, register', async () => {
  const hall = await newChannel(s, 'announce-hall', { subscribers: [admin] });
  const events = await checkConsistency(
    ann,
    () =>
      admin.ok('PATCH', 'realm', {
        welcome_message_custom_text: 'Welcome to **us**',
        media_preview_size: 150,
        require_e2ee_push_notifications: true,
        send_channel_events_messages: false,
        new_stream_announcements_stream_id: hall.id,
        signup_announcements_stream_id: hall.id,
        zulip_update_announcements_stream_id: hall.id,
      }),
    { expect: ['realm'] },
  );
  assert.equal(events.filter((e) => e.type === 'realm').length, 7);
  const r = await ann.ok('POST', 'register', {});
  assert.deepEqual(
    [r.realm_welcome_message_custom_text, r.realm_media_preview_size, r.realm_require_e2ee_push_notifications, r.realm_send_channel_events_messages, r.realm_new_stream_announcements_stream_id],
    ['Welcome to **us**', 150, true, false, hall.id],
  );
  await checkConsistency(ann, () => admin.ok('PATCH', 'realm', { signup_announcements_stream_id: -1, workplace_users_group: JSON.stringify({ new: groupId('role:members') }) }), { expect: ['realm'] });
  assert.equal((await ann.ok('POST', 'register', {})).realm_workplace_users_group, groupId('role:members'));

  // Bad values and permission.
  const bad = await admin.patch('realm', { media_preview_size: 120 });
  assert.deepEqual([bad.status, bad.body.msg], [400, 'Invalid media_preview_size 120']);
  assert.equal((await admin.patch('realm', { new_stream_announcements_stream_id: 999999 })).body.msg, 'Invalid channel ID');
  assert.equal((await admin.patch('realm', { welcome_message_custom_text: 'x'.repeat(8001) })).status, 400);
  const denied = await ann.patch('realm', { media_preview_size: 200 });
  assert.deepEqual([denied.status, denied.body.msg], [400, 'Must be an organization administrator']);
});

test('deprecated *_policy fields follow their group settings through realm update events', async () => {
  const events = await checkConsistency(ann, () => admin.ok('PATCH', 'realm', { can_create_public_channel_group: JSON.stringify({ new: groupId('role:moderators') }) }), { expect: ['realm'] });
  assert.deepEqual(events.filter((e) => e.op === 'update').map((e) => [e.property, e.value]), [['create_public_stream_policy', 4]]);
  await checkConsistency(ann, () => s.owner.ok('PATCH', 'realm', { can_mention_many_users_group: JSON.stringify({ new: groupId('role:everyone') }), can_create_web_public_channel_group: JSON.stringify({ new: groupId('role:nobody') }) }), { expect: ['realm'] });
  // A custom group is represented by the broadest policy.
  await checkConsistency(ann, () => admin.ok('PATCH', 'realm', { can_create_private_channel_group: JSON.stringify({ new: { direct_members: [ann.userId], direct_subgroups: [groupId('role:administrators')] } }) }), { expect: ['realm'] });
  const r = await ann.ok('POST', 'register', {});
  assert.deepEqual([r.realm_create_public_stream_policy, r.realm_create_private_stream_policy, r.realm_create_web_public_stream_policy, r.realm_wildcard_mention_policy], [4, 1, 6, 1]);
  // A change that leaves the derived number as it was sends none for it.
  const same = await checkConsistency(ann, () => admin.ok('PATCH', 'realm', { can_create_private_channel_group: JSON.stringify({ new: groupId('role:members') }) }), { expect: ['realm'] });
  assert.deepEqual(same.filter((e) => e.op === 'update'), []);
});

test('receives_typing_notifications follows the user’s setting', async () => {
  await checkConsistency(ann, () => ann.ok('PATCH', 'settings', { receives_typing_notifications: false }), { expect: ['user_settings'] });
  assert.equal((await ann.ok('POST', 'register', {})).receives_typing_notifications, false);
});

test('announcement channels: new members and new public channels created with announce', async () => {
  const hall = await newChannel(s, 'announce-hall-2', { subscribers: [admin, ann] });
  await admin.ok('PATCH', 'realm', { new_stream_announcements_stream_id: hall.id, signup_announcements_stream_id: hall.id });
  const latest = async () => (await ann.ok('GET', 'messages', { anchor: 'newest', num_before: 1, num_after: 0, narrow: JSON.stringify([{ operator: 'channel', operand: hall.id }]), apply_markdown: false })).messages[0];

  await grantCanCreateUsers(s, admin.userId);
  const newcomer = await admin.ok('POST', 'users', { email: 'newcomer@example.com', password: 'newcomer-password', full_name: 'New Comer' });
  let m = await latest();
  assert.deepEqual([m.subject, m.content], ['signups', `@_**New Comer|${newcomer.user_id}** joined this organization.`]);

  // (An earlier test left public channel creation to moderators: the administrator creates them.)
  await admin.ok('POST', 'users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'fresh-public' }]), announce: true });
  m = await latest();
  assert.deepEqual([m.subject, m.content], ['new channels', `@_**Ada Fields|${admin.userId}** created a new channel #**fresh-public**.`]);
  // Private channels and channels created without announce are not announced.
  const before = m.id;
  await admin.ok('POST', 'users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'fresh-private' }]), invite_only: true, announce: true });
  await admin.ok('POST', 'users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'fresh-quiet' }]) });
  const created = await admin.ok('POST', 'channels/create', { name: 'created-loud', subscribers: JSON.stringify([admin.userId]), announce: true });
  m = await latest();
  assert.equal(m.content, `@_**Ada Fields|${admin.userId}** created a new channel #**created-loud**.`);
  assert.ok(created.id > 0);
  const between = (await ann.ok('GET', 'messages', { anchor: before, num_before: 0, num_after: 10, narrow: JSON.stringify([{ operator: 'channel', operand: hall.id }]), apply_markdown: false })).messages;
  assert.deepEqual(between.map((x: any) => x.content.match(/#\*\*(.+)\*\*/)?.[1]), ['fresh-public', 'created-loud']);
  await admin.ok('PATCH', 'realm', { new_stream_announcements_stream_id: -1, signup_announcements_stream_id: -1 });
});

// PATCH /realm (organization settings): success, administrator and owner-only refusals, bad input, no-ops.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type Client, type TestServer } from './helpers/server.js';
import { newChannel } from './helpers/messages.js';
import { drainEvents } from './helpers/events.js';

let s: TestServer;
let admin: Client;
let ann: Client;
before(async () => {
  s = await startTestServer();
  admin = await s.user('Ada Settings', 200);
  ann = await s.user('Ann Settings');
});
after(async () => {
  await s.close();
});

/** Register's realm_* fields (without the queue's own). */
const realmState = async (c: Client) => {
  const { queue_id: _q, ...r } = await c.ok('POST', 'register', { fetch_event_types: JSON.stringify(['realm']) });
  return r;
};

test('administrators change plain settings; register reflects them', async () => {
  await admin.ok('PATCH', 'realm', {
    name: 'Renamed org',
    description: 'All about **us**',
    waiting_period_threshold: 3,
    digest_emails_enabled: true,
    digest_weekday: 4,
    default_language: 'de',
    video_chat_provider: 0,
    gif_rating_policy: 3,
    enable_read_receipts: false,
    message_content_edit_limit_seconds: JSON.stringify('unlimited'),
    message_content_delete_limit_seconds: 120,
    topics_policy: 'disable_empty_topic',
    org_type: 10,
  });
  const r = await realmState(ann);
  assert.equal(r.realm_name, 'Renamed org');
  assert.equal(r.realm_description, 'All about **us**');
  assert.equal(r.realm_waiting_period_threshold, 3);
  assert.equal(r.realm_digest_emails_enabled, true);
  assert.equal(r.realm_digest_weekday, 4);
  assert.equal(r.realm_default_language, 'de');
  assert.equal(r.realm_video_chat_provider, 0);
  assert.equal(r.realm_gif_rating_policy, 3);
  assert.equal(r.realm_enable_read_receipts, false);
  assert.equal(r.realm_message_content_edit_limit_seconds, null);
  assert.equal(r.realm_message_content_delete_limit_seconds, 120);
  assert.equal(r.realm_topics_policy, 'disable_empty_topic');
  assert.equal(r.realm_org_type, 10);
  // Back to the defaults: the stored overrides shrink, register shows the defaults again.
  await admin.ok('PATCH', 'realm', { enable_read_receipts: true, message_content_edit_limit_seconds: 600, video_chat_provider: 1 });
  const r2 = await realmState(ann);
  assert.deepEqual([r2.realm_enable_read_receipts, r2.realm_message_content_edit_limit_seconds, r2.realm_video_chat_provider], [true, 600, 1]);
});

test('group settings: {new, old} with named and anonymous groups; system-group limits', async () => {
  const groups = (await ann.ok('GET', 'user_groups')).user_groups as { id: number; name: string }[];
  const id = (n: string) => groups.find((g) => g.name === n)!.id;
  await admin.ok('PATCH', 'realm', { can_create_public_channel_group: JSON.stringify({ new: id('role:administrators'), old: id('role:members') }) });
  assert.equal((await realmState(ann)).realm_can_create_public_channel_group, id('role:administrators'));
  const anon = { direct_members: [ann.userId], direct_subgroups: [id('role:administrators')] };
  await admin.ok('PATCH', 'realm', { can_invite_users_group: JSON.stringify({ new: anon }) });
  assert.deepEqual((await realmState(ann)).realm_can_invite_users_group, anon);
  let r = await admin.patch('realm', { can_create_public_channel_group: JSON.stringify({ new: id('role:members'), old: id('role:owners') }) });
  assert.deepEqual([r.status, r.body.msg], [400, "'old' value does not match the expected value."]);
  r = await admin.patch('realm', { can_invite_users_group: JSON.stringify({ new: id('role:everyone') }) });
  assert.equal(r.body.msg, "'can_invite_users_group' setting cannot be set to 'role:everyone' group.");
  r = await admin.patch('realm', { can_access_all_users_group: JSON.stringify({ new: anon }) });
  assert.equal(r.body.msg, "'can_access_all_users_group' must be a system user group.");
  r = await admin.patch('realm', { can_create_public_channel_group: JSON.stringify({ new: 99999999 }) });
  assert.equal(r.body.msg, 'Invalid user group');
  r = await admin.patch('realm', { can_create_public_channel_group: JSON.stringify({ old: 1 }) });
  assert.equal(r.status, 400);
  r = await admin.patch('realm', { can_create_public_channel_group: JSON.stringify({ new: { direct_members: [99999999], direct_subgroups: [] } }) });
  assert.equal(r.body.msg, 'Invalid user ID: 99999999');
});

test('members are refused; owner-only settings refuse administrators', async () => {
  let r = await ann.patch('realm', { name: 'Mine now' });
  assert.deepEqual([r.status, r.body.code, r.body.msg], [400, 'BAD_REQUEST', 'Must be an organization administrator']);
  // The role check comes before any parameter is read.
  r = await ann.patch('realm', { waiting_period_threshold: 'x' });
  assert.equal(r.body.msg, 'Must be an organization administrator');
  r = await admin.patch('realm', { message_retention_days: 30 });
  assert.deepEqual([r.status, r.body.msg], [400, 'Must be an organization owner']);
  const groups = (await ann.ok('GET', 'user_groups')).user_groups as { id: number; name: string }[];
  r = await admin.patch('realm', { can_manage_all_groups: JSON.stringify({ new: groups.find((g) => g.name === 'role:administrators')!.id }) });
  assert.equal(r.body.msg, 'Must be an organization owner');
  r = await admin.patch('realm', { authentication_methods: JSON.stringify({ password: true }) });
  assert.equal(r.body.msg, 'Must be an organization owner');
  await s.owner.ok('PATCH', 'realm', { message_retention_days: 30 });
  assert.equal((await realmState(ann)).realm_message_retention_days, 30);
  await s.owner.ok('PATCH', 'realm', { message_retention_days: JSON.stringify('unlimited') });
  assert.equal((await realmState(ann)).realm_message_retention_days, -1);
  r = await s.owner.patch('realm', { authentication_methods: JSON.stringify({ password: false }) });
  assert.equal(r.body.msg, 'At least one authentication method must be enabled.');
  r = await s.owner.patch('realm', { authentication_methods: JSON.stringify({ ldap: true }) });
  assert.equal(r.body.msg, 'Invalid authentication method: ldap');
  await s.owner.ok('PATCH', 'realm', { authentication_methods: JSON.stringify({ password: true }) });
});

test('bad input is refused with the original errors and changes nothing', async () => {
  const before = await realmState(ann);
  const bad: [Record<string, string | number>, string][] = [
    [{ default_language: 'xx' }, "Invalid language 'xx'"],
    [{ video_chat_provider: 42 }, 'Invalid video_chat_provider 42'],
    [{ gif_rating_policy: 9 }, 'Invalid gif_rating_policy 9'],
    [{ org_type: 7 }, 'Invalid org_type 7'],
    [{ digest_weekday: 7 }, 'Invalid digest_weekday'],
    [{ waiting_period_threshold: -1 }, 'waiting_period_threshold is too small'],
    [{ message_content_edit_limit_seconds: 0 }, "Bad value for 'message_content_edit_limit_seconds': 0"],
    [{ message_content_edit_limit_seconds: JSON.stringify('forever') }, `Bad value for 'message_content_edit_limit_seconds': "forever"`],
    [{ topics_policy: 'inherit' }, 'Invalid topics_policy'],
    [{ name: 'x'.repeat(41) }, 'name is too long (limit: 40 characters)'],
    [{ enable_read_receipts: 'maybe' }, 'enable_read_receipts is not a boolean'],
    [{ moderation_request_channel_id: 99999999 }, 'Invalid channel ID'],
  ];
  for (const [params, msg] of bad) {
    const r = await admin.patch('realm', { ...params, allow_message_editing: false });
    assert.deepEqual([r.status, r.body.result, r.body.msg], [400, 'error', msg], JSON.stringify(params));
  }
  const pub = await newChannel(s, 'public reports', { subscribers: [s.owner] });
  const r = await admin.patch('realm', { moderation_request_channel_id: pub.id });
  assert.equal(r.body.msg, 'Moderation request channel must be private.');
  assert.deepEqual(await realmState(ann), before);
});

test('a private moderation channel is accepted; nothing changed means no event', async () => {
  const mods = await newChannel(s, 'mods', { inviteOnly: true, subscribers: [s.owner] });
  await admin.ok('PATCH', 'realm', { moderation_request_channel_id: mods.id });
  assert.equal((await realmState(ann)).realm_moderation_request_channel_id, mods.id);
  const reg = await ann.ok('POST', 'register', { event_types: JSON.stringify(['realm']) });
  await admin.ok('PATCH', 'realm', { moderation_request_channel_id: mods.id, name: (await realmState(ann)).realm_name });
  await admin.ok('PATCH', 'realm', {});
  await admin.ok('PATCH', 'realm', { moderation_request_channel_id: -1 });
  const realmEvents = (await drainEvents(ann, reg.queue_id)).filter((e: any) => e.type === 'realm');
  assert.deepEqual(realmEvents.map((e: any) => [e.op, e.property, e.value]), [['update', 'moderation_request_channel_id', -1]]);
});

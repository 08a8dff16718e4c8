// Events consistency for `realm` events (PATCH /realm, organization settings): register, change,
// apply the events, compare with a fresh register. In its own process; see test/events-consistency.test.ts.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type Client, type TestServer } from './helpers/server.js';
import { checkConsistency } from './helpers/events.js';
import { newChannel } from './helpers/messages.js';

let s: TestServer;
let admin: Client;
let ann: Client;

before(async () => {
  s = await startTestServer();
  admin = await s.user('Ada Consistent', 200);
  ann = await s.user('Ann Consistent');
});
after(async () => {
  await s.close();
});

test('realm op update: name, description and plain settings', async () => {
  const events = await checkConsistency(ann, () => admin.ok('PATCH', 'realm', { name: 'New name', description: 'About us' }), { expect: ['realm'] });
  assert.deepEqual(
    events.filter((e) => e.type === 'realm').map((e) => [e.op, e.property, e.value]),
    [
      ['update', 'name', 'New name'],
      ['update', 'description', 'About us'],
    ],
  );
  await checkConsistency(ann, () => admin.ok('PATCH', 'realm', { waiting_period_threshold: 5, digest_weekday: 3, default_language: 'fr', enable_read_receipts: false }), { expect: ['realm'] });
  await checkConsistency(ann, () => admin.ok('PATCH', 'realm', { message_content_delete_limit_seconds: JSON.stringify('unlimited'), gif_rating_policy: 0 }), { expect: ['realm'] });
  await checkConsistency(ann, () => s.owner.ok('PATCH', 'realm', { message_retention_days: 14 }), { expect: ['realm'] });
  const mods = await newChannel(s, 'mods', { inviteOnly: true, subscribers: [s.owner] });
  await checkConsistency(ann, () => admin.ok('PATCH', 'realm', { moderation_request_channel_id: mods.id }), { expect: ['realm'] });
  // Archiving the moderation request channel turns reporting off, in every user's state.
  const archived = await checkConsistency(ann, () => s.owner.ok('DELETE', `streams/${mods.id}`), { expect: ['realm'] });
  assert.deepEqual(archived.filter((e) => e.type === 'realm').map((e) => [e.op, e.property, e.value]), [['update', 'moderation_request_channel_id', -1]]);
  assert.equal((await ann.ok('POST', 'register', { fetch_event_types: ['realm'] })).realm_moderation_request_channel_id, -1);
  // So does archiving a channel that two announcement settings name: both become none.
  const news = await newChannel(s, 'news', { subscribers: [s.owner] });
  await checkConsistency(ann, () => admin.ok('PATCH', 'realm', { signup_announcements_stream_id: news.id, new_stream_announcements_stream_id: news.id }), { expect: ['realm'] });
  const archivedNews = await checkConsistency(ann, () => s.owner.ok('DELETE', `streams/${news.id}`), { expect: ['realm'] });
  assert.deepEqual(
    archivedNews.filter((e) => e.type === 'realm').map((e) => [e.property, e.value]).sort(),
    [
      ['new_stream_announcements_stream_id', -1],
      ['signup_announcements_stream_id', -1],
    ],
  );
  const state = await ann.ok('POST', 'register', { fetch_event_types: ['realm'] });
  assert.deepEqual([state.realm_signup_announcements_stream_id, state.realm_new_stream_announcements_stream_id], [-1, -1]);
});

test('realm op update_dict: message editing and group permission settings', async () => {
  const events = await checkConsistency(admin, () => admin.ok('PATCH', 'realm', { allow_message_editing: false, message_content_edit_limit_seconds: 3600 }), { expect: ['realm'] });
  assert.deepEqual(
    events.filter((e) => e.type === 'realm').map((e) => [e.op, e.property, e.data]),
    [
      ['update_dict', 'default', { allow_message_editing: false }],
      ['update_dict', 'default', { message_content_edit_limit_seconds: 3600 }],
    ],
  );
  const groups = (await ann.ok('GET', 'user_groups')).user_groups as { id: number; name: string }[];
  const id = (n: string) => groups.find((g) => g.name === n)!.id;
  await checkConsistency(ann, () => admin.ok('PATCH', 'realm', { can_create_public_channel_group: JSON.stringify({ new: id('role:moderators') }) }), { expect: ['realm'] });
  await checkConsistency(ann, () => admin.ok('PATCH', 'realm', { direct_message_permission_group: JSON.stringify({ new: { direct_members: [ann.userId], direct_subgroups: [id('role:administrators')] } }) }), { expect: ['realm'] });
  await checkConsistency(ann, () => s.owner.ok('PATCH', 'realm', { can_manage_all_groups: JSON.stringify({ new: id('role:administrators') }) }), { expect: ['realm'] });
});

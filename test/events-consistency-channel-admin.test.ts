// Events-consistency for channel administration: channel creation and updates, privacy changes,
// archiving, default channels and channel folders (register state + events = a fresh register).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type Client, type TestServer } from './helpers/server.js';
import { checkConsistency } from './helpers/events.js';

let s: TestServer;
let admin: Client;
let kim: Client;
let lee: Client;
before(async () => {
  s = await startTestServer();
  admin = await s.user('Ada Events', 200);
  kim = await s.user('Kim Events');
  lee = await s.user('Lee Events');
});
after(async () => {
  await s.close();
});

/** Older clients: no archived_channels, no subscriber lists, no notification_settings_null. */
const LEGACY = { apply_markdown: false, include_subscribers: false, client_capabilities: {} };
const REGISTERS = [{}, LEGACY];

test('POST /channels/create: stream create, subscription add and peer_add', async () => {
  for (const [i, register] of REGISTERS.entries()) {
    await checkConsistency(lee, () => kim.ok('POST', 'channels/create', { name: `made ${i}`, subscribers: [kim.userId, lee.userId] }), { register, expect: ['stream', 'subscription'] });
    await checkConsistency(lee, () => kim.ok('POST', 'channels/create', { name: `others ${i}`, subscribers: [kim.userId] }), { register, expect: ['stream', 'subscription'] });
  }
});

test('PATCH /streams/{id}: name, description, retention, topics policy and permission groups', async () => {
  const { id } = await admin.ok('POST', 'channels/create', { name: 'editable', subscribers: [admin.userId, lee.userId] });
  const groups = (await admin.ok('GET', 'user_groups')).user_groups as any[];
  const members = groups.find((g) => g.name === 'role:members').id;
  const admins = groups.find((g) => g.name === 'role:administrators').id;
  for (const [i, register] of REGISTERS.entries()) {
    await checkConsistency(lee, () => admin.ok('PATCH', `streams/${id}`, { new_name: `edited ${i}`, description: `now **bold** ${i}` }), { register, expect: ['stream'] });
    await checkConsistency(kim, () => admin.ok('PATCH', `streams/${id}`, { can_send_message_group: JSON.stringify({ new: i === 0 ? { direct_members: [lee.userId], direct_subgroups: [] } : members }) }), { register, expect: ['stream'] });
  }
  await checkConsistency(lee, () => s.owner.ok('PATCH', `streams/${id}`, { message_retention_days: 12, topics_policy: 'disable_empty_topic' }), { expect: ['stream'] });
  await checkConsistency(lee, () => admin.ok('PATCH', `streams/${id}`, { can_send_message_group: JSON.stringify({ new: admins }) }), { expect: ['stream'] });
});

test('privacy changes: users who lose sight get a delete, users who gain it a create with the subscribers', async () => {
  const { id } = await admin.ok('POST', 'channels/create', { name: 'shifting', subscribers: [admin.userId, lee.userId] });
  for (const register of REGISTERS) {
    await checkConsistency(kim, () => admin.ok('PATCH', `streams/${id}`, { is_private: true }), { register, expect: ['stream'] });
    await checkConsistency(lee, () => admin.ok('PATCH', `streams/${id}`, { history_public_to_subscribers: false }), { register, expect: ['stream'] });
    await checkConsistency(kim, () => admin.ok('PATCH', `streams/${id}`, { is_private: false }), { register, expect: ['stream'] });
  }
});

test('archiving and unarchiving: is_archived updates, or delete and create for older clients', async () => {
  const { id } = await admin.ok('POST', 'channels/create', { name: 'seasonal', subscribers: [admin.userId, lee.userId], is_default_stream: true });
  for (const register of REGISTERS) {
    for (const c of [lee, kim]) {
      await checkConsistency(c, () => admin.ok('DELETE', `streams/${id}`), { register, expect: ['stream'] });
      await checkConsistency(c, () => admin.ok('PATCH', `streams/${id}`, { is_archived: false }), { register, expect: ['stream'] });
    }
  }
});

test('default_streams: add and remove', async () => {
  const { id } = await admin.ok('POST', 'channels/create', { name: 'entrance', subscribers: [] });
  await checkConsistency(kim, () => admin.ok('POST', 'default_streams', { stream_id: id }), { expect: ['default_streams'] });
  await checkConsistency(kim, () => admin.ok('DELETE', 'default_streams', { stream_id: id }), { expect: ['default_streams'] });
  await checkConsistency(kim, () => admin.ok('PATCH', `streams/${id}`, { is_default_stream: true }), { expect: ['default_streams'] });
  // A guest is told of no default channels, and gets no event when they change, as in the original.
  const guest = await s.user('Gus Events', 600);
  const events = await checkConsistency(guest, () => admin.ok('DELETE', 'default_streams', { stream_id: id }));
  assert.deepEqual(events.filter((e) => e.type === 'default_streams'), []);
  assert.deepEqual((await guest.ok('POST', 'register', { fetch_event_types: ['default_streams'] })).realm_default_streams, []);
  const membersList = async () => (await kim.ok('POST', 'register', { fetch_event_types: ['default_streams'] })).realm_default_streams as number[];
  assert.ok(!(await membersList()).includes(id));
  await admin.ok('POST', 'default_streams', { stream_id: id });
  assert.deepEqual((await guest.ok('POST', 'register', { fetch_event_types: ['default_streams'] })).realm_default_streams, []);
  assert.ok((await membersList()).includes(id), 'members still see the list');
});

test('channel_folder: add, update, archive, reorder, and a channel moved into a folder', async () => {
  let a = 0;
  let b = 0;
  await checkConsistency(kim, async () => {
    a = (await admin.ok('POST', 'channel_folders/create', { name: 'Alpha', description: 'first' })).channel_folder_id;
    b = (await admin.ok('POST', 'channel_folders/create', { name: 'Beta' })).channel_folder_id;
  }, { expect: ['channel_folder'] });
  await checkConsistency(kim, () => admin.ok('PATCH', `channel_folders/${a}`, { name: 'Alef', description: 'now *first*' }), { expect: ['channel_folder'] });
  await checkConsistency(kim, () => admin.ok('PATCH', 'channel_folders', { order: [b, a] }), { expect: ['channel_folder'] });
  await checkConsistency(kim, () => admin.ok('PATCH', `channel_folders/${b}`, { is_archived: true }), { expect: ['channel_folder'] });
  const { id } = await admin.ok('POST', 'channels/create', { name: 'foldered', subscribers: [kim.userId] });
  await checkConsistency(kim, () => admin.ok('PATCH', `streams/${id}`, { folder_id: a }), { expect: ['stream'] });
});

test('PATCH /users/me/subscriptions: joins and leaves in one request', async () => {
  await admin.ok('POST', 'channels/create', { name: 'to leave', subscribers: [kim.userId] });
  for (const register of REGISTERS) {
    await checkConsistency(kim, () => kim.ok('PATCH', 'users/me/subscriptions', { add: [{ name: `joined ${JSON.stringify(register).length}`, color: '#123456' }], delete: ['to leave'] }), { register, expect: ['subscription'] });
    await kim.ok('POST', 'users/me/subscriptions', { subscriptions: [{ name: 'to leave' }] });
  }
});

test('realm_domains: add, change, remove', async () => {
  await checkConsistency(kim, () => s.owner.ok('POST', 'realm/domains', { domain: 'b.example.org', allow_subdomains: false }), { expect: ['realm_domains'] });
  await checkConsistency(kim, () => s.owner.ok('POST', 'realm/domains', { domain: 'a.example.org', allow_subdomains: true }), { expect: ['realm_domains'] });
  await checkConsistency(kim, () => s.owner.ok('PATCH', 'realm/domains/b.example.org', { allow_subdomains: true }), { expect: ['realm_domains'] });
  await checkConsistency(kim, () => s.owner.ok('DELETE', 'realm/domains/a.example.org'), { expect: ['realm_domains'] });
});

test('realm_playgrounds: add and remove', async () => {
  let id = 0;
  await checkConsistency(kim, async () => {
    id = (await admin.ok('POST', 'realm/playgrounds', { name: 'Py', pygments_language: 'Python', url_template: 'https://py.example/{code}' })).id;
  }, { expect: ['realm_playgrounds'] });
  await checkConsistency(kim, () => admin.ok('DELETE', `realm/playgrounds/${id}`), { expect: ['realm_playgrounds'] });
});

test('realm_user_settings_defaults: one update per changed setting', async () => {
  await checkConsistency(kim, () => admin.ok('PATCH', 'realm/user_settings_defaults', { enter_sends: true, emojiset: 'text', web_home_view: 'recent' }), { expect: ['realm_user_settings_defaults'] });
  await checkConsistency(kim, () => admin.ok('PATCH', 'realm/user_settings_defaults', { enter_sends: false }), { expect: ['realm_user_settings_defaults'] });
});

// Events-consistency for every event type: register state + events = a fresh register.
// The last test fails when an event type in src/events/types.ts has no consistency case here or in
// a test/events-consistency-*.test.ts file.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type Client, type TestServer } from './helpers/server.js';
import { newChannel } from './helpers/messages.js';
import { checkConsistency, coveredEventTypes, DEFAULT_REGISTER } from './helpers/events.js';
import { applyEvents } from '../src/events/apply.js';
import { EVENT_TYPES } from '../src/events/types.js';
import { typesCoveredInOtherFiles } from './helpers/consistency-files.js';
import { changeEmail, RenamableClient } from './helpers/settings.js';
import { uploadEmoji } from './helpers/emoji.js';
import { uploadAvatar } from './helpers/avatars.js';
import { grantCanCreateUsers } from './helpers/people.js';
import sharp from 'sharp';

let s: TestServer;
let kim: Client;
let lee: Client;
let max: Client;
before(async () => {
  s = await startTestServer({ env: { PARLEY_HEARTBEAT_SECS: '1' } });
  kim = await s.user('Kim Consistent');
  lee = await s.user('Lee Consistent');
  max = await s.user('Max Consistent');
});
after(async () => {
  await s.close();
});

test('realm_user add: a new user appears in realm_users', async () => {
  const bob = await s.user('Bob Observer');
  await checkConsistency(bob, () => s.user('Zed Newcomer'), { expect: ['realm_user'] });
});

test('heartbeat: changes nothing in the state', async () => {
  const before = await s.owner.ok('POST', 'register', DEFAULT_REGISTER);
  const r = await s.owner.ok('GET', 'events', { queue_id: before.queue_id, last_event_id: -1 });
  assert.deepEqual(r.events.map((e: any) => e.type), ['heartbeat']);
  coveredEventTypes.add('heartbeat');
  const state = structuredClone(before);
  applyEvents(state, r.events, { userId: s.owner.userId });
  const fresh = await s.owner.ok('POST', 'register', DEFAULT_REGISTER);
  for (const k of ['queue_id', 'last_event_id', 'server_timestamp', 'presence_last_update_id']) {
    delete state[k];
    delete fresh[k];
  }
  assert.deepEqual(state, fresh);
});

const LEGACY = { apply_markdown: false, include_subscribers: false, client_capabilities: {} };

const send = async (c: Client, params: Record<string, unknown>) => (await c.ok('POST', 'messages', params as never)).id as number;

test('message: channel, empty topic, direct, group and mentions', async () => {
  for (const register of [{}, LEGACY]) {
    await checkConsistency(
      lee,
      async () => {
        await send(kim, { type: 'stream', to: 'general', topic: 'hello', content: 'hi @**Lee Consistent**' });
        await send(kim, { type: 'stream', to: 'general', topic: '', content: 'empty topic' });
        await send(kim, { type: 'direct', to: [lee.userId], content: 'dm' });
        await send(kim, { type: 'direct', to: [lee.userId, max.userId], content: 'group' });
        await send(lee, { type: 'direct', to: [lee.userId], content: 'self' });
      },
      { register, expect: ['message'] },
    );
  }
});

test('update_message: content edits and moves across topics and channels', async () => {
  const dest = await newChannel(s, 'cons-dest', { subscribers: [kim, lee] });
  const secret = await newChannel(s, 'cons-secret', { inviteOnly: true, subscribers: [kim] });
  const a = await send(kim, { type: 'stream', to: 'general', topic: 'move me', content: 'one' });
  await send(kim, { type: 'stream', to: 'general', topic: 'move me', content: 'two' });
  for (const register of [{}, LEGACY]) {
    await checkConsistency(lee, () => kim.ok('PATCH', `messages/${a}`, { content: `one, edited ${JSON.stringify(register).length}` }), { register, expect: ['update_message'] });
  }
  await checkConsistency(lee, () => kim.ok('PATCH', `messages/${a}`, { content: 'now for @**Lee Consistent**' }), { expect: ['update_message'] });
  await checkConsistency(lee, () => kim.ok('PATCH', `messages/${a}`, { content: 'no mention any more' }), { register: LEGACY, expect: ['update_message'] });
  await checkConsistency(lee, () => kim.ok('PATCH', `messages/${a}`, { topic: '', propagate_mode: 'change_all' }), { expect: ['update_message'] });
  await checkConsistency(lee, () => kim.ok('PATCH', `messages/${a}`, { topic: 'moved', propagate_mode: 'change_all' }), { register: LEGACY, expect: ['update_message'] });
  await checkConsistency(lee, () => kim.ok('PATCH', `messages/${a}`, { stream_id: dest.id, propagate_mode: 'change_all' }), { expect: ['update_message'] });
  // Losing the newest messages would lower max_message_id, which no event conveys; keep a later one.
  await send(kim, { type: 'stream', to: 'general', topic: 'tail', content: 'later' });
  await checkConsistency(lee, () => kim.ok('PATCH', `messages/${a}`, { stream_id: secret.id, propagate_mode: 'change_all' }), { expect: ['delete_message'] });
});

test('delete_message, reaction and update_message_flags', async () => {
  const id = await send(kim, { type: 'stream', to: 'general', topic: 'flags', content: 'x @**Lee Consistent**' });
  const dm = await send(kim, { type: 'direct', to: [lee.userId], content: 'dm' });
  await checkConsistency(lee, () => lee.ok('POST', 'messages/flags', { messages: [id, dm], op: 'add', flag: 'read' }), { expect: ['update_message_flags'] });
  for (const register of [{}, LEGACY]) {
    await checkConsistency(lee, () => lee.ok('POST', 'messages/flags', { messages: [id, dm], op: 'remove', flag: 'read' }), { register, expect: ['update_message_flags'] });
    await checkConsistency(lee, () => lee.ok('POST', 'mark_all_as_read'), { register, expect: ['update_message_flags'] });
  }
  const emptyTopic = await send(kim, { type: 'stream', to: 'general', topic: '', content: 'in the empty topic' });
  await lee.ok('POST', 'messages/flags', { messages: [emptyTopic], op: 'add', flag: 'read' });
  await checkConsistency(lee, () => lee.ok('POST', 'messages/flags', { messages: [emptyTopic], op: 'remove', flag: 'read' }), { register: LEGACY, expect: ['update_message_flags'] });
  await checkConsistency(lee, () => lee.ok('POST', 'messages/flags', { messages: [id], op: 'add', flag: 'starred' }), { expect: ['update_message_flags'] });
  await checkConsistency(lee, () => kim.ok('POST', `messages/${id}/reactions`, { emoji_name: 'tada' }), { expect: ['reaction'] });
  const unread = await send(kim, { type: 'stream', to: 'general', topic: 'flags', content: 'y' });
  // Deleting the newest message would lower max_message_id, which no event can convey; keep a later one.
  await send(kim, { type: 'stream', to: 'general', topic: 'tail', content: 'z' });
  await checkConsistency(lee, () => kim.ok('DELETE', `messages/${unread}`), { expect: ['delete_message'] });
  await checkConsistency(lee, () => kim.ok('DELETE', `messages/${id}`), { register: LEGACY, expect: ['delete_message'] });
});


test('stream create, subscription add and peer_add, seen by a non-subscriber and by the subscriber', async () => {
  const bob = await s.user('Bob Subscriber');
  const carol = await s.user('Carol Watcher');
  await checkConsistency(carol, () => s.owner.ok('POST', 'users/me/subscriptions', { subscriptions: [{ name: 'engineering' }], principals: [s.owner.userId, bob.userId] }), {
    expect: ['stream', 'subscription'],
  });
  await checkConsistency(bob, () => s.owner.ok('POST', 'users/me/subscriptions', { subscriptions: [{ name: 'eng-two' }], principals: [bob.userId] }), { expect: ['subscription'] });
  for (const who of [bob, carol]) {
    await checkConsistency(who, () => s.owner.ok('POST', 'users/me/subscriptions', { subscriptions: [{ name: `legacy-${who.userId}` }], principals: [s.owner.userId, bob.userId] }), {
      register: LEGACY,
      expect: ['subscription'],
    });
  }
});

test('subscription remove and peer_remove, seen by the leaver and by others', async () => {
  const dan = await s.user('Dan Leaver');
  const erin = await s.user('Erin Stayer');
  await s.owner.ok('POST', 'users/me/subscriptions', { subscriptions: [{ name: 'leaving' }, { name: 'leaving-2' }], principals: [dan.userId, erin.userId] });
  await checkConsistency(dan, () => dan.ok('DELETE', 'users/me/subscriptions', { subscriptions: ['leaving'] }), { expect: ['subscription'] });
  await checkConsistency(erin, () => dan.ok('DELETE', 'users/me/subscriptions', { subscriptions: ['leaving-2'] }), { expect: ['subscription'] });
  await s.owner.ok('POST', 'users/me/subscriptions', { subscriptions: [{ name: 'leaving-3' }], principals: [dan.userId, erin.userId] });
  await checkConsistency(dan, () => dan.ok('DELETE', 'users/me/subscriptions', { subscriptions: ['leaving-3'] }), { register: LEGACY, expect: ['subscription'] });
});

test('a private channel appears and disappears for a member added and removed', async () => {
  const fay = await s.user('Fay Private');
  await checkConsistency(fay, () => s.owner.ok('POST', 'users/me/subscriptions', { subscriptions: [{ name: 'secret' }], principals: [s.owner.userId, fay.userId], invite_only: true }), {
    expect: ['subscription'],
  });
  await checkConsistency(fay, () => s.owner.ok('DELETE', 'users/me/subscriptions', { subscriptions: ['secret'], principals: [fay.userId] }), { expect: ['subscription'] });
});

test('realm_bot add: the owner and administrators learn of a new bot', async () => {
  const admin = await s.user('Ada Admin', 200);
  await checkConsistency(admin, () => s.owner.ok('POST', 'bots', { full_name: 'Helper Bot', short_name: 'helper' }), { expect: ['realm_bot', 'realm_user'] });
  await checkConsistency(s.owner, () => s.owner.ok('POST', 'bots', { full_name: 'Second Bot', short_name: 'second' }), { expect: ['realm_bot'] });
});

test('user_settings update: own changes, a bulk edit, and the timezone seen by others', async () => {
  const uma = await s.user('Uma Settings');
  const vic = await s.user('Vic Observer');
  const change = { color_scheme: 3, default_language: 'ja', timezone: 'Asia/Tokyo', emojiset: 'text', enable_drafts_synchronization: false, web_channel_default_view: 3 };
  await checkConsistency(uma, () => uma.ok('PATCH', 'settings', change), { expect: ['user_settings', 'realm_user'] });
  await checkConsistency(uma, () => s.owner.ok('PATCH', 'settings', { target_users: { user_ids: [uma.userId] }, web_font_size_px: 20 }), { expect: ['user_settings'] });
  await checkConsistency(vic, () => uma.ok('PATCH', 'settings', { timezone: 'Europe/Oslo' }), { register: LEGACY, expect: ['realm_user'] });
});

test('realm_user update: full name, email visibility and a confirmed email change, seen by the user and by others', async () => {
  const ned = new RenamableClient(await s.user('Ned Renamed'));
  const guest = await s.user('Gwen Guest', 600);
  await checkConsistency(ned, () => ned.ok('PATCH', 'settings', { full_name: 'Ned Renamed Again' }), { expect: ['realm_user'] });
  await checkConsistency(guest, () => ned.ok('PATCH', 'settings', { full_name: 'Ned Third' }), { expect: ['realm_user'] });
  await checkConsistency(guest, () => ned.ok('PATCH', 'settings', { email_address_visibility: 4 }), { expect: ['realm_user'] });
  await checkConsistency(guest, () => ned.ok('PATCH', 'settings', { email_address_visibility: 1 }), { expect: ['realm_user'] });
  await checkConsistency(ned, () => changeEmail(s, ned, 'ned.moved@example.org'), { expect: ['realm_user'] });
  await checkConsistency(guest, () => changeEmail(s, ned, 'ned.again@example.org'), { register: { client_gravatar: true }, expect: ['realm_user'] });
  const opt = { client_gravatar: true, client_capabilities: { user_avatar_url_field_optional: true } };
  await checkConsistency(ned, () => changeEmail(s, ned, 'ned.third@example.org'), { register: opt, expect: ['realm_user'] });
});

test('typing and typing_edit_message: nothing in the state changes', async () => {
  const ty = await s.user('Ty Typer');
  const ru = await s.user('Ru Reader');
  const room = await newChannel(s, 'cons-typing', { subscribers: [ty, ru] });
  await checkConsistency(
    ru,
    async () => {
      await ty.ok('POST', 'typing', { op: 'start', to: [ru.userId] });
      await ty.ok('POST', 'typing', { type: 'channel', op: 'stop', stream_id: room.id, topic: '' });
    },
    { expect: ['typing'] },
  );
  const id = await send(ty, { type: 'stream', to: 'cons-typing', topic: 'edit me', content: 'v1' });
  await checkConsistency(ru, () => ty.ok('POST', `messages/${id}/typing`, { op: 'start' }), { expect: ['typing_edit_message'] });
});

test('drafts: add, update, remove, and turning synchronization off', async () => {
  const dee = await s.user('Dee Drafts');
  const room = await newChannel(s, 'cons-drafts', { subscribers: [dee] });
  const draft = { type: 'stream', to: [room.id], topic: 'draft', content: 'first', timestamp: 1700000000 };
  let ids: number[] = [];
  await checkConsistency(dee, async () => (ids = (await dee.ok('POST', 'drafts', { drafts: [draft, { type: 'private', to: [kim.userId], topic: '', content: 'dm' }] })).ids), { expect: ['drafts'] });
  await checkConsistency(dee, () => dee.ok('PATCH', `drafts/${ids[0]}`, { draft: { ...draft, content: 'second', timestamp: 1800000000 } }), { expect: ['drafts'] });
  await checkConsistency(dee, () => dee.ok('DELETE', `drafts/${ids[1]}`), { expect: ['drafts'] });
  // No drafts event: the user_settings event empties the drafts.
  await checkConsistency(dee, () => dee.ok('PATCH', 'settings', { enable_drafts_synchronization: false }), { expect: ['user_settings'] });
});

test('saved_snippets, navigation_view and alert_words: add, update, remove', async () => {
  const pat = await s.user('Pat Personal');
  let id = 0;
  await checkConsistency(pat, async () => (id = (await pat.ok('POST', 'saved_snippets', { title: 'Hi', content: 'Hello' })).saved_snippet_id), { expect: ['saved_snippets'] });
  await checkConsistency(pat, () => pat.ok('PATCH', `saved_snippets/${id}`, { content: 'Hello again' }), { expect: ['saved_snippets'] });
  await checkConsistency(pat, () => pat.ok('DELETE', `saved_snippets/${id}`), { expect: ['saved_snippets'] });
  await checkConsistency(
    pat,
    async () => {
      await pat.ok('POST', 'navigation_views', { fragment: 'inbox', is_pinned: false });
      await pat.ok('POST', 'navigation_views', { fragment: 'narrow/is/alerted', is_pinned: true, name: 'Alerts' });
    },
    { expect: ['navigation_view'] },
  );
  await checkConsistency(pat, () => pat.ok('PATCH', 'navigation_views/narrow/is/alerted', { is_pinned: false, name: 'Watched' }), { expect: ['navigation_view'] });
  await checkConsistency(pat, () => pat.ok('DELETE', 'navigation_views/inbox'), { expect: ['navigation_view'] });
  await checkConsistency(pat, () => pat.ok('POST', 'users/me/alert_words', { alert_words: ['ping', 'Pong'] }), { expect: ['alert_words'] });
  await checkConsistency(pat, () => pat.ok('DELETE', 'users/me/alert_words', { alert_words: ['PING'] }), { expect: ['alert_words'] });
  // has_alert_word on a new message is a flag of the message event.
  const events = await checkConsistency(pat, () => send(kim, { type: 'direct', to: [pat.userId], content: 'pong!' }), { expect: ['message'] });
  assert.ok(events.find((e) => e.type === 'message').flags.includes('has_alert_word'));
});

test('recent_private_conversations: newest first, other participants ascending, [] for oneself', async () => {
  const rae = await s.user('Rae Recent');
  await send(kim, { type: 'direct', to: [rae.userId], content: 'older' });
  await checkConsistency(
    rae,
    async () => {
      await send(rae, { type: 'direct', to: [rae.userId], content: 'note to self' });
      await send(max, { type: 'direct', to: [rae.userId, lee.userId], content: 'group' });
      await send(rae, { type: 'direct', to: [kim.userId], content: 'newer' });
    },
    { register: { fetch_event_types: ['recent_private_conversations', 'message'], event_types: ['message'] }, expect: ['message'] },
  );
  const r = await rae.ok('POST', 'register', { fetch_event_types: ['recent_private_conversations'] });
  assert.deepEqual(
    r.recent_private_conversations.map((c: any) => c.user_ids),
    [[kim.userId], [lee.userId, max.userId].sort((a, b) => a - b), []],
  );
  const ids = r.recent_private_conversations.map((c: any) => c.max_message_id);
  assert.deepEqual(ids, [...ids].sort((a: number, b: number) => b - a));
});

test('reminders add and remove; delivery removes it and sends the bot message', async () => {
  const rita = await s.user('Rita Reminder');
  const id = await send(kim, { type: 'stream', to: 'general', topic: 'remind', content: 'later' });
  let rid = 0;
  await checkConsistency(rita, async () => (rid = (await rita.ok('POST', 'reminders', { message_id: id, scheduled_delivery_timestamp: Math.floor(Date.now() / 1000) + 3600, note: 'n' })).reminder_id), { expect: ['reminders'] });
  await checkConsistency(rita, () => rita.ok('DELETE', `reminders/${rid}`), { expect: ['reminders'] });
});

test('presence: coming online, in the modern and the legacy forms', async () => {
  const pia = await s.user('Pia Present');
  const modern = { slim_presence: true, client_capabilities: { ...DEFAULT_REGISTER.client_capabilities as object, simplified_presence_events: true } };
  await checkConsistency(kim, () => pia.ok('POST', 'users/me/presence', { status: 'idle', ping_only: true }), { register: modern, expect: ['presence'] });
  const quinn = await s.user('Quinn Present');
  await checkConsistency(kim, () => quinn.ok('POST', 'users/me/presence', { status: 'active' }), { register: LEGACY, expect: ['presence'] });
  // Idle, then active: becoming active is news too.
  await checkConsistency(kim, () => pia.ok('POST', 'users/me/presence', { status: 'active' }), { register: modern, expect: ['presence'] });
});

test('realm_emoji add and deactivation, individual and legacy forms; realm_linkifiers', async () => {
  const png = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da6364f8cf00000301010018dd8db40000000049454e44ae426082', 'hex');
  const upload = (name: string) => uploadEmoji(s.owner, name, png);
  const individual = { client_capabilities: { ...DEFAULT_REGISTER.client_capabilities as object, individual_emoji_changes: true } };
  await checkConsistency(lee, () => upload('cons_one'), { register: individual, expect: ['realm_emoji'] });
  await checkConsistency(lee, () => upload('cons_two'), { expect: ['realm_emoji'] });
  await checkConsistency(lee, () => s.owner.ok('DELETE', 'realm/emoji/cons_one'), { register: individual, expect: ['realm_emoji'] });
  await checkConsistency(lee, () => s.owner.ok('DELETE', 'realm/emoji/cons_two'), { expect: ['realm_emoji'] });
  const templates = { client_capabilities: { ...DEFAULT_REGISTER.client_capabilities as object, linkifier_url_template: true } };
  let lid = 0;
  await checkConsistency(lee, async () => (lid = (await s.owner.ok('POST', 'realm/filters', { pattern: '#(?P<id>[0-9]+)', url_template: 'https://example.com/issues/{id}' })).id), { register: templates, expect: ['realm_linkifiers'] });
  const events = await checkConsistency(lee, () => s.owner.ok('DELETE', `realm/filters/${lid}`));
  assert.deepEqual(events, [], 'no realm_linkifiers events without linkifier_url_template');
});

test('user_topic and muted_topics: policies, the legacy list, and the unread total', async () => {
  const ut = await s.user('Ut Muter');
  const room = await newChannel(s, 'cons-topics', { subscribers: [ut, kim] });
  await send(kim, { type: 'stream', to: 'cons-topics', topic: 'noisy', content: 'unread' });
  await send(kim, { type: 'stream', to: 'cons-topics', topic: '', content: 'unread too' });
  await checkConsistency(ut, () => ut.ok('POST', 'user_topics', { stream_id: room.id, topic: 'Noisy', visibility_policy: 1 }), { expect: ['user_topic'] });
  await checkConsistency(ut, () => ut.ok('POST', 'user_topics', { stream_id: room.id, topic: '', visibility_policy: 1 }), { register: LEGACY, expect: ['user_topic', 'muted_topics'] });
  await checkConsistency(ut, () => ut.ok('POST', 'user_topics', { stream_id: room.id, topic: 'noisy', visibility_policy: 3 }), { expect: ['user_topic'] });
  await checkConsistency(ut, () => ut.ok('PATCH', 'users/me/subscriptions/muted_topics', { stream_id: room.id, topic: 'general chat', op: 'remove' }), {
    register: LEGACY,
    expect: ['muted_topics'],
  });
});

test('user_group: create, update, members, subgroups, deactivate and reactivate, modern and legacy', async () => {
  const legacyGroups = { client_capabilities: { include_deactivated_groups: false } };
  let id = 0;
  let inner = 0;
  await checkConsistency(lee, async () => {
    id = (await kim.ok('POST', 'user_groups/create', { name: 'cons group', description: 'd', members: [kim.userId] })).group_id;
    inner = (await kim.ok('POST', 'user_groups/create', { name: 'cons inner', description: '', members: [] })).group_id;
  }, { expect: ['user_group'] });
  const ops = async (fn: () => Promise<unknown>) => {
    for (const register of [{}, legacyGroups]) await checkConsistency(lee, fn, { register, expect: ['user_group'] });
  };
  let n = 0;
  await ops(() => kim.ok('PATCH', `user_groups/${id}`, { name: `cons renamed ${++n}`, description: `words ${n}`, can_mention_group: { new: { direct_members: [lee.userId], direct_subgroups: [n === 1 ? inner : id] } } }));
  await ops(async () => {
    await kim.ok('POST', `user_groups/${id}/members`, { add: [lee.userId, max.userId], add_subgroups: [inner] });
    await kim.ok('POST', `user_groups/${id}/members`, { delete: [lee.userId, max.userId], delete_subgroups: [inner] });
  });
  const target = (await kim.ok('POST', 'user_groups/create', { name: 'cons target', description: '', members: [] })).group_id;
  const target2 = (await kim.ok('POST', 'user_groups/create', { name: 'cons target 2', description: '', members: [] })).group_id;
  await checkConsistency(lee, () => kim.ok('POST', `user_groups/${target}/deactivate`), { expect: ['user_group'] });
  await checkConsistency(lee, () => kim.ok('POST', `user_groups/${target2}/deactivate`), { register: legacyGroups, expect: ['user_group'] });
  await checkConsistency(lee, () => kim.ok('PATCH', `user_groups/${target}`, { deactivated: false }), { expect: ['user_group'] });
  await checkConsistency(lee, () => kim.ok('PATCH', `user_groups/${target2}`, { deactivated: false }), { register: legacyGroups, expect: ['user_group'] });
});

test('has_videoprovider_token: authorizing and revoking the video-call provider', async () => {
  // The built-in provider needs only a configured base URL (read on each request).
  Object.assign(s.running.app.config, { videoProvider: 'meeting-url', videoBaseUrl: 'https://meet.example.org' });
  await checkConsistency(kim, () => kim.ok('POST', 'calls/videoprovider/authorize'), { expect: ['has_videoprovider_token'] });
  await checkConsistency(kim, () => kim.ok('DELETE', 'calls/videoprovider/authorize'), { expect: ['has_videoprovider_token'] });
});

test('realm_bot update/delete/remove and realm_user bot-owner and deactivation forms', async () => {
  const boss = await s.user('Bo Botowner');
  const heir = await s.user('He Heir');
  const { user_id: bot } = await boss.ok('POST', 'bots', { full_name: 'Cons Admin Bot', short_name: 'consadmin' });
  await checkConsistency(boss, () => boss.ok('PATCH', `bots/${bot}`, { default_sending_stream: 'general', default_all_public_streams: true }), { expect: ['realm_bot'] });
  await checkConsistency(kim, () => boss.ok('PATCH', `bots/${bot}`, { full_name: 'Cons Renamed Bot' }), { expect: ['realm_user'] });
  await checkConsistency(boss, () => boss.ok('PATCH', `bots/${bot}`, { bot_owner_id: heir.userId }), { expect: ['realm_bot', 'realm_user'] });
  await checkConsistency(heir, () => heir.ok('PATCH', `bots/${bot}`, { bot_owner_id: boss.userId }), { expect: ['realm_bot', 'realm_user'] });
  await checkConsistency(boss, () => boss.ok('DELETE', `bots/${bot}`), { expect: ['realm_bot', 'realm_user'] });
});

test('realm_user email visibility: dummy API email, delivery email and third-party avatars', async () => {
  const vis = await s.user('Vi Sibility');
  const gravatar = { client_gravatar: true };
  await checkConsistency(lee, () => vis.ok('PATCH', 'settings', { email_address_visibility: 2 }), { register: gravatar, expect: ['realm_user'] });
  // Between hidden levels the user's own view changes only in settings.
  await checkConsistency(vis, () => vis.ok('PATCH', 'settings', { email_address_visibility: 4 }), { register: gravatar, expect: ['user_settings'] });
  await checkConsistency(lee, () => vis.ok('PATCH', 'settings', { email_address_visibility: 5 }), { register: gravatar });
  await checkConsistency(vis, () => vis.ok('PATCH', 'settings', { email_address_visibility: 1 }), { register: gravatar, expect: ['realm_user'] });
  await checkConsistency(lee, () => vis.ok('PATCH', 'settings', { email_address_visibility: 3 }), { expect: ['realm_user'] });
  await checkConsistency(lee, () => vis.ok('PATCH', 'settings', { email_address_visibility: 1 }), { register: gravatar, expect: ['realm_user'] });
});

test('user administration: role, name, profile fields, deactivation with actions, reactivation, first login', async () => {
  const watcher = await s.user('Una Watcher');
  const target = await s.user('Tess Target');
  await newChannel(s, 'cons-admin', { subscribers: [watcher, target] });
  await send(target, { type: 'stream', to: 'cons-admin', topic: 'bye', content: 'soon gone' });
  // Deleting the newest message would lower max_message_id, which no event conveys: keep a later one.
  await send(watcher, { type: 'stream', to: 'cons-admin', topic: 'bye', content: 'stays' });
  await checkConsistency(watcher, () => s.owner.ok('PATCH', `users/${target.userId}`, { role: 200, full_name: 'Tess Admin' }), { expect: ['realm_user', 'user_group'] });
  await checkConsistency(target, () => s.owner.ok('PATCH', `users/${target.userId}`, { role: 300 }), { expect: ['realm_user', 'realm_bot'] });
  await checkConsistency(target, () => s.owner.ok('PATCH', `users/${target.userId}`, { role: 400 }), { register: LEGACY, expect: ['realm_user'] });
  // A guest is told of no default channels: becoming one, and ceasing to be one, changes the list.
  await checkConsistency(target, () => s.owner.ok('PATCH', `users/${target.userId}`, { role: 600 }), { expect: ['realm_user', 'default_streams'] });
  await checkConsistency(target, () => s.owner.ok('PATCH', `users/${target.userId}`, { role: 400 }), { expect: ['realm_user', 'default_streams'] });
  let field = 0;
  await checkConsistency(watcher, async () => (field = (await s.owner.ok('POST', 'realm/profile_fields', { name: 'Cons Field', field_type: 1 })).id), { expect: ['custom_profile_fields'] });
  await checkConsistency(watcher, () => s.owner.ok('PATCH', `users/${target.userId}`, { profile_data: [{ id: field, value: '*bold*' }] }), { expect: ['realm_user'] });
  await checkConsistency(watcher, () => s.owner.ok('PATCH', `users/${target.userId}`, { profile_data: [{ id: field, value: null }] }), { expect: ['realm_user'] });
  await target.ok('POST', 'bots', { full_name: 'Tess Bot', short_name: 'tessbot' });
  await checkConsistency(watcher, () => s.owner.ok('DELETE', `users/${target.userId}`, { actions: { delete_profile: true, delete_public_channel_messages: true } }), {
    expect: ['realm_user', 'subscription', 'delete_message'],
  });
  await checkConsistency(watcher, () => s.owner.ok('POST', `users/${target.userId}/reactivate`), { expect: ['realm_user', 'user_group', 'subscription'] });
  await grantCanCreateUsers(s, s.owner.userId);
  const created = await s.owner.ok('POST', 'users', { email: 'first.login@example.com', password: 'first-password', full_name: 'First Login' });
  assert.ok(created.user_id);
  await checkConsistency(watcher, () => s.owner.ok('POST', 'fetch_api_key', { username: 'first.login@example.com', password: 'first-password' }, { auth: null }), { expect: ['realm_user'] });
});

test('realm_user avatar form: upload and delete, seen by the user and by others, with and without client_gravatar', async () => {
  const ava = await s.user('Ava Consistent');
  const image = await sharp({ create: { width: 40, height: 30, channels: 3, background: { r: 10, g: 120, b: 200 } } }).png().toBuffer();
  await checkConsistency(ava, () => uploadAvatar(ava, image), { expect: ['realm_user'] });
  await checkConsistency(kim, () => uploadAvatar(ava, image), { register: { client_gravatar: true }, expect: ['realm_user'] });
  await checkConsistency(kim, () => ava.ok('DELETE', 'users/me/avatar'), { register: { client_gravatar: true }, expect: ['realm_user'] });
  await checkConsistency(ava, () => uploadAvatar(ava, image), { register: LEGACY, expect: ['realm_user'] });
  await checkConsistency(ava, () => ava.ok('DELETE', 'users/me/avatar'), { expect: ['realm_user'] });
});

test('realm_export: an export requested, written and deleted (administrators get the list each time)', async () => {
  const waitDone = async () => {
    for (let i = 0; i < 400; i++) {
      const list = (await s.owner.ok('GET', 'export/realm')).exports as any[];
      if (list.every((e) => !e.pending)) return list;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error('the export did not finish');
  };
  let id = 0;
  const events = await checkConsistency(s.owner, async () => {
    id = (await s.owner.ok('POST', 'export/realm', { export_type: 'public' })).id;
    await waitDone();
  }, { expect: ['realm_export'] });
  assert.deepEqual(events.filter((e) => e.type === 'realm_export').map((e) => e.exports.find((x: any) => x.id === id)?.pending), [true, false]);
  await checkConsistency(s.owner, () => s.owner.ok('DELETE', `export/realm/${id}`), { expect: ['realm_export'] });
});

test('every event type has an events-consistency case', () => {
  const elsewhere = typesCoveredInOtherFiles();
  const missing = EVENT_TYPES.filter((t) => !coveredEventTypes.has(t) && !elsewhere.has(t));
  assert.deepEqual(missing, [], `event types without a consistency test: ${missing.join(', ')}`);
});

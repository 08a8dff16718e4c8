// Events-consistency for every event type: register state + events = a fresh register.
// The last test fails when an event type in src/events/types.ts has no consistency case here.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type Client, type TestServer } from './helpers/server.js';
import { newChannel } from './helpers/messages.js';
import { checkConsistency, coveredEventTypes, DEFAULT_REGISTER } from './helpers/events.js';
import { applyEvents } from '../src/events/apply.js';
import { EVENT_TYPES } from '../src/events/types.js';
import { changeEmail, RenamableClient } from './helpers/settings.js';

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
  for (const k of ['queue_id', 'last_event_id']) {
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

test('every event type has an events-consistency case', () => {
  const missing = EVENT_TYPES.filter((t) => !coveredEventTypes.has(t));
  assert.deepEqual(missing, [], `event types without a consistency test: ${missing.join(', ')}`);
});

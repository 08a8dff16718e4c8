// A user's channel settings (POST /users/me/subscriptions/properties, PATCH /users/me/subscriptions/{id}),
// their events and the unread total of muted channels; leaving a channel marks its unread messages read.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type Client, type TestServer } from './helpers/server.js';
import { newChannel } from './helpers/messages.js';
import { checkConsistency, DEFAULT_REGISTER, MODERN_CAPABILITIES } from './helpers/events.js';

let s: TestServer;
let pat: Client;
let quin: Client;
let gus: Client;
let room = 0;
let secret = 0;

const sub = async (c: Client, id: number) => ((await c.ok('GET', 'users/me/subscriptions')).subscriptions as any[]).find((x) => x.stream_id === id);

before(async () => {
  s = await startTestServer();
  pat = await s.user('Pat Prefs');
  quin = await s.user('Quin Other');
  gus = await s.user('Gus Guest', 600);
  room = (await newChannel(s, 'prefs-room', { subscribers: [pat, quin] })).id;
  secret = (await newChannel(s, 'prefs-secret', { inviteOnly: true, subscribers: [quin] })).id;
});
after(async () => {
  await s.close();
});

test('every property, in bulk; the events go to the user only; muting sends in_home_view then is_muted', async () => {
  const reg = await pat.ok('POST', 'register', { event_types: ['subscription'] });
  const other = await quin.ok('POST', 'register', { event_types: ['subscription'] });
  await pat.ok('POST', 'users/me/subscriptions/properties', {
    subscription_data: [
      { stream_id: room, property: 'color', value: '#ff00aa' },
      { stream_id: room, property: 'pin_to_top', value: true },
      { stream_id: room, property: 'is_muted', value: true },
      { stream_id: room, property: 'desktop_notifications', value: true },
      { stream_id: room, property: 'audible_notifications', value: false },
      { stream_id: room, property: 'push_notifications', value: true },
      { stream_id: room, property: 'email_notifications', value: false },
      { stream_id: room, property: 'wildcard_mentions_notify', value: true },
    ],
  });
  const mine = await sub(pat, room);
  assert.deepEqual(
    [mine.color, mine.pin_to_top, mine.is_muted, mine.in_home_view, mine.desktop_notifications, mine.audible_notifications, mine.push_notifications, mine.email_notifications, mine.wildcard_mentions_notify],
    ['#ff00aa', true, true, false, true, false, true, false, true],
  );
  const events = (await pat.ok('GET', 'events', { queue_id: reg.queue_id, last_event_id: -1, dont_block: true })).events.filter((e: any) => e.type !== 'heartbeat');
  assert.deepEqual(
    events.map((e: any) => [e.op, e.stream_id, e.property, e.value]),
    [
      ['update', room, 'color', '#ff00aa'],
      ['update', room, 'pin_to_top', true],
      ['update', room, 'in_home_view', false],
      ['update', room, 'is_muted', true],
      ['update', room, 'desktop_notifications', true],
      ['update', room, 'audible_notifications', false],
      ['update', room, 'push_notifications', true],
      ['update', room, 'email_notifications', false],
      ['update', room, 'wildcard_mentions_notify', true],
    ],
  );
  const others = (await quin.ok('GET', 'events', { queue_id: other.queue_id, last_event_id: -1, dont_block: true })).events.filter((e: any) => e.type !== 'heartbeat');
  assert.deepEqual(others, []);
  // The legacy spelling, and a change to the current value (no event).
  await pat.ok('POST', 'users/me/subscriptions/properties', { subscription_data: [{ stream_id: room, property: 'in_home_view', value: true }] }, { as: 'multipart' });
  assert.equal((await sub(pat, room)).is_muted, false);
  await pat.ok('POST', 'users/me/subscriptions/properties', { subscription_data: [{ stream_id: room, property: 'pin_to_top', value: true }] });
  const later = (await pat.ok('GET', 'events', { queue_id: reg.queue_id, last_event_id: events[events.length - 1].id, dont_block: true })).events.filter((e: any) => e.type !== 'heartbeat');
  assert.deepEqual(
    later.map((e: any) => [e.property, e.value]),
    [
      ['in_home_view', true],
      ['is_muted', false],
    ],
  );
});

test('the single-channel form PATCH /users/me/subscriptions/{stream_id}', async () => {
  await pat.ok('PATCH', `users/me/subscriptions/${room}`, { property: 'color', value: '#123456' });
  await pat.ok('PATCH', `users/me/subscriptions/${room}`, { property: 'is_muted', value: 'true' }, { as: 'query' });
  const mine = await sub(pat, room);
  assert.deepEqual([mine.color, mine.is_muted], ['#123456', true]);
  await pat.ok('PATCH', `users/me/subscriptions/${room}`, { property: 'is_muted', value: false });
  const r = await pat.patch(`users/me/subscriptions/${room}`, { property: 'bogus', value: true });
  assert.deepEqual([r.status, r.body.msg], [400, 'Unknown subscription property: bogus']);
});

test('errors: validation, unknown or invisible channels, not subscribed, another organization; nothing half-applied', async () => {
  const bad = async (data: unknown, msg: string, c: Client = pat) => {
    const r = await c.post('users/me/subscriptions/properties', { subscription_data: data as object });
    assert.deepEqual([r.status, r.body.result, r.body.code, r.body.msg], [400, 'error', 'BAD_REQUEST', msg]);
  };
  const missing = await pat.post('users/me/subscriptions/properties', {});
  assert.deepEqual([missing.status, missing.body.code, missing.body.msg], [400, 'REQUEST_VARIABLE_MISSING', "Missing 'subscription_data' argument"]);
  await bad({}, 'subscription_data is not a list');
  await bad([{ stream_id: room, property: 'color' }], 'value key is missing from subscription_data[0]');
  await bad([{ stream_id: 'x', property: 'color', value: '#fff' }], 'subscription_data[0]["stream_id"] is not an integer');
  await bad([{ stream_id: room, property: 'colour', value: '#fff' }], 'Unknown subscription property: colour');
  await bad([{ stream_id: room, property: 'color', value: 'red' }], 'color is not a valid hex color code');
  await bad([{ stream_id: room, property: 'color', value: true }], 'color is not a valid hex color code');
  await bad([{ stream_id: room, property: 'is_muted', value: 'yes' }], 'is_muted is not a boolean');
  await bad([{ stream_id: 999999, property: 'pin_to_top', value: true }], 'Invalid channel ID');
  // A private channel the user cannot see looks like a missing one; a visible one they left is "not subscribed".
  await bad([{ stream_id: secret, property: 'pin_to_top', value: true }], 'Invalid channel ID');
  await bad([{ stream_id: secret, property: 'pin_to_top', value: true }], 'Invalid channel ID', gus);
  const open = (await newChannel(s, 'prefs-public', { subscribers: [quin] })).id;
  await bad([{ stream_id: open, property: 'pin_to_top', value: true }], `Not subscribed to channel ID ${open}`);
  // The first change is valid, the second not: neither is applied.
  await bad(
    [
      { stream_id: room, property: 'color', value: '#abcdef' },
      { stream_id: room, property: 'pin_to_top', value: 3 },
    ],
    'subscription_data[1]["value"] is not an allowed_type',
  );
  assert.notEqual((await sub(pat, room)).color, '#abcdef');
  const { owner: other } = await s.realm2('proporg');
  const r = await other.post('users/me/subscriptions/properties', { subscription_data: [{ stream_id: room, property: 'pin_to_top', value: true }] });
  assert.deepEqual([r.status, r.body.msg], [400, 'Invalid channel ID']);
});

test('muting a channel takes its unread messages out of the unread total, consistently with events', async () => {
  await quin.ok('POST', 'messages', { type: 'stream', to: 'prefs-room', topic: 'a', content: 'one' });
  await quin.ok('POST', 'messages', { type: 'stream', to: 'prefs-room', topic: 'b', content: 'two' });
  const count = async () => (await pat.ok('POST', 'register', { fetch_event_types: ['message', 'update_message_flags', 'subscription'] })).unread_msgs.count as number;
  const before = await count();
  const mute = (v: boolean) => pat.ok('POST', 'users/me/subscriptions/properties', { subscription_data: [{ stream_id: room, property: 'is_muted', value: v }] });
  await checkConsistency(pat, () => mute(true), { expect: ['subscription'] });
  assert.equal(await count(), before - 2);
  // The legacy clients (no notification_settings_null) and the single-channel form.
  const legacy = { client_capabilities: { ...MODERN_CAPABILITIES, notification_settings_null: false } };
  await checkConsistency(pat, () => pat.ok('PATCH', `users/me/subscriptions/${room}`, { property: 'in_home_view', value: true }), { register: legacy, expect: ['subscription'] });
  assert.equal(await count(), before);
  await checkConsistency(pat, () => pat.ok('PATCH', `users/me/subscriptions/${room}`, { property: 'push_notifications', value: false }), { register: legacy, expect: ['subscription'] });
  await checkConsistency(pat, () => pat.ok('PATCH', `users/me/subscriptions/${room}`, { property: 'color', value: '#00ff00' }), { register: DEFAULT_REGISTER, expect: ['subscription'] });
});

test("leaving a channel marks its unread messages read for the leaver only, with an update_message_flags event", async () => {
  const leave = (await newChannel(s, 'prefs-leave', { subscribers: [pat, quin] })).id;
  const ids: number[] = [];
  for (const t of ['x', 'y']) ids.push((await quin.ok('POST', 'messages', { type: 'stream', to: 'prefs-leave', topic: t, content: 'unread for pat' })).id);
  const qReg = await quin.ok('POST', 'register', { event_types: ['update_message_flags'] });
  const events = await checkConsistency(pat, () => pat.ok('DELETE', 'users/me/subscriptions', { subscriptions: ['prefs-leave'] }), { expect: ['subscription', 'update_message_flags'] });
  const flagsEv = events.find((e) => e.type === 'update_message_flags');
  assert.deepEqual([flagsEv.op, flagsEv.flag, flagsEv.messages, flagsEv.all], ['add', 'read', ids, false]);
  const msgs = (await pat.ok('GET', 'messages', { anchor: 'newest', num_before: 5, num_after: 0, narrow: [{ operator: 'channel', operand: leave }] })).messages as any[];
  for (const id of ids) assert.ok(msgs.find((m) => m.id === id).flags.includes('read'));
  const quinEvents = (await quin.ok('GET', 'events', { queue_id: qReg.queue_id, last_event_id: -1, dont_block: true })).events.filter((e: any) => e.type !== 'heartbeat');
  assert.deepEqual(quinEvents, []);
  // Leaving with nothing unread sends no flags event; an administrator removing someone marks theirs.
  await s.owner.ok('POST', 'users/me/subscriptions', { subscriptions: [{ name: 'prefs-leave' }], principals: [pat.userId] });
  await quin.ok('POST', 'messages', { type: 'stream', to: 'prefs-leave', topic: 'z', content: 'again' });
  const removed = await checkConsistency(pat, () => s.owner.ok('DELETE', 'users/me/subscriptions', { subscriptions: ['prefs-leave'], principals: [pat.userId] }), {
    expect: ['update_message_flags'],
  });
  assert.equal(removed.filter((e) => e.type === 'update_message_flags').length, 1);
  await s.owner.ok('POST', 'users/me/subscriptions', { subscriptions: [{ name: 'prefs-leave' }], principals: [pat.userId] });
  const quiet = await checkConsistency(pat, () => pat.ok('DELETE', 'users/me/subscriptions', { subscriptions: ['prefs-leave'] }), { expect: ['subscription'] });
  assert.equal(quiet.filter((e) => e.type === 'update_message_flags').length, 0);
});

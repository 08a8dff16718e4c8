// DELETE /users/me/subscriptions: removing oneself and others, permissions, errors, and events.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer, type Client } from './helpers/server.js';
import { checkConsistency, drainEvents } from './helpers/events.js';

let s: TestServer;
let alice: Client;
let bob: Client;
before(async () => {
  s = await startTestServer();
  alice = await s.user('Alice Rm');
  bob = await s.user('Bob Rm');
  await alice.ok('POST', 'users/me/subscriptions', { subscriptions: [{ name: 'lounge' }, { name: 'cellar' }], principals: [alice.userId, bob.userId] });
});
after(async () => {
  await s.close();
});

test('a user leaves a channel; leaving again is not_removed', async () => {
  const r = await bob.ok('DELETE', 'users/me/subscriptions', { subscriptions: ['lounge'] });
  assert.deepEqual(r.removed, ['lounge']);
  assert.deepEqual(r.not_removed, []);
  const again = await bob.ok('DELETE', 'users/me/subscriptions', { subscriptions: ['lounge'] }, { as: 'query' });
  assert.deepEqual(again.removed, []);
  assert.deepEqual(again.not_removed, ['lounge']);
  const reg = await bob.ok('POST', 'register', { event_types: ['subscription'] });
  assert.ok(reg.unsubscribed.some((x: any) => x.name === 'lounge'));
  assert.ok(!reg.subscriptions.some((x: any) => x.name === 'lounge'));
});

test('unknown channel is STREAM_DOES_NOT_EXIST with the stream field', async () => {
  const r = await bob.delete('users/me/subscriptions', { subscriptions: ['nowhere'] });
  assert.equal(r.status, 400);
  assert.equal(r.body.code, 'STREAM_DOES_NOT_EXIST');
  assert.equal(r.body.msg, "Channel 'nowhere' does not exist");
  assert.equal(r.body.stream, 'nowhere');
  const missing = await bob.delete('users/me/subscriptions', {});
  assert.equal(missing.body.code, 'REQUEST_VARIABLE_MISSING');
});

test('bad principals are 400 BAD_REQUEST', async () => {
  const r = await s.owner.delete('users/me/subscriptions', { subscriptions: ['cellar'], principals: [424242] });
  assert.equal(r.status, 400);
  assert.equal(r.body.code, 'BAD_REQUEST');
  const gone = await s.user('Gone Rm');
  await s.running.app.store.db.updateTable('users').set({ is_active: 0 }).where('id', '=', gone.userId).execute();
  const d = await s.owner.delete('users/me/subscriptions', { subscriptions: ['cellar'], principals: [gone.email] });
  assert.equal(d.status, 400);
  assert.equal(d.body.code, 'BAD_REQUEST');
});

test('members cannot remove others; administrators can', async () => {
  const r = await bob.delete('users/me/subscriptions', { subscriptions: ['cellar'], principals: [alice.userId] });
  assert.equal(r.status, 400);
  assert.equal(r.body.msg, 'Insufficient permission');
  const carl = await s.user('Carl Rm');
  await s.owner.ok('POST', 'users/me/subscriptions', { subscriptions: [{ name: 'cellar' }], principals: [carl.userId] });
  const ok = await s.owner.ok('DELETE', 'users/me/subscriptions', { subscriptions: ['cellar'], principals: [carl.userId] }, { as: 'multipart' });
  assert.deepEqual(ok.removed, ['cellar']);
});

test('bot owners may remove their bots; can_remove_subscribers_group members may remove others', async () => {
  const bot = await alice.ok('POST', 'bots', { full_name: 'Helper Bot', short_name: 'helper' });
  await alice.ok('POST', 'users/me/subscriptions', { subscriptions: [{ name: 'cellar' }], principals: [bot.user_id] });
  const r = await alice.ok('DELETE', 'users/me/subscriptions', { subscriptions: ['cellar'], principals: [bot.user_id] });
  assert.deepEqual(r.removed, ['cellar']);
  await alice.ok('POST', 'users/me/subscriptions', { subscriptions: [{ name: 'moderated' }], principals: [alice.userId, bob.userId], can_remove_subscribers_group: { direct_members: [bob.userId], direct_subgroups: [] } });
  const byBob = await bob.ok('DELETE', 'users/me/subscriptions', { subscriptions: ['moderated'], principals: [alice.userId] });
  assert.deepEqual(byBob.removed, ['moderated']);
});

test('private channels the caller cannot see look nonexistent', async () => {
  await alice.ok('POST', 'users/me/subscriptions', { subscriptions: [{ name: 'hush' }], invite_only: true });
  const r = await bob.delete('users/me/subscriptions', { subscriptions: ['hush'] });
  assert.equal(r.body.code, 'STREAM_DOES_NOT_EXIST');
  const other = await s.realm2('rmorg');
  const x = await other.owner.delete('users/me/subscriptions', { subscriptions: ['lounge'] });
  assert.equal(x.body.code, 'STREAM_DOES_NOT_EXIST');
});

test('events: remove, peer_remove and stream delete keep state consistent', async () => {
  const dora = await s.user('Dora Rm');
  await alice.ok('POST', 'users/me/subscriptions', { subscriptions: [{ name: 'ev-rm' }], principals: [alice.userId, bob.userId, dora.userId] });
  // The leaver's own queue.
  const own = await checkConsistency(dora, () => dora.ok('DELETE', 'users/me/subscriptions', { subscriptions: ['ev-rm'] }), { expect: ['subscription'] });
  assert.deepEqual(own.find((e) => e.op === 'remove').subscriptions, [{ name: 'ev-rm', stream_id: own.find((e) => e.op === 'remove').subscriptions[0].stream_id }]);
  // An observer sees peer_remove.
  const seen = await checkConsistency(alice, () => s.owner.ok('DELETE', 'users/me/subscriptions', { subscriptions: ['ev-rm'], principals: [bob.userId] }));
  assert.ok(seen.some((e) => e.op === 'peer_remove' && e.user_ids[0] === bob.userId));
  // Two removed together, seen by one of them.
  await alice.ok('POST', 'users/me/subscriptions', { subscriptions: [{ name: 'ev-rm' }], principals: [bob.userId, dora.userId] });
  await checkConsistency(dora, () => s.owner.ok('DELETE', 'users/me/subscriptions', { subscriptions: ['ev-rm'], principals: [bob.userId, dora.userId] }));
  // Leaving a private channel hides it (stream delete).
  await alice.ok('POST', 'users/me/subscriptions', { subscriptions: [{ name: 'ev-private' }], principals: [alice.userId, dora.userId], invite_only: true });
  const priv = await checkConsistency(dora, () => dora.ok('DELETE', 'users/me/subscriptions', { subscriptions: ['ev-private'] }), { expect: ['stream'] });
  assert.ok(priv.some((e) => e.type === 'stream' && e.op === 'delete'));
  // The administrator observes the private channel's peer_remove.
  await alice.ok('POST', 'users/me/subscriptions', { subscriptions: [{ name: 'ev-private' }], principals: [dora.userId] });
  await checkConsistency(s.owner, () => dora.ok('DELETE', 'users/me/subscriptions', { subscriptions: ['ev-private'] }), { expect: ['subscription'] });
});

test('a second user’s queue gets peer_remove', async () => {
  const eve = await s.user('Eve Rm');
  const reg = await eve.ok('POST', 'register', { event_types: ['subscription'] });
  await alice.ok('DELETE', 'users/me/subscriptions', { subscriptions: ['lounge'] });
  const events = await drainEvents(eve, reg.queue_id);
  const pr = events.find((e) => e.op === 'peer_remove');
  assert.deepEqual(pr.user_ids, [alice.userId]);
});

test('guests and non-subscribers: leaving oneself works, removing others does not', async () => {
  const gia = await s.user('Gia Guest Rm', 600);
  const hal = await s.user('Hal Member Rm');
  await s.owner.ok('POST', 'users/me/subscriptions', { subscriptions: [{ name: 'guest-room' }], principals: [gia.userId, hal.userId] });
  const g = await gia.delete('users/me/subscriptions', { subscriptions: ['guest-room'], principals: [hal.userId] });
  assert.equal(g.status, 400);
  assert.equal(g.body.msg, 'Insufficient permission');
  assert.deepEqual((await gia.ok('DELETE', 'users/me/subscriptions', { subscriptions: ['guest-room'] }, { as: 'query' })).removed, ['guest-room']);
  // Once out, a guest cannot see the public channel at all.
  assert.equal((await gia.delete('users/me/subscriptions', { subscriptions: ['guest-room'] })).body.code, 'STREAM_DOES_NOT_EXIST');
  // A member who was never subscribed gets not_removed.
  const ivy = await s.user('Ivy Never Rm');
  const r = await ivy.ok('DELETE', 'users/me/subscriptions', { subscriptions: ['guest-room'] }, { as: 'multipart' });
  assert.deepEqual([r.removed, r.not_removed], [[], ['guest-room']]);
});

test('can_remove_subscribers_group needs access to the channel; principals of another organization do not exist', async () => {
  const jo = await s.user('Jo Group Rm');
  const kay = await s.user('Kay Target Rm');
  await s.owner.ok('POST', 'users/me/subscriptions', {
    subscriptions: [{ name: 'locked-rm' }],
    principals: [kay.userId],
    invite_only: true,
    can_remove_subscribers_group: { direct_members: [jo.userId], direct_subgroups: [] },
  });
  const r = await jo.delete('users/me/subscriptions', { subscriptions: ['locked-rm'], principals: [kay.userId] });
  assert.equal(r.body.code, 'STREAM_DOES_NOT_EXIST');
  await s.owner.ok('POST', 'users/me/subscriptions', { subscriptions: [{ name: 'locked-rm' }], principals: [jo.userId] });
  assert.deepEqual((await jo.ok('DELETE', 'users/me/subscriptions', { subscriptions: ['locked-rm'], principals: [kay.email] })).removed, ['locked-rm']);
  const other = await s.realm2('rmorg2');
  const x = await s.owner.delete('users/me/subscriptions', { subscriptions: ['lounge'], principals: [other.owner.userId] });
  assert.equal(x.status, 400);
  assert.equal(x.body.code, 'BAD_REQUEST');
});

test('events go to exactly the right users: remove to the removed, peer_remove to those who see subscribers', async () => {
  const lia = await s.user('Lia Leaving Rm');
  const mae = await s.user('Mae Staying Rm');
  const nia = await s.user('Nia Outsider Rm');
  const gus = await s.user('Gus Guest Outsider Rm', 600);
  await s.owner.ok('POST', 'users/me/subscriptions', { subscriptions: [{ name: 'exact-rm' }], principals: [lia.userId, mae.userId], invite_only: true });
  const queues = new Map<Client, string>();
  for (const c of [lia, mae, nia, gus, s.owner]) queues.set(c, (await c.ok('POST', 'register', { event_types: ['subscription', 'stream'] })).queue_id);
  await s.owner.ok('DELETE', 'users/me/subscriptions', { subscriptions: ['exact-rm'], principals: [lia.userId] });
  const got = async (c: Client) => (await drainEvents(c, queues.get(c)!)).filter((e) => e.type !== 'heartbeat').map((e) => `${e.type}:${e.op}`);
  assert.deepEqual(await got(lia), ['subscription:remove', 'stream:delete']);
  assert.deepEqual(await got(mae), ['subscription:peer_remove']);
  assert.deepEqual(await got(s.owner), ['subscription:peer_remove']);
  assert.deepEqual(await got(nia), []);
  assert.deepEqual(await got(gus), []);
});

// Regressions the permission fuzz found: answers that named data the caller may not see.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type Client, type TestServer } from './helpers/server.js';

let s: TestServer;
let member: Client;
let guest: Client;
let secretId: number;

before(async () => {
  s = await startTestServer();
  member = await s.user('Mona Member');
  guest = await s.user('Gert Guest', 600);
  await s.owner.ok('POST', 'users/me/subscriptions', { subscriptions: [{ name: 'hushhush' }], invite_only: true });
  secretId = (await s.owner.ok('GET', 'get_stream_id', { stream: 'hushhush' })).stream_id as number;
});
after(async () => {
  await s.close();
});

test('sending to a private channel by ID one may not see: the answer for no such channel, not its name', async () => {
  for (const c of [member, guest]) {
    const r = await c.post('messages', { type: 'stream', to: secretId, topic: 't', content: 'x' });
    assert.equal(r.status, 400);
    assert.equal(r.body.code, 'STREAM_DOES_NOT_EXIST');
    assert.equal(r.body.msg, `Channel with ID '${secretId}' does not exist`);
    assert.doesNotMatch(JSON.stringify(r.body), /hushhush/);
  }
  // Named by name, the caller knows the name: the original's refusal.
  const byName = await member.post('messages', { type: 'stream', to: 'hushhush', topic: 't', content: 'x' });
  assert.equal(byName.body.msg, "Not authorized to send to channel 'hushhush'");
  // Scheduling a message there by ID: the same.
  const later = Math.floor(Date.now() / 1000) + 3600;
  const scheduled = await member.post('scheduled_messages', { type: 'stream', to: secretId, topic: 't', content: 'x', scheduled_delivery_timestamp: later });
  assert.equal(scheduled.body.code, 'STREAM_DOES_NOT_EXIST');
  assert.doesNotMatch(JSON.stringify(scheduled.body), /hushhush/);
  // Moving one's own message there by ID: the answer for an unknown channel.
  const mine = (await member.ok('POST', 'messages', { type: 'stream', to: 'general', topic: 't', content: 'mine' })).id as number;
  const move = await member.patch(`messages/${mine}`, { stream_id: secretId });
  assert.equal(move.status, 400);
  assert.doesNotMatch(JSON.stringify(move.body), /hushhush/);
});

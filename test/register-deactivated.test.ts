// Register state leaves deactivated users out of channel subscriber counts and group member lists, and counts them again on reactivation.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type Client, type TestServer } from './helpers/server.js';
import { newChannel } from './helpers/messages.js';

let s: TestServer;
let ana: Client;
let ben: Client;
let cy: Client;
before(async () => {
  s = await startTestServer();
  ana = await s.user('Ana Stays');
  ben = await s.user('Ben Leaves');
  cy = await s.user('Cy Stays');
});
after(async () => {
  await s.close();
});

async function seen(channelName: string, groupId: number): Promise<{ count: number; members: number[] }> {
  const state = await ana.ok('POST', 'register', { fetch_event_types: ['subscription', 'realm_user_groups'] });
  const channel = (state.subscriptions as { name: string; subscriber_count: number }[]).find((c) => c.name === channelName)!;
  const group = (state.realm_user_groups as { id: number; members: number[] }[]).find((g) => g.id === groupId)!;
  return { count: channel.subscriber_count, members: group.members };
}

test('a deactivated subscriber and group member is not counted or listed until reactivated', async () => {
  await newChannel(s, 'counted', { subscribers: [ana, ben, cy] });
  const created = await s.owner.ok('POST', 'user_groups/create', { name: 'counted-group', description: 'd', members: [ana.userId, ben.userId, cy.userId] });
  const groupId = created.group_id as number;
  const all = [ana.userId, ben.userId, cy.userId].sort((a, b) => a - b);
  assert.deepEqual(await seen('counted', groupId), { count: 3, members: all });
  await s.owner.ok('DELETE', `users/${ben.userId}`);
  assert.deepEqual(await seen('counted', groupId), { count: 2, members: all.filter((id) => id !== ben.userId) });
  await s.owner.ok('POST', `users/${ben.userId}/reactivate`);
  assert.deepEqual(await seen('counted', groupId), { count: 3, members: all });
});

// Events consistency for the people event types (user_status, muted_users): register, act, apply
// the events, compare with a fresh register. Covered here, in its own process; see
// test/events-consistency.test.ts for the other types.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type Client, type TestServer } from './helpers/server.js';
import { checkConsistency, coveredEventTypes } from './helpers/events.js';

const PEOPLE_EVENT_TYPES = ['user_status', 'muted_users'];

let s: TestServer;
let ann: Client;
let ben: Client;

before(async () => {
  s = await startTestServer();
  ann = await s.user('Ann Consistent');
  ben = await s.user('Ben Consistent');
});
after(async () => {
  await s.close();
});

test('user_status: set, partly change, clear, away and a deactivated user', async () => {
  await checkConsistency(ann, () => ben.ok('POST', 'users/me/status', { status_text: 'busy', emoji_name: 'car' }), { expect: ['user_status'] });
  await checkConsistency(ann, () => ben.ok('POST', 'users/me/status', { emoji_name: '' }), { expect: ['user_status'] });
  await checkConsistency(ann, () => ben.ok('POST', 'users/me/status', { status_text: '', away: true }), { expect: ['user_status'] });
  await checkConsistency(ben, () => ben.ok('PATCH', 'settings', { presence_enabled: true }), { expect: ['user_status', 'user_settings'] });
  await checkConsistency(ann, () => s.owner.ok('POST', `users/${ben.userId}/status`, { status_text: 'set by the owner' }), { expect: ['user_status'] });
  await checkConsistency(ann, () => s.owner.ok('DELETE', `users/${ben.userId}`), { expect: ['realm_user'] });
});

test('muted_users: mute (earlier messages become read), unmute, and messages from a muted sender', async () => {
  const cat = await s.user('Cat Consistent');
  await cat.ok('POST', 'messages', { type: 'direct', to: JSON.stringify([ann.userId]), content: 'unread until muted' });
  await checkConsistency(ann, () => ann.ok('POST', `users/me/muted_users/${cat.userId}`), { expect: ['muted_users', 'update_message_flags'] });
  await checkConsistency(ann, () => cat.ok('POST', 'messages', { type: 'direct', to: JSON.stringify([ann.userId]), content: 'arrives read' }), { expect: ['message'] });
  await checkConsistency(ann, () => ann.ok('DELETE', `users/me/muted_users/${cat.userId}`), { expect: ['muted_users'] });
});

test('every people event type has a consistency case here', () => {
  assert.deepEqual(PEOPLE_EVENT_TYPES.filter((t) => !coveredEventTypes.has(t)), []);
});

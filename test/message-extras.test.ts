// GET /messages/matches_narrow, GET /messages/{id}/read_receipts and POST /messages/{id}/report.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type Client, type TestServer } from './helpers/server.js';
import { newChannel } from './helpers/messages.js';

let s: TestServer;
let ann: Client;
let ben: Client;
let cal: Client;
before(async () => {
  s = await startTestServer();
  ann = await s.user('Ann Extras');
  ben = await s.user('Ben Extras');
  cal = await s.user('Cal Extras');
});
after(async () => {
  await s.close();
});

const send = async (c: Client, params: Record<string, unknown>) => (await c.ok('POST', 'messages', params as never)).id as number;

async function setRealm(settings: Record<string, unknown>): Promise<void> {
  const app = s.running.app;
  const row = await app.store.db.selectFrom('realms').select('settings').where('id', '=', s.realm.id).executeTakeFirstOrThrow();
  await app.store.write((tx) => tx.updateTable('realms').set({ settings: JSON.stringify({ ...JSON.parse(row.settings || '{}'), ...settings }) }).where('id', '=', s.realm.id).execute());
  app.caches.invalidateRealms();
}

test('matches_narrow: only the listed messages the caller may see that match', async () => {
  const a = await send(ann, { type: 'stream', to: 'general', topic: 'apples & <pears>', content: 'fruit' });
  const b = await send(ann, { type: 'stream', to: 'general', topic: 'other', content: 'not fruit' });
  const secret = await newChannel(s, 'extras-secret', { inviteOnly: true, subscribers: [ben] });
  const hidden = await send(ben, { type: 'stream', to: secret.name, topic: 'apples & <pears>', content: 'hidden' });
  const r = await ann.ok('GET', 'messages/matches_narrow', { msg_ids: [a, b, hidden], narrow: [{ operator: 'topic', operand: 'apples & <pears>' }] });
  assert.deepEqual(r.messages, { [a]: { match_content: '<p>fruit</p>', match_subject: 'apples &amp; &lt;pears&gt;' } });
  const none = await ann.ok('GET', 'messages/matches_narrow', { msg_ids: [b], narrow: [{ operator: 'is', operand: 'starred' }] });
  assert.deepEqual(none.messages, {});
  let bad = await ann.get('messages/matches_narrow', { narrow: [] });
  assert.deepEqual([bad.status, bad.body.code, bad.body.var_name], [400, 'REQUEST_VARIABLE_MISSING', 'msg_ids']);
  bad = await ann.get('messages/matches_narrow', { msg_ids: '[1,"x"]', narrow: [] });
  assert.equal(bad.status, 400);
  bad = await ann.get('messages/matches_narrow', { msg_ids: [a], narrow: [{ operator: 'nonsense', operand: 'x' }] });
  assert.equal(bad.status, 400);
});

test('read_receipts: readers who share it, never the sender; the organization can turn them off', async () => {
  const id = await send(ann, { type: 'stream', to: 'general', topic: 'receipts', content: 'read me' });
  assert.deepEqual((await ann.ok('GET', `messages/${id}/read_receipts`)).user_ids, []);
  await ben.ok('POST', 'messages/flags', { messages: [id], op: 'add', flag: 'read' });
  await cal.ok('POST', 'messages/flags', { messages: [id], op: 'add', flag: 'read' });
  assert.deepEqual((await ann.ok('GET', `messages/${id}/read_receipts`)).user_ids, [ben.userId, cal.userId]);
  // Cal stops sharing read receipts.
  await cal.ok('PATCH', 'settings', { send_read_receipts: false });
  assert.deepEqual((await ben.ok('GET', `messages/${id}/read_receipts`)).user_ids, [ben.userId]);
  // Users the caller muted, and users who muted the caller, are left out (the reference, FL 143).
  await cal.ok('PATCH', 'settings', { send_read_receipts: true });
  await ann.ok('POST', `users/me/muted_users/${ben.userId}`);
  assert.deepEqual((await ann.ok('GET', `messages/${id}/read_receipts`)).user_ids, [cal.userId]);
  await ann.ok('DELETE', `users/me/muted_users/${ben.userId}`);
  await cal.ok('POST', `users/me/muted_users/${ben.userId}`);
  assert.deepEqual((await ben.ok('GET', `messages/${id}/read_receipts`)).user_ids, [ben.userId]);
  assert.deepEqual((await ann.ok('GET', `messages/${id}/read_receipts`)).user_ids, [ben.userId, cal.userId]);
  await cal.ok('DELETE', `users/me/muted_users/${ben.userId}`);
  await cal.ok('PATCH', 'settings', { send_read_receipts: false });
  // A message the caller cannot see, and a bad ID.
  const secret = await newChannel(s, 'receipts-secret', { inviteOnly: true, subscribers: [ben] });
  const hidden = await send(ben, { type: 'stream', to: secret.name, topic: 't', content: 'x' });
  let r = await ann.get(`messages/${hidden}/read_receipts`);
  assert.deepEqual([r.status, r.body.code, r.body.msg], [400, 'BAD_REQUEST', 'Invalid message(s)']);
  r = await ann.get('messages/99999999/read_receipts');
  assert.equal(r.body.msg, 'Invalid message(s)');
  await setRealm({ enable_read_receipts: false });
  try {
    r = await ann.get(`messages/${id}/read_receipts`);
    assert.deepEqual([r.status, r.body.msg], [400, 'Read receipts are disabled in this organization.']);
  } finally {
    await setRealm({ enable_read_receipts: true });
  }
});

test('report: needs a moderation request channel; the notification bot posts there', async () => {
  const id = await send(ben, { type: 'stream', to: 'general', topic: 'rude', content: 'something **rude**' });
  let r = await ann.post(`messages/${id}/report`, { report_type: 'harassment' });
  assert.deepEqual([r.status, r.body.code, r.body.msg], [400, 'BAD_REQUEST', 'Moderation request channel must be specified to enable message reporting.']);
  const mods = await newChannel(s, 'moderation', { inviteOnly: true, subscribers: [s.owner] });
  await setRealm({ moderation_request_channel_id: mods.id });
  r = await ann.post(`messages/${id}/report`, {});
  assert.deepEqual([r.status, r.body.var_name], [400, 'report_type']);
  r = await ann.post(`messages/${id}/report`, { report_type: 'boring' });
  assert.deepEqual([r.status, r.body.msg], [400, 'Invalid report_type']);
  r = await ann.post(`messages/${id}/report`, { report_type: 'other' });
  assert.deepEqual([r.status, r.body.msg], [400, 'An explanation is required.']);
  r = await ben.post(`messages/${id}/report`, { report_type: 'spam' });
  assert.equal(r.status, 400, 'not one’s own message');
  const secret = await newChannel(s, 'report-secret', { inviteOnly: true, subscribers: [ben] });
  const hidden = await send(ben, { type: 'stream', to: secret.name, topic: 't', content: 'x' });
  r = await ann.post(`messages/${hidden}/report`, { report_type: 'spam' });
  assert.deepEqual([r.status, r.body.msg], [400, 'Invalid message(s)']);

  await ann.ok('POST', `messages/${id}/report`, { report_type: 'harassment', description: 'Not OK.' });
  const got = await s.owner.ok('GET', 'messages', { anchor: 'newest', num_before: 5, num_after: 0, narrow: [{ operator: 'channel', operand: mods.id }], apply_markdown: false });
  assert.equal(got.messages.length, 1);
  const m = got.messages[0];
  assert.equal(m.sender_full_name, 'Notification Bot');
  assert.equal(m.subject, "Ben Extras's moderation requests");
  assert.match(m.content, /@_\*\*Ann Extras\|\d+\*\* reported/);
  assert.match(m.content, /Harassment/);
  assert.match(m.content, /> Not OK\./);
  assert.match(m.content, /something \*\*rude\*\*/);
  // Non-subscribers of the moderation channel do not see reports.
  const seen = await ann.get('messages', { anchor: 'newest', num_before: 5, num_after: 0, narrow: [{ operator: 'channel', operand: mods.id }] });
  assert.ok(seen.status !== 200 || seen.body.messages.length === 0);
  await setRealm({ moderation_request_channel_id: -1 });
});

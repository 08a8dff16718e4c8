// DELETE /messages/{message_id}/history: earlier content versions gone, moves kept, who deleted them recorded;
// the permission to delete the message, its errors, and GET /thumbnail/status.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type Client, type TestServer } from './helpers/server.js';
import { newChannel } from './helpers/messages.js';
import { postFiles } from './helpers/multipart.js';

let s: TestServer;
let eve: Client;
let fox: Client;
let admin: Client;
before(async () => {
  s = await startTestServer();
  eve = await s.user('Eve Author');
  fox = await s.user('Fox Other');
  admin = await s.user('Ada Admin', 200);
});
after(async () => {
  await s.close();
});

const send = async (c: Client, to: string, topic: string, content: string) => (await c.ok('POST', 'messages', { type: 'stream', to, topic, content })).id as number;

test('the author deletes the earlier versions: moves stay, history_deleted_by on the oldest snapshot', async () => {
  const dest = await newChannel(s, 'hd-dest', { subscribers: [eve, fox] });
  const id = await send(eve, 'general', 'first topic', 'secret draft');
  await eve.ok('PATCH', `messages/${id}`, { content: 'public text' });
  await eve.ok('PATCH', `messages/${id}`, { topic: 'second topic' });
  await eve.ok('PATCH', `messages/${id}`, { stream_id: dest.id });
  await eve.ok('DELETE', `messages/${id}/history`);

  const h = (await fox.ok('GET', `messages/${id}/history`)).message_history as any[];
  assert.equal(h.length, 3);
  assert.ok(h.every((snap) => snap.content === 'public text' && !('prev_content' in snap) && !('content_html_diff' in snap)));
  assert.equal(h[0].history_deleted_by, eve.userId);
  assert.equal(h[0].topic, 'first topic');
  assert.ok(h.slice(1).every((snap) => !('history_deleted_by' in snap)));
  assert.equal(h[1].prev_topic, 'first topic');
  assert.equal(h[2].prev_stream, (await s.owner.ok('GET', 'get_stream_id', { stream: 'general' })).stream_id);
  // Fetched messages no longer carry the old content either.
  const m = (await fox.ok('GET', 'messages', { anchor: id, num_before: 0, num_after: 0 })).messages[0];
  assert.equal(JSON.stringify(m.edit_history).includes('secret draft'), false);
  assert.equal(m.edit_history.length, 2);
  // Nothing left to delete: the reference's error.
  const again = await eve.delete(`messages/${id}/history`);
  assert.deepEqual([again.status, again.body.msg, again.body.code], [400, 'Invalid message(s)', 'BAD_REQUEST']);
});

test('a message only edited once loses its edit_history entirely', async () => {
  const id = await send(eve, 'general', 'once', 'v1');
  await eve.ok('PATCH', `messages/${id}`, { content: 'v2' });
  await admin.ok('DELETE', `messages/${id}/history`);
  const h = (await eve.ok('GET', `messages/${id}/history`)).message_history as any[];
  assert.deepEqual(h.map((x) => [x.content, x.history_deleted_by]), [['v2', admin.userId]]);
  const m = (await eve.ok('GET', 'messages', { anchor: id, num_before: 0, num_after: 0 })).messages[0];
  assert.equal('edit_history' in m, false);
});

test('who may not delete the message may not delete its history', async () => {
  const id = await send(eve, 'general', 'perm', 'one');
  await eve.ok('PATCH', `messages/${id}`, { content: 'two' });
  const r = await fox.delete(`messages/${id}/history`);
  assert.deepEqual([r.status, r.body.msg], [400, "You don't have permission to delete this message"]);
  assert.equal((await eve.ok('GET', `messages/${id}/history`)).message_history.length, 2);
});

test('bad input and messages the user cannot see', async () => {
  // Not a message ID: the path names no route, as for GET.
  assert.equal((await eve.delete('messages/abc/history')).status, 404);
  assert.equal((await eve.delete('messages/999999/history')).body.msg, 'Invalid message(s)');
  const priv = await newChannel(s, 'hd-private', { subscribers: [eve], inviteOnly: true });
  const id = await send(eve, priv.name, 't', 'x');
  await eve.ok('PATCH', `messages/${id}`, { content: 'y' });
  assert.equal((await fox.delete(`messages/${id}/history`)).body.msg, 'Invalid message(s)');
  const anon = await fetch(new URL(`/api/v1/messages/${id}/history`, s.url), { method: 'DELETE' });
  assert.equal(anon.status, 401);
});

test('GET /thumbnail/status: false for a file the user may fetch, the file errors otherwise', async () => {
  const up = (await postFiles(eve, 'user_uploads', [{ data: Buffer.from('89504e470d0a1a0a', 'hex'), filename: 'pic.png', contentType: 'image/png' }])).body;
  const path = String(up.url).replace(/^\/user_uploads\//, '');
  assert.deepEqual((await eve.ok('GET', `thumbnail/status/${path}`)).has_thumbnail, false);
  // Not linked in any message Fox can read: refused like the file itself.
  const other = await fox.get(`thumbnail/status/${path}`);
  assert.equal(other.status, 403);
  assert.equal((await eve.get(`thumbnail/status/${s.realm.id}/no/such/file.png`)).status, 404);
  assert.equal((await eve.get(`thumbnail/status/${s.realm.id + 1000}/${path.split('/').slice(1).join('/')}`)).status, 404);
  await eve.ok('POST', 'messages', { type: 'stream', to: 'general', topic: 'files', content: `[pic](${up.url})` });
  assert.equal((await fox.ok('GET', `thumbnail/status/${path}`)).has_thumbnail, false);
});

// PATCH and DELETE /messages/{id}: content edits, topic and channel moves, history, permissions, events.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type Client, type TestServer } from './helpers/server.js';
import { newChannel, queueFor, streamId } from './helpers/messages.js';

let s: TestServer;
let amy: Client;
let bo: Client;

before(async () => {
  s = await startTestServer();
  amy = await s.user('Amy Editor');
  bo = await s.user('Bo Watcher');
});
after(async () => {
  await s.close();
});

const send = async (c: Client, topic: string, content: string, to = 'general') => (await c.ok('POST', 'messages', { type: 'stream', to, topic, content })).id as number;

test('the author edits content: history, last_edit_timestamp, mention flags and the event', async () => {
  const id = await send(amy, 'edits', 'first version');
  const q = await queueFor(bo);
  await amy.ok('PATCH', `messages/${id}`, { content: 'second @**Bo Watcher**' });
  const m = (await bo.ok('GET', `messages/${id}`)).message;
  assert.match(m.content, /user-mention/);
  assert.deepEqual(m.flags, ['mentioned']);
  assert.equal(typeof m.last_edit_timestamp, 'number');
  assert.equal(m.last_moved_timestamp, undefined);
  assert.equal(m.edit_history.length, 1);
  assert.equal(m.edit_history[0].prev_content, 'first version');
  assert.equal(m.edit_history[0].user_id, amy.userId);
  const ev = (await q.events()).find((e) => e.type === 'update_message');
  assert.ok(ev);
  assert.equal(ev.message_id, id);
  assert.deepEqual(ev.message_ids, [id]);
  assert.equal(ev.orig_content, 'first version');
  assert.equal(ev.content, 'second @**Bo Watcher**');
  assert.equal(ev.rendering_only, false);
  assert.deepEqual(ev.flags, ['mentioned']);
  assert.equal(ev.stream_id, await streamId(s, 'general'));
  assert.equal(ev.stream_name, 'general');
  assert.equal(ev.user_id, amy.userId);
});

test('content edit errors', async () => {
  const id = await send(amy, 'edits', 'mine');
  const other = await bo.patch(`messages/${id}`, { content: 'hijack' });
  assert.equal(other.status, 400);
  assert.equal(other.body.msg, "You don't have permission to edit this message");
  const nothing = await amy.patch(`messages/${id}`, {});
  assert.equal(nothing.body.msg, 'Nothing to change');
  const empty = await amy.patch(`messages/${id}`, { content: ' ' });
  assert.equal(empty.body.msg, 'Message must not be empty');
  const mode = await amy.patch(`messages/${id}`, { content: 'x', propagate_mode: 'change_all' });
  assert.equal(mode.status, 400);
  const missing = await amy.patch('messages/99999999', { content: 'x' });
  assert.equal(missing.body.msg, 'Invalid message(s)');
  const dm = (await amy.ok('POST', 'messages', { type: 'direct', to: [bo.userId], content: 'dm' })).id;
  const dmTopic = await amy.patch(`messages/${dm}`, { topic: 'nope' });
  assert.equal(dmTopic.status, 400);
  assert.equal((await amy.patch(`messages/${dm}`, { content: 'dm edited' }, { as: 'multipart' })).status, 200);
});

test('topic moves: change_later, change_all, last_moved_timestamp, and resolving is not a move', async () => {
  const a = await send(amy, 'movable', 'a');
  const b = await send(bo, 'movable', 'b');
  const c = await send(amy, 'Movable', 'c');
  const q = await queueFor(bo);
  await amy.ok('PATCH', `messages/${b}`, { topic: 'moved', propagate_mode: 'change_later' });
  const ev = (await q.events()).find((e) => e.type === 'update_message');
  assert.deepEqual(ev?.message_ids, [b, c]);
  assert.equal(ev?.orig_subject, 'movable');
  assert.equal(ev?.subject, 'moved');
  assert.equal(ev?.propagate_mode, 'change_later');
  assert.deepEqual(ev?.topic_links, []);
  assert.equal((await bo.ok('GET', `messages/${a}`)).message.subject, 'movable');
  const mb = (await bo.ok('GET', `messages/${b}`)).message;
  assert.equal(mb.subject, 'moved');
  assert.equal(typeof mb.last_moved_timestamp, 'number');
  assert.deepEqual(mb.edit_history[0], { user_id: amy.userId, timestamp: mb.edit_history[0].timestamp, prev_topic: 'movable', topic: 'moved' });
  const r = await send(amy, 'done soon', 'r');
  await amy.ok('PATCH', `messages/${r}`, { topic: '✔ done soon', propagate_mode: 'change_all' });
  const mr = (await amy.ok('GET', `messages/${r}`)).message;
  assert.equal(mr.subject, '✔ done soon');
  assert.equal(mr.last_moved_timestamp, undefined);
  assert.equal(mr.edit_history.length, 1);
});

test('moving to another channel: access checks, new rows, lost access and first_message_id', async () => {
  const dest = await newChannel(s, 'edit-dest', { subscribers: [amy, bo] });
  const secret = await newChannel(s, 'edit-secret', { inviteOnly: true, subscribers: [amy] });
  const id = await send(amy, 'travel', 'going places');
  const q = await queueFor(bo, { client_capabilities: { bulk_message_deletion: true } });
  await amy.ok('PATCH', `messages/${id}`, { stream_id: dest.id, propagate_mode: 'change_all' });
  const m = (await bo.ok('GET', `messages/${id}`)).message;
  assert.equal(m.stream_id, dest.id);
  assert.equal(m.display_recipient, 'edit-dest');
  assert.equal(m.edit_history[0].prev_stream, await streamId(s, 'general'));
  const evs = await q.events();
  const up = evs.find((e) => e.type === 'update_message');
  assert.equal(up?.new_stream_id, dest.id);
  assert.ok(!('subject' in (up ?? {})));
  const first = evs.find((e) => e.type === 'stream' && e.stream_id === dest.id);
  assert.equal(first?.value, id);
  const both = await amy.patch(`messages/${id}`, { stream_id: secret.id, content: 'x' });
  assert.equal(both.status, 400);
  const noAccess = await bo.patch(`messages/${id}`, { stream_id: secret.id });
  assert.equal(noAccess.status, 400);
  await amy.ok('PATCH', `messages/${id}`, { stream_id: secret.id });
  const del = (await q.events()).find((e) => e.type === 'delete_message');
  assert.deepEqual(del?.message_ids, [id]);
  assert.equal((await bo.get(`messages/${id}`)).status, 400);
});

test('delete: the author, administrators, and events', async () => {
  const id = await send(amy, 'trash', 'bye');
  const q = await queueFor(bo, { client_capabilities: { bulk_message_deletion: true } });
  const legacy = await queueFor(bo);
  const denied = await bo.delete(`messages/${id}`);
  assert.equal(denied.status, 400);
  assert.equal(denied.body.msg, "You don't have permission to delete this message");
  await amy.ok('DELETE', `messages/${id}`);
  const ev = (await q.events()).find((e) => e.type === 'delete_message');
  assert.deepEqual(ev, { type: 'delete_message', message_ids: [id], message_type: 'stream', stream_id: await streamId(s, 'general'), topic: 'trash', id: ev?.id });
  const lev = (await legacy.events()).find((e) => e.type === 'delete_message');
  assert.equal(lev?.message_id, id);
  assert.equal((await amy.get(`messages/${id}`)).status, 400);
  const other = await send(bo, 'trash', 'admin removes this');
  await s.owner.ok('DELETE', `messages/${other}`);
  const dm = (await amy.ok('POST', 'messages', { type: 'direct', to: [bo.userId], content: 'dm' })).id;
  await amy.ok('DELETE', `messages/${dm}`);
  const dev = (await q.events()).find((e) => e.type === 'delete_message' && e.message_ids[0] === dm);
  assert.deepEqual(dev?.message_type, 'private');
  const search = await amy.ok('GET', 'messages', { anchor: 'newest', num_before: 10, num_after: 0, narrow: [['search', 'admin removes']] });
  assert.equal(search.messages.length, 0);
});

test('edits are searchable under the new content', async () => {
  const id = await send(amy, 'searchable', 'zebra');
  await amy.ok('PATCH', `messages/${id}`, { content: 'giraffe' });
  const r = await amy.ok('GET', 'messages', { anchor: 'newest', num_before: 10, num_after: 0, narrow: [['search', 'giraffe']] });
  assert.deepEqual(
    r.messages.map((m: any) => m.id),
    [id],
  );
  const old = await amy.ok('GET', 'messages', { anchor: 'newest', num_before: 10, num_after: 0, narrow: [['search', 'zebra']] });
  assert.equal(old.messages.length, 0);
});

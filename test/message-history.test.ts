// GET /messages/{message_id}/history (snapshots, content_html_diff, errors, the organization's
// visibility policy) and edit_history / last_moved_timestamp on fetched messages.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type Client, type TestServer } from './helpers/server.js';
import { newChannel } from './helpers/messages.js';

let s: TestServer;
let eve: Client;
let fox: Client;
before(async () => {
  s = await startTestServer();
  eve = await s.user('Eve Editor');
  fox = await s.user('Fox Reader');
});
after(async () => {
  await s.close();
});

const send = async (c: Client, to: string, topic: string, content: string) => (await c.ok('POST', 'messages', { type: 'stream', to, topic, content })).id as number;

async function withRealmSettings(settings: Record<string, unknown>, fn: () => Promise<void>): Promise<void> {
  const app = s.running.app;
  await app.store.db.updateTable('realms').set({ settings: JSON.stringify(settings) }).where('id', '=', s.realm.id).execute();
  app.caches.invalidateRealms();
  try {
    await fn();
  } finally {
    await app.store.db.updateTable('realms').set({ settings: '{}' }).where('id', '=', s.realm.id).execute();
    app.caches.invalidateRealms();
  }
}

test('an unedited message has one snapshot with exactly the original fields', async () => {
  const id = await send(eve, 'general', 'plain', 'just **once**');
  const r = await fox.ok('GET', `messages/${id}/history`);
  assert.equal(r.message_history.length, 1);
  const [snap] = r.message_history;
  assert.deepEqual(Object.keys(snap).sort(), ['content', 'rendered_content', 'timestamp', 'topic', 'user_id']);
  assert.equal(snap.content, 'just **once**');
  assert.equal(snap.rendered_content, '<p>just <strong>once</strong></p>');
  assert.equal(snap.topic, 'plain');
  assert.equal(snap.user_id, eve.userId);
});

test('snapshots oldest first, each with only the fields its edit changed', async () => {
  const dest = await newChannel(s, 'hist-dest', { subscribers: [eve, fox] });
  const id = await send(eve, 'general', 'draft topic', 'Hello world');
  await eve.ok('PATCH', `messages/${id}`, { content: 'Hello brave world' });
  await eve.ok('PATCH', `messages/${id}`, { topic: 'final topic' });
  await eve.ok('PATCH', `messages/${id}`, { stream_id: dest.id });
  const h = (await fox.ok('GET', `messages/${id}/history`, {}, { as: 'query' })).message_history as any[];
  assert.equal(h.length, 4);
  assert.deepEqual(Object.keys(h[0]).sort(), ['content', 'rendered_content', 'timestamp', 'topic', 'user_id']);
  assert.equal(h[0].content, 'Hello world');
  assert.equal(h[0].topic, 'draft topic');
  assert.deepEqual(Object.keys(h[1]).sort(), ['content', 'content_html_diff', 'prev_content', 'prev_rendered_content', 'rendered_content', 'timestamp', 'topic', 'user_id']);
  assert.equal(h[1].content, 'Hello brave world');
  assert.equal(h[1].prev_content, 'Hello world');
  assert.equal(h[1].prev_rendered_content, '<p>Hello world</p>');
  assert.equal(h[1].content_html_diff, '<div><p>Hello <span class="highlight_text_inserted">brave </span>world</p></div>');
  assert.deepEqual(Object.keys(h[2]).sort(), ['content', 'prev_topic', 'rendered_content', 'timestamp', 'topic', 'user_id']);
  assert.deepEqual([h[2].prev_topic, h[2].topic], ['draft topic', 'final topic']);
  assert.deepEqual(Object.keys(h[3]).sort(), ['content', 'prev_stream', 'rendered_content', 'stream', 'timestamp', 'topic', 'user_id']);
  assert.equal(h[3].stream, dest.id);
  assert.notEqual(h[3].prev_stream, dest.id);
  assert.ok(h.every((x, i) => i === 0 || x.user_id === eve.userId));

  // The Message object carries the stored entries newest first.
  const m = (await fox.ok('GET', `messages/${id}`)).message;
  assert.equal(m.edit_history.length, 3);
  assert.ok('prev_stream' in m.edit_history[0]);
  assert.ok('prev_topic' in m.edit_history[1]);
  assert.ok('prev_content' in m.edit_history[2]);
  assert.equal(typeof m.last_moved_timestamp, 'number');
  assert.equal(typeof m.last_edit_timestamp, 'number');
});

test('the empty topic shows as its display name unless allow_empty_topic_name', async () => {
  const id = await send(eve, 'general', '', 'in the empty topic');
  await eve.ok('PATCH', `messages/${id}`, { topic: 'named' });
  const legacy = (await fox.ok('GET', `messages/${id}/history`)).message_history;
  assert.equal(legacy[0].topic, 'general chat');
  assert.equal(legacy[1].prev_topic, 'general chat');
  const modern = (await fox.ok('GET', `messages/${id}/history`, { allow_empty_topic_name: true })).message_history;
  assert.equal(modern[0].topic, '');
  assert.equal(modern[1].prev_topic, '');
});

test('resolving a topic is recorded in edit history but is not a move', async () => {
  const id = await send(eve, 'general', 'question', 'anyone?');
  await eve.ok('PATCH', `messages/${id}`, { topic: '✔ question', propagate_mode: 'change_all' });
  const m = (await fox.ok('GET', `messages/${id}`)).message;
  assert.equal(m.last_moved_timestamp, undefined);
  assert.equal(m.edit_history[0].prev_topic, 'question');
  await eve.ok('PATCH', `messages/${id}`, { topic: 'question', propagate_mode: 'change_all' });
  assert.equal((await fox.ok('GET', `messages/${id}`)).message.last_moved_timestamp, undefined);
  // A real move does count.
  await eve.ok('PATCH', `messages/${id}`, { topic: 'another question', propagate_mode: 'change_all' });
  assert.equal(typeof (await fox.ok('GET', `messages/${id}`)).message.last_moved_timestamp, 'number');
});

test('nonexistent or inaccessible messages are BAD_REQUEST', async () => {
  const missing = await fox.get('messages/99999999/history');
  assert.equal(missing.status, 400);
  assert.equal(missing.body.code, 'BAD_REQUEST');
  assert.equal(missing.body.msg, 'Invalid message(s)');
  await newChannel(s, 'hist-secret', { inviteOnly: true, subscribers: [eve] });
  const secret = await send(eve, 'hist-secret', 'x', 'hidden');
  const r = await fox.get(`messages/${secret}/history`);
  assert.equal(r.body.code, 'BAD_REQUEST');
  const guest = await s.user('Gia Guest', 600);
  const pub = await send(eve, 'general', 'x', 'public');
  assert.equal((await guest.get(`messages/${pub}/history`)).body.code, 'BAD_REQUEST');
  const other = await s.realm2('historg');
  assert.equal((await other.owner.get(`messages/${pub}/history`)).body.code, 'BAD_REQUEST');
  // A direct message is visible to its participants only.
  const dm = (await eve.ok('POST', 'messages', { type: 'direct', to: [fox.userId], content: 'psst' })).id;
  assert.equal((await fox.ok('GET', `messages/${dm}/history`)).message_history[0].topic, '');
  assert.equal((await guest.get(`messages/${dm}/history`)).body.code, 'BAD_REQUEST');
});

test('an organization that disables edit history refuses the operation and hides edit_history', async () => {
  const id = await send(eve, 'general', 'policy', 'v1');
  await eve.ok('PATCH', `messages/${id}`, { content: 'v2' });
  await eve.ok('PATCH', `messages/${id}`, { topic: 'policy moved' });
  for (const settings of [{ allow_edit_history: false }, { message_edit_history_visibility_policy: 'none' }]) {
    await withRealmSettings(settings, async () => {
      const r = await fox.get(`messages/${id}/history`);
      assert.equal(r.status, 400);
      assert.equal(r.body.code, 'BAD_REQUEST');
      assert.equal(r.body.msg, 'Message edit history is disabled in this organization');
      assert.equal((await fox.ok('GET', `messages/${id}`)).message.edit_history, undefined);
      const listed = await fox.ok('GET', 'messages', { anchor: id, num_before: 0, num_after: 0 });
      assert.equal(listed.messages[0].edit_history, undefined);
      assert.equal(typeof listed.messages[0].last_edit_timestamp, 'number');
    });
  }
  await withRealmSettings({ message_edit_history_visibility_policy: 'moves' }, async () => {
    const h = (await fox.ok('GET', `messages/${id}/history`)).message_history;
    assert.equal(h.length, 2);
    assert.ok(h.every((x: any) => x.content === 'v2' && !('prev_content' in x)));
    assert.equal(h[1].prev_topic, 'policy');
    const m = (await fox.ok('GET', `messages/${id}`)).message;
    assert.equal(m.edit_history.length, 1);
    assert.ok(!('prev_content' in m.edit_history[0]));
  });
  assert.equal((await fox.ok('GET', `messages/${id}/history`)).message_history.length, 3);
});

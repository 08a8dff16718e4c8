// Unread floors: unread_msgs, is:unread and first_unread stay exact without a per-user index on every row.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { sql, type SqlBool } from 'kysely';
import { startTestServer, type Client, type TestServer } from './helpers/server.js';
import { newChannel } from './helpers/messages.js';

let s: TestServer;
let ann: Client;
let ben: Client;
let cat: Client;

before(async () => {
  s = await startTestServer();
  ann = await s.user('Ann Floor');
  ben = await s.user('Ben Floor');
  cat = await s.user('Cat Floor');
});
after(async () => {
  await s.close();
});

const send = async (c: Client, to: string | number, topic: string, content = 'x', extra: Record<string, unknown> = {}) =>
  (await c.ok('POST', 'messages', { type: 'stream', to, topic, content, ...extra } as never)).id as number;

/** Every unread row of the user, by brute force (a full table scan is fine in a test). */
async function truth(c: Client): Promise<number[]> {
  const rows = await s.running.app.store.db
    .selectFrom('user_messages')
    .select('message_id')
    .where('user_id', '=', c.userId)
    .where(sql<SqlBool>`(flags & 1) = 0`)
    .orderBy('message_id')
    .execute();
  return rows.map((r) => r.message_id);
}

/** The IDs register's unread_msgs lists, ascending. */
async function registered(c: Client): Promise<number[]> {
  const u = (await c.ok('POST', 'register', { fetch_event_types: ['message', 'update_message_flags'] })).unread_msgs;
  const ids: number[] = [];
  for (const l of [...u.streams, ...u.pms, ...u.huddles]) ids.push(...l.unread_message_ids);
  assert.equal(u.count, ids.length);
  return ids.sort((a, b) => a - b);
}

async function assertExact(c: Client): Promise<number[]> {
  const t = await truth(c);
  assert.deepEqual(await registered(c), t);
  const narrow = await c.ok('GET', 'messages', { anchor: 'oldest', num_before: 0, num_after: 1000, narrow: JSON.stringify([{ operator: 'is', operand: 'unread' }]) });
  assert.deepEqual(
    narrow.messages.map((m: { id: number }) => m.id),
    t,
  );
  const first = await c.ok('GET', 'messages', { anchor: 'first_unread', num_before: 0, num_after: 0 });
  if (t.length) assert.equal(first.anchor, t[0]);
  return t;
}

async function floorOf(c: Client, streamId: number): Promise<number> {
  const row = await s.running.app.store.db.selectFrom('subscriptions').select('unread_floor').where('user_id', '=', c.userId).where('stream_id', '=', streamId).executeTakeFirstOrThrow();
  return row.unread_floor;
}

test('mark read raises the floor; mark unread lowers it; scoped mark-as-read keeps the rest', async () => {
  const ch = await newChannel(s, 'floors-a', { subscribers: [ann, ben] });
  const ids: number[] = [];
  for (let i = 0; i < 6; i++) ids.push(await send(ann, ch.id, i % 2 ? 'odd' : 'even', `m${i}`));
  assert.deepEqual(await assertExact(ben), ids);
  await ben.ok('POST', 'messages/flags', { messages: [ids[0], ids[1], ids[3]], op: 'add', flag: 'read' });
  assert.equal(await floorOf(ben, ch.id), ids[2]);
  assert.deepEqual(await assertExact(ben), [ids[2], ids[4], ids[5]]);
  await ben.ok('POST', 'messages/flags', { messages: [ids[0]], op: 'remove', flag: 'read' });
  assert.equal(await floorOf(ben, ch.id), ids[0]);
  assert.deepEqual(await assertExact(ben), [ids[0], ids[2], ids[4], ids[5]]);
  await ben.ok('POST', 'mark_topic_as_read', { stream_id: ch.id, topic_name: 'even' });
  assert.deepEqual(await assertExact(ben), [ids[5]]);
  await ben.ok('POST', 'mark_stream_as_read', { stream_id: ch.id });
  assert.deepEqual(await assertExact(ben), []);
  assert.equal(await floorOf(ben, ch.id), ids[5] + 1);
  const late = await send(ann, ch.id, 'odd');
  assert.deepEqual(await assertExact(ben), [late]);
  await ben.ok('POST', 'mark_all_as_read');
  assert.deepEqual(await assertExact(ben), []);
});

test('a new subscriber to a channel with history has no old unreads', async () => {
  const ch = await newChannel(s, 'floors-history', { subscribers: [ann] });
  for (let i = 0; i < 3; i++) await send(ann, ch.id, 'old');
  await cat.ok('POST', 'users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'floors-history' }]) });
  const max = (await s.running.app.store.db.selectFrom('messages').select((eb) => eb.fn.max<number>('id').as('m')).executeTakeFirstOrThrow()).m;
  assert.equal(await floorOf(cat, ch.id), Number(max) + 1);
  const before = await truth(cat);
  const fresh = await send(ann, ch.id, 'new');
  assert.deepEqual(await assertExact(cat), [...before, fresh]);
});

test('moved unread messages stay unread for subscribers and for holders without a subscription row', async () => {
  const from = await newChannel(s, 'floors-from', { subscribers: [ann, ben, cat] });
  const to = await newChannel(s, 'floors-to', { subscribers: [ann, ben] });
  await ben.ok('POST', 'mark_all_as_read');
  await cat.ok('POST', 'mark_all_as_read');
  const moved = [await send(ann, from.id, 'go'), await send(ann, from.id, 'go')];
  // Ben has read everything in the destination, so his floor there is past the moved messages.
  await send(ann, to.id, 'seen');
  await ben.ok('POST', 'mark_stream_as_read', { stream_id: to.id });
  assert.ok((await floorOf(ben, to.id)) > moved[0]);
  await ann.ok('PATCH', `messages/${moved[0]}`, { stream_id: to.id, propagate_mode: 'change_all' });
  assert.equal(await floorOf(ben, to.id), moved[0]);
  assert.deepEqual(await assertExact(ben), moved);
  // Cat never subscribed to the destination (public): the rows are found through the partial index.
  assert.deepEqual(await assertExact(cat), moved);
  await cat.ok('POST', 'messages/flags', { messages: [moved[0]], op: 'add', flag: 'read' });
  assert.deepEqual(await assertExact(cat), [moved[1]]);
  await cat.ok('POST', 'messages/flags', { messages: [moved[0]], op: 'remove', flag: 'read' });
  assert.deepEqual(await assertExact(cat), moved);
  await cat.ok('POST', 'mark_all_as_read');
  assert.deepEqual(await assertExact(cat), []);
});

test('an unsubscribed sender keeps an unread message sent with read_by_sender false', async () => {
  const ch = await newChannel(s, 'floors-outside', { subscribers: [ann] });
  await cat.ok('POST', 'mark_all_as_read');
  const id = await send(cat, ch.id, 'drive-by', 'x', { read_by_sender: false });
  assert.deepEqual(await assertExact(cat), [id]);
});

test('direct messages and mentions are unread through the partial index; narrows agree', async () => {
  await ben.ok('POST', 'mark_all_as_read');
  const dm = (await ann.ok('POST', 'messages', { type: 'direct', to: JSON.stringify([ben.userId]), content: 'psst' })).id as number;
  const mention = await send(ann, 'general', 'hey', '@**Ben Floor** look');
  assert.deepEqual(await assertExact(ben), [dm, mention]);
  const mentioned = await ben.ok('GET', 'messages', { anchor: 'newest', num_before: 10, num_after: 0, narrow: JSON.stringify([{ operator: 'is', operand: 'mentioned' }]) });
  assert.ok(mentioned.messages.some((m: { id: number }) => m.id === mention));
  const dms = await ben.ok('GET', 'messages', { anchor: 'newest', num_before: 10, num_after: 0, narrow: JSON.stringify([{ operator: 'is', operand: 'dm' }, { operator: 'is', operand: 'unread' }]) });
  assert.deepEqual(
    dms.messages.map((m: { id: number }) => m.id),
    [dm],
  );
});

test('concurrent sends and mark-as-read lose no unread message', async () => {
  const ch = await newChannel(s, 'floors-race', { subscribers: [ann, ben, cat] });
  const sends: Promise<number>[] = [];
  const reads: Promise<unknown>[] = [];
  for (let i = 0; i < 40; i++) {
    sends.push(send(i % 2 ? ann : cat, ch.id, `race ${i % 3}`));
    if (i % 4 === 0) reads.push(ben.ok('POST', 'mark_stream_as_read', { stream_id: ch.id }));
  }
  await Promise.all([...sends, ...reads]);
  await assertExact(ben);
  await ben.ok('POST', 'mark_stream_as_read', { stream_id: ch.id });
  await assertExact(ben);
});

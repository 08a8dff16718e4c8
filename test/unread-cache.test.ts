// Register's kept unread state (SQLite, lib/messages/unread-cache.ts) after every kind of change: each register equals the plain computation and an uncached one.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type Client, type TestServer } from './helpers/server.js';
import { newChannel } from './helpers/messages.js';
import { CAP, MUTED, plainUnreadMsgs } from './helpers/unread.js';
import { unreadCacheLimits } from '../src/lib/messages/unread-cache.js';
import { unreadSummary } from '../src/lib/messages/unread-summary.js';

let s: TestServer;
let ann: Client;
let ben: Client;
let cat: Client;
const saved = { ...unreadCacheLimits };

before(async () => {
  // Every user's state kept, however small: the fixture stays small.
  unreadCacheLimits.minIds = 0;
  s = await startTestServer();
  ann = await s.user('Ann Cache');
  ben = await s.user('Ben Cache');
  cat = await s.user('Cat Cache');
});
after(async () => {
  Object.assign(unreadCacheLimits, saved);
  await s.close();
});

const send = async (c: Client, to: number, topic: string, content = 'x') => (await c.ok('POST', 'messages', { type: 'stream', to, topic, content })).id as number;

async function registered(c: Client): Promise<Record<string, unknown>> {
  return (await c.ok('POST', 'register', { fetch_event_types: JSON.stringify(['message', 'update_message_flags']) })).unread_msgs;
}

/** Registers twice (the second from what the first kept) and compares both with the plain and the uncached computations. */
async function check(c: Client, what: string): Promise<Record<string, unknown>> {
  const emptyName = (await c.ok('POST', 'register', { fetch_event_types: JSON.stringify(['realm']) })).realm_empty_topic_display_name as string;
  const plain = await plainUnreadMsgs(s, c, emptyName);
  const first = await registered(c);
  assert.deepEqual(first, plain, `after ${what}`);
  assert.deepEqual(await registered(c), plain, `again after ${what}`);
  const store = s.running.app.store;
  const user = { id: c.userId, realm_id: s.realm.id };
  const [cached, uncached] = await store.read(async (tx) => [await unreadSummary(tx, store.dialect, user, CAP, true), await unreadSummary(tx, store.dialect, user, CAP, false)]);
  const norm = (u: typeof cached) => ({ ...u, topics: [...u.topics].sort((a, b) => a.streamId - b.streamId || (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : 0)) });
  assert.deepEqual(norm(cached), norm(uncached), `summary after ${what}`);
  return first;
}

const streamIds = (u: Record<string, unknown>) => (u.streams as { unread_message_ids: number[] }[]).flatMap((g) => g.unread_message_ids).sort((a, b) => a - b);

test('the kept unread state follows sends, reads, moves, deletions, subscriptions and muting', async () => {
  const main = await newChannel(s, 'cache-main', { subscribers: [ann, ben, cat] });
  const side = await newChannel(s, 'cache-side', { subscribers: [ann, ben] });
  const elsewhere = await newChannel(s, 'cache-elsewhere', { subscribers: [ben] });
  for (let i = 0; i < 4; i++) {
    await send(ben, main.id, 'alpha', `a${i}`);
    await send(cat, main.id, 'beta', `b${i}`);
    await send(ben, side.id, 'gamma', `g${i}`);
  }
  await check(ann, 'the first sends');

  // New messages: an existing topic, a new topic, Ann's own (read), a mention.
  await send(ben, main.id, 'alpha', 'more');
  await send(ben, main.id, 'delta', 'new topic');
  await send(ann, side.id, 'gamma', 'mine');
  await send(cat, side.id, 'gamma', '@**Ann Cache** hello');
  await check(ann, 'new messages');

  // Reads and unreads, by ID, by narrow, by channel, by topic, all.
  const ids = streamIds(await check(ann, 'nothing'));
  await ann.ok('POST', 'messages/flags', { messages: JSON.stringify([ids[2], ids[5]]), op: 'add', flag: 'read' });
  await check(ann, 'marking two read (floors unchanged)');
  await ann.ok('POST', 'messages/flags', { messages: JSON.stringify([ids[0]]), op: 'add', flag: 'read' });
  await check(ann, 'marking the oldest read (floor raised)');
  await ann.ok('POST', 'messages/flags', { messages: JSON.stringify([ids[0], ids[2]]), op: 'remove', flag: 'read' });
  await check(ann, 'marking unread (floor lowered)');
  await ann.ok('POST', 'mark_topic_as_read', { stream_id: main.id, topic_name: 'beta' });
  await check(ann, 'mark_topic_as_read');
  await ann.ok('POST', 'messages/flags/narrow', {
    anchor: 'oldest',
    num_before: 0,
    num_after: 100,
    narrow: JSON.stringify([{ operator: 'channel', operand: main.id }, { operator: 'topic', operand: 'delta' }]),
    op: 'add',
    flag: 'read',
  });
  await check(ann, 'a narrow marked read');
  await ann.ok('POST', 'mark_stream_as_read', { stream_id: side.id });
  await check(ann, 'mark_stream_as_read');
  await send(ben, side.id, 'gamma', 'after reading');
  await check(ann, 'a new message after the channel was read');
  await ann.ok('POST', 'mark_all_as_read', {});
  await check(ann, 'mark_all_as_read');
  const sent: number[] = [];
  for (let i = 0; i < 3; i++) {
    sent.push(await send(ben, main.id, 'alpha', `again ${i}`));
    await send(cat, main.id, 'Alpha', `case ${i}`);
    await send(ben, side.id, 'gamma', `side ${i}`);
  }
  await check(ann, 'new messages after reading all');

  // Topic edits and moves: renamed in place, moved to another channel of Ann's, moved away from her.
  await s.owner.ok('PATCH', `messages/${sent[0]}`, { topic: 'renamed', propagate_mode: 'change_one' });
  await check(ann, 'a topic renamed (one message)');
  await s.owner.ok('PATCH', `messages/${sent[1]}`, { topic: 'renamed all', propagate_mode: 'change_all' });
  await check(ann, 'a topic renamed (all)');
  await s.owner.ok('PATCH', `messages/${sent[2]}`, { stream_id: side.id, propagate_mode: 'change_one' });
  await check(ann, 'a message moved to another of her channels');
  const away = await send(ben, main.id, 'leaving', 'x');
  await check(ann, 'before a move away');
  await s.owner.ok('PATCH', `messages/${away}`, { stream_id: elsewhere.id, propagate_mode: 'change_all' });
  await check(ann, 'a topic moved to a channel she is not in');
  const into = await send(ben, elsewhere.id, 'arriving', 'x');
  await s.owner.ok('PATCH', `messages/${into}`, { stream_id: main.id, propagate_mode: 'change_all' });
  await check(ann, 'a topic moved into her channel');

  // Deletions: one message, a whole topic.
  const gone = await send(ben, main.id, 'alpha', 'to delete');
  await check(ann, 'before a deletion');
  await s.owner.ok('DELETE', `messages/${gone}`);
  await check(ann, 'a message deleted');
  await send(ben, main.id, 'doomed', 'a');
  await send(ben, main.id, 'doomed', 'b');
  await check(ann, 'before a topic deletion');
  await s.owner.ok('POST', `streams/${main.id}/delete_topic`, { topic_name: 'doomed' });
  await check(ann, 'a topic deleted');

  // Subscriptions: leaving (rows stay unread), joining a channel with history, joining again.
  await ann.ok('DELETE', 'users/me/subscriptions', { subscriptions: JSON.stringify(['cache-side']) });
  await check(ann, 'unsubscribing');
  await send(ben, side.id, 'gamma', 'while away');
  await check(ann, 'a message while unsubscribed');
  await ann.ok('POST', 'users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'cache-side' }]) });
  await check(ann, 'subscribing again');
  await send(ben, side.id, 'gamma', 'back');
  await ann.ok('POST', 'users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'cache-elsewhere' }]) });
  await send(ben, elsewhere.id, 'fresh', 'first after joining');
  await check(ann, 'joining a channel with history');

  // Muting: a topic (counted apart), a channel, a user (their unread messages become read, new ones arrive read).
  await ann.ok('POST', 'user_topics', { stream_id: main.id, topic: 'alpha', visibility_policy: MUTED });
  await check(ann, 'a topic muted');
  await ann.ok('POST', 'users/me/subscriptions/properties', { subscription_data: JSON.stringify([{ stream_id: side.id, property: 'is_muted', value: true }]) });
  await check(ann, 'a channel muted');
  await send(cat, main.id, 'beta', 'from Cat');
  await check(ann, 'before muting Cat');
  await ann.ok('POST', `users/me/muted_users/${cat.userId}`);
  await check(ann, 'Cat muted');
  await send(cat, main.id, 'beta', 'from muted Cat');
  await send(ben, main.id, 'beta', 'from Ben');
  await check(ann, 'a message from a muted user');
  await ann.ok('DELETE', `users/me/muted_users/${cat.userId}`);
  await send(cat, main.id, 'beta', 'from Cat again');
  await check(ann, 'Cat unmuted');

  // Registers of one user side by side, with a message between them.
  const [a, b] = await Promise.all([registered(ann), send(ben, main.id, 'beta', 'between').then(() => registered(ann))]);
  assert.ok(Array.isArray(a.streams) && Array.isArray(b.streams));
  await check(ann, 'two registers side by side');

  // Another user's state is kept apart: Ben's reads change nothing of Ann's.
  await check(cat, 'Cat');
  await cat.ok('POST', 'mark_all_as_read', {});
  await check(cat, 'Cat read all');
  await check(ann, 'Cat read all (Ann)');
});

test('a kept state older than a change made directly in the database is not used (triggers, not the actions, raise the counters)', async () => {
  const ch = await newChannel(s, 'cache-direct', { subscribers: [ann, ben] });
  for (let i = 0; i < 3; i++) await send(ben, ch.id, 'direct', `d${i}`);
  const ids = streamIds(await check(ann, 'direct sends'));
  const db = s.running.app.store.db;
  const newest = ids[ids.length - 1];
  await db.updateTable('user_messages').set({ flags: 1 }).where('user_id', '=', ann.userId).where('message_id', '=', newest).execute();
  await check(ann, 'a read bit set directly');
  await db.updateTable('messages').set({ topic: 'elsewhere', topic_key: 'elsewhere' }).where('id', '=', ids[ids.length - 2]).execute();
  await check(ann, 'a topic changed directly');
  await db.deleteFrom('user_messages').where('message_id', '=', ids[ids.length - 3]).execute();
  await db.deleteFrom('messages').where('id', '=', ids[ids.length - 3]).execute();
  await check(ann, 'a message deleted directly');
});

// Channel sends that PostgreSQL takes in one statement, against the channel row a node read for an
// earlier send: they see every change to the channel and write what the transaction path writes.
// On SQLite every send is a transaction and the same assertions hold.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type Client, type TestServer } from './helpers/server.js';
import { newChannel, queueFor } from './helpers/messages.js';
import { expectError } from './helpers/assertions.js';
import { oneStatementSends } from '../src/lib/messages/send-one-statement.js';

let s: TestServer;
let ann: Client;
let ben: Client;
let cat: Client;

before(async () => {
  s = await startTestServer();
  ann = await s.user('Ann Single');
  ben = await s.user('Ben Single');
  cat = await s.user('Cat Single');
});
after(() => s.close());

const send = async (c: Client, to: number, content: string, extra: Record<string, unknown> = {}) => (await c.ok('POST', 'messages', { type: 'stream', to, topic: 't', content, ...extra })).id as number;

/** Sends until the node has read the channel for a send (its first two sends), then once more, which must take the one-statement path on PostgreSQL. */
async function sendOnRememberedChannel(c: Client, to: number, content: string, extra: Record<string, unknown> = {}): Promise<number> {
  await send(c, to, 'first');
  await send(c, to, 'second');
  const before = oneStatementSends();
  const id = await send(c, to, content, extra);
  if (s.dialect === 'postgres') assert.equal(oneStatementSends(), before + 1, 'sent in one statement');
  return id;
}

const unreadIds = async (c: Client) => {
  const u = (await c.ok('POST', 'register', { fetch_event_types: ['message', 'update_message_flags'] })).unread_msgs;
  return (u.streams as { unread_message_ids: number[] }[]).flatMap((l) => l.unread_message_ids);
};

test('a send to a remembered channel sees its rename and a new posting permission', async () => {
  const db = s.running.app.store.db;
  const ch = await newChannel(s, 'single-a', { subscribers: [ann, ben] });
  const q = await queueFor(ben);
  const id = await sendOnRememberedChannel(ann, ch.id, 'fast');
  const event = (await q.events()).find((e) => e.type === 'message' && e.message.id === id)!;
  assert.equal(event.message.display_recipient, 'single-a');
  assert.deepEqual(event.flags, []);

  // Changed behind this node's back (another node, an operator): the next send reads it again.
  await db.updateTable('streams').set({ name: 'single-a-renamed' }).where('id', '=', ch.id).execute();
  const renamed = await send(ann, ch.id, 'after rename');
  assert.equal((await q.events()).find((e) => e.type === 'message' && e.message.id === renamed)!.message.display_recipient, 'single-a-renamed');
  const fetched = await ben.ok('GET', 'messages', { anchor: renamed, num_before: 0, num_after: 0 });
  assert.equal(fetched.messages[0].display_recipient, 'single-a-renamed');

  const admins = (await db.selectFrom('user_groups').select('id').where('realm_id', '=', s.realm.id).where('name', '=', 'role:administrators').executeTakeFirstOrThrow()).id;
  await send(ann, ch.id, 'remembered again');
  await db.updateTable('streams').set({ permissions: JSON.stringify({ can_send_message_group: admins }) }).where('id', '=', ch.id).execute();
  await expectError(ann.post('messages', { type: 'stream', to: ch.id, topic: 't', content: 'refused' }), 'You do not have permission to post in this channel.');
  await db.updateTable('streams').set({ is_archived: 1 }).where('id', '=', ch.id).execute();
  await expectError(s.owner.post('messages', { type: 'stream', to: ch.id, topic: 't', content: 'archived' }), "Not authorized to send to channel 'single-a-renamed'");
});

test('a remembered channel that a check refuses is read again: the send succeeds when the channel allows it now', async () => {
  const db = s.running.app.store.db;
  const ch = await newChannel(s, 'single-b', { subscribers: [ann, ben] });
  await send(ann, ch.id, 'first');
  await send(ann, ch.id, 'second');
  await db.updateTable('streams').set({ is_archived: 1 }).where('id', '=', ch.id).execute();
  await expectError(ann.post('messages', { type: 'stream', to: ch.id, topic: 't', content: 'archived' }), "Not authorized to send to channel 'single-b'");
  await db.updateTable('streams').set({ is_archived: 0 }).where('id', '=', ch.id).execute();
  await send(ann, ch.id, 'unarchived');
});

test('an unsubscribed sender gets the message, read or left unread as asked; subscribers get it unread', async () => {
  const ch = await newChannel(s, 'single-c', { subscribers: [ben] });
  await cat.ok('POST', 'mark_all_as_read');
  await ben.ok('POST', 'mark_all_as_read');
  const unread = await sendOnRememberedChannel(cat, ch.id, 'drive-by', { read_by_sender: false });
  const read = await send(cat, ch.id, 'drive-by, read');
  const mine = await cat.ok('GET', 'messages', { anchor: unread, num_before: 0, num_after: 1 });
  assert.deepEqual(
    mine.messages.map((m: { id: number; flags: string[] }) => [m.id, m.flags]),
    [
      [unread, []],
      [read, ['read']],
    ],
  );
  // Unread without a subscription: listed all the same (no channel floor covers it).
  assert.ok((await unreadIds(cat)).includes(unread));
  assert.ok(!(await unreadIds(cat)).includes(read));
  const theirs = await unreadIds(ben);
  assert.ok(theirs.includes(unread) && theirs.includes(read));
});

test('messages with a mention or an alert word take the transaction path and keep their flags', async () => {
  const ch = await newChannel(s, 'single-d', { subscribers: [ann, ben] });
  await ben.ok('POST', 'users/me/alert_words', { alert_words: JSON.stringify(['zeppelin']) });
  await send(ann, ch.id, 'first');
  await send(ann, ch.id, 'second');
  const before = oneStatementSends();
  const mention = await send(ann, ch.id, '@**Ben Single** look');
  await send(ann, ch.id, 'a zeppelin overhead');
  assert.equal(oneStatementSends(), before);
  const got = await ben.ok('GET', 'messages', { anchor: mention, num_before: 0, num_after: 1 });
  assert.deepEqual(
    got.messages.map((m: { flags: string[] }) => m.flags),
    [['mentioned'], ['has_alert_word']],
  );
});

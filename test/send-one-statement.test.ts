// Channel sends that PostgreSQL takes in one statement, against the channel row a node read for an
// earlier send: they see every change to the channel and write what the transaction path writes.
// On SQLite every send is a transaction and the same assertions hold.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type Client, type TestServer } from './helpers/server.js';
import { channelMessageRow, channelVersion, newChannel, queueFor } from './helpers/messages.js';
import { expectError } from './helpers/assertions.js';
import { oneStatementSends, sendInOneStatement } from '../src/lib/messages/send-one-statement.js';

/** The event-log text of a direct call's row: no notices (these calls bypass the send action). */
const NO_NOTICES = '[]';

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

test('sends arriving together are written together, each with its own content and rows; a changed channel among them is read again', async () => {
  const db = s.running.app.store.db;
  const a = await newChannel(s, 'single-e', { subscribers: [ann, ben] });
  const b = await newChannel(s, 'single-f', { subscribers: [ann, cat] });
  for (const [c, ch] of [
    [ann, a],
    [cat, b],
  ] as const) {
    await send(c, ch.id, 'first');
    await send(c, ch.id, 'second');
  }
  const q = await queueFor(ben);
  const before = oneStatementSends();
  // Channel a changes just before the burst: its sends are read again; b's stay on the one-statement path.
  await db.updateTable('streams').set({ name: 'single-e-renamed' }).where('id', '=', a.id).execute();
  const ids = await Promise.all(Array.from({ length: 20 }, (_, i) => send(i % 2 ? cat : ann, i % 2 ? b.id : a.id, `burst ${i}`)));
  if (s.dialect === 'postgres') assert.ok(oneStatementSends() - before >= 10, `sends in one statement: ${oneStatementSends() - before}`);
  assert.equal(new Set(ids).size, 20);
  // Each request got the ID of its own message.
  const byId = new Map<number, { content: string; display_recipient: string; flags: string[] }>();
  for (const c of [ann, ben, cat]) {
    const got = await c.ok('GET', 'messages', { anchor: Math.min(...ids), num_before: 0, num_after: 40, apply_markdown: false });
    for (const m of got.messages) if (ids.includes(m.id) && !byId.has(m.id)) byId.set(m.id, m);
  }
  ids.forEach((id, i) => {
    assert.equal(byId.get(id)?.content, `burst ${i}`);
    assert.equal(byId.get(id)?.display_recipient, i % 2 ? 'single-f' : 'single-e-renamed');
  });
  // Ben (channel a only) has exactly the ten sent there, unread, and an event for each (concurrent
  // transactions may commit out of ID order, so the events may come in another order).
  const bens = ids.filter((_, i) => i % 2 === 0).sort((x, y) => x - y);
  const seen = await ben.ok('GET', 'messages', { anchor: Math.min(...ids), num_before: 0, num_after: 40 });
  assert.deepEqual(
    seen.messages.filter((m: { id: number }) => ids.includes(m.id)).map((m: { id: number; flags: string[] }) => [m.id, m.flags]),
    bens.map((id) => [id, []]),
  );
  const events = (await q.events()).filter((e) => e.type === 'message' && ids.includes(e.message.id)).map((e) => e.message.id as number);
  assert.deepEqual(
    events.sort((x, y) => x - y),
    bens,
  );
  // Cat sent b's ten: hers, read.
  const cats = await cat.ok('GET', 'messages', { anchor: Math.min(...ids), num_before: 0, num_after: 40 });
  for (const m of cats.messages.filter((x: { id: number }) => ids.includes(x.id))) assert.deepEqual(m.flags, ['read']);
});

test('one statement for the sends of a turn: each gets its own message, in call order; one whose channel changed gets nothing', async (t) => {
  if (s.dialect !== 'postgres') return t.skip('PostgreSQL only');
  const db = s.running.app.store.db;
  const a = await newChannel(s, 'single-g', { subscribers: [ann, ben] });
  const b = await newChannel(s, 'single-h', { subscribers: [cat] });
  const row = (ch: { id: number; recipient_id: number }, sender: Client, content: string) => channelMessageRow(s, ch, sender.userId, content);
  const [va, vb] = [await channelVersion(s, a.id), await channelVersion(s, b.id)];
  const before = oneStatementSends();
  // Called in one turn: one batch.
  const sent = await Promise.all([
    sendInOneStatement(db, row(a, ann, 'one'), va, 1, NO_NOTICES),
    sendInOneStatement(db, row(b, cat, 'two'), vb, 0, NO_NOTICES),
    sendInOneStatement(db, row(a, cat, 'stale'), String(Number(va) + 1), 1, NO_NOTICES),
    sendInOneStatement(db, row(a, ben, 'three'), va, 1, NO_NOTICES),
  ]);
  assert.equal(sent[2], undefined);
  assert.equal(oneStatementSends() - before, 3);
  const [one, two, three] = [sent[0]!, sent[1]!, sent[3]!];
  assert.ok(one.id < two.id && two.id < three.id, 'IDs in call order');
  assert.equal(one.xid, three.xid, 'one transaction');
  const stored = await db.selectFrom('messages').select(['id', 'content', 'stream_id', 'sender_id']).where('id', 'in', [one.id, two.id, three.id]).orderBy('id').execute();
  assert.deepEqual(
    stored.map((m) => [m.content, m.stream_id, m.sender_id]),
    [
      ['one', a.id, ann.userId],
      ['two', b.id, cat.userId],
      ['three', a.id, ben.userId],
    ],
  );
  assert.deepEqual([...one.recipients].sort(), [ann.userId, ben.userId].sort());
  assert.deepEqual(two.recipients, [cat.userId]);
  const rows = await db.selectFrom('user_messages').select(['message_id', 'user_id', 'flags']).where('message_id', 'in', [one.id, two.id, three.id]).orderBy('message_id').orderBy('user_id').execute();
  assert.deepEqual(
    rows.map((r) => [r.message_id, r.user_id, r.flags]),
    [
      [one.id, ann.userId, 1],
      [one.id, ben.userId, 0],
      [two.id, cat.userId, 0],
      [three.id, ann.userId, 0],
      [three.id, ben.userId, 1],
    ].sort((x, y) => x[0] - y[0] || x[1] - y[1]),
  );
  assert.equal((await db.selectFrom('messages').select('id').where('content', '=', 'stale').execute()).length, 0);
});

test('a batch that PostgreSQL refuses writes nothing and hands every send back to the transaction path', async (t) => {
  if (s.dialect !== 'postgres') return t.skip('PostgreSQL only');
  const db = s.running.app.store.db;
  const a = await newChannel(s, 'single-i', { subscribers: [ann] });
  const v = await channelVersion(s, a.id);
  const row = (content: string, dateSent: number) => channelMessageRow(s, a, ann.userId, content, dateSent);
  // A date past the integer column's range: the whole statement fails.
  const sent = await Promise.all([sendInOneStatement(db, row('good one', 1), v, 1, NO_NOTICES), sendInOneStatement(db, row('bad one', 2 ** 33), v, 1, NO_NOTICES)]);
  assert.deepEqual(sent, [undefined, undefined]);
  assert.equal((await db.selectFrom('messages').select('id').where('stream_id', '=', a.id).execute()).length, 0);
});

test('a deactivated subscriber, person or bot, gets no row on either path until reactivated', async () => {
  const dan = await s.user('Dan Leaves');
  const bot = await ann.ok('POST', 'bots', { full_name: 'Leaving Bot', short_name: 'leaving', bot_type: 1 });
  const ch = await newChannel(s, 'single-j', { subscribers: [ann, dan] });
  await s.owner.ok('POST', 'users/me/subscriptions', { subscriptions: [{ name: 'single-j' }], principals: [bot.user_id] });
  const holders = async (id: number) =>
    (await s.running.app.store.db.selectFrom('user_messages').select('user_id').where('message_id', '=', id).orderBy('user_id').execute()).map((r) => r.user_id);
  const everyone = [ann.userId, dan.userId, bot.user_id].sort((x, y) => x - y);
  assert.deepEqual(await holders(await sendOnRememberedChannel(ann, ch.id, 'all here')), everyone);

  await s.owner.ok('DELETE', `users/${dan.userId}`);
  await ann.ok('DELETE', `bots/${bot.user_id}`);
  // A mention always takes the transaction path; the remembered channel's plain sends go in one statement on PostgreSQL.
  const whileAway = [await send(ann, ch.id, '@**Ann Single** away 1'), await sendOnRememberedChannel(ann, ch.id, 'away 2')];
  for (const id of whileAway) assert.deepEqual(await holders(id), [ann.userId]);

  await s.owner.ok('POST', `users/${dan.userId}/reactivate`);
  await s.owner.ok('POST', `users/${bot.user_id}/reactivate`);
  const back = [await send(ann, ch.id, '@**Ann Single** back 1'), await sendOnRememberedChannel(ann, ch.id, 'back 2')];
  for (const id of back) assert.deepEqual(await holders(id), everyone);
  const unread = await unreadIds(dan);
  for (const id of whileAway) assert.ok(!unread.includes(id), 'not unread: sent while deactivated');
  for (const id of back) assert.ok(unread.includes(id), 'unread: sent after reactivation');
});

test('a one-statement send writes its event-log row in the same statement, naming its message and recipients', async (t) => {
  if (s.dialect !== 'postgres') return t.skip('PostgreSQL only');
  const db = s.running.app.store.db;
  const ch = await newChannel(s, 'single-log', { subscribers: [ann, ben, cat] });
  // The first sends read the channel (transaction path) and remember it; the next take one statement.
  await send(ann, ch.id, 'warm up');
  await send(ann, ch.id, 'warm up again');
  const q = await queueFor(ben);
  const before = oneStatementSends();
  const id = await send(ann, ch.id, 'logged with the message "id":-1 and \u0001');
  assert.equal(oneStatementSends() - before, 1, 'the send took the one-statement path');
  const rows = await db.selectFrom('event_log').select(['body']).where('body', 'like', `%"recipientsOf":${id}%`).execute();
  assert.equal(rows.length, 1, 'one log row names the message');
  const [notice] = JSON.parse(rows[0].body) as { event: { message: { id: number; content: string } }; users: number[]; recipientsOf: number }[];
  assert.equal(notice.event.message.id, id);
  assert.equal(notice.recipientsOf, id);
  assert.deepEqual(notice.users, []);
  const stored = await db.selectFrom('messages').select('content').where('id', '=', id).executeTakeFirstOrThrow();
  assert.equal(notice.event.message.content, stored.content, 'the text of the message is kept as sent');
  assert.deepEqual(
    (await q.events()).filter((e) => e.type === 'message').map((e) => e.message.id),
    [id],
  );
});

// Register's unread_msgs (grouped in SQL from the floors and the partial index) equals a straightforward computation from every unread row.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { startTestServer, type Client, type TestServer } from './helpers/server.js';
import { newChannel } from './helpers/messages.js';
import { CAP, FOLLOWED, MUTED, UNMUTED, plainUnreadMsgs } from './helpers/unread.js';

let s: TestServer;
let ann: Client;
let ben: Client;
let cat: Client;
let dan: Client;

before(async () => {
  s = await startTestServer();
  ann = await s.user('Ann Unread');
  ben = await s.user('Ben Unread');
  cat = await s.user('Cat Unread');
  dan = await s.user('Dan Unread');
});
after(async () => {
  await s.close();
});

const byNumber = (a: number, b: number) => a - b;
const expected = (c: Client, emptyTopicName: string | null) => plainUnreadMsgs(s, c, emptyTopicName);

const send = async (c: Client, to: number, topic: string, content = 'x') => (await c.ok('POST', 'messages', { type: 'stream', to, topic, content })).id as number;
const dm = async (c: Client, to: Client[], content = 'x') => (await c.ok('POST', 'messages', { type: 'direct', to: JSON.stringify(to.map((u) => u.userId)), content })).id as number;

async function registered(c: Client, capabilities: Record<string, boolean> = {}): Promise<Record<string, unknown>> {
  return (await c.ok('POST', 'register', { fetch_event_types: JSON.stringify(['message', 'update_message_flags']), client_capabilities: JSON.stringify(capabilities) })).unread_msgs;
}

async function assertSame(c: Client): Promise<Record<string, unknown>> {
  const emptyName = (await c.ok('POST', 'register', { fetch_event_types: JSON.stringify(['realm']) })).realm_empty_topic_display_name as string;
  const got = await registered(c);
  assert.deepEqual(got, await expected(c, emptyName));
  assert.deepEqual(await registered(c, { empty_topic_name: true }), await expected(c, null));
  return got;
}

test('unread_msgs equals the plain computation: muted channels and topics, DMs, group DMs, mentions, moved messages', async () => {
  const main = await newChannel(s, 'unread-main', { subscribers: [ann, ben, cat] });
  const quiet = await newChannel(s, 'unread-quiet', { subscribers: [ann, ben] });
  const other = await newChannel(s, 'unread-other', { subscribers: [ben] });
  await ann.ok('POST', 'users/me/subscriptions/properties', { subscription_data: JSON.stringify([{ stream_id: quiet.id, property: 'is_muted', value: true }]) });
  await ann.ok('POST', 'user_topics', { stream_id: main.id, topic: 'Noise', visibility_policy: MUTED });
  await ann.ok('POST', 'user_topics', { stream_id: quiet.id, topic: 'wanted', visibility_policy: UNMUTED });
  await ann.ok('POST', 'user_topics', { stream_id: quiet.id, topic: 'watched', visibility_policy: FOLLOWED });

  for (let i = 0; i < 3; i++) {
    await send(ben, main.id, 'alpha', `a${i}`);
    await send(cat, main.id, 'Alpha', `A${i}`);
    await send(ben, main.id, 'noise', `n${i}`);
    await send(ben, main.id, '', `empty${i}`);
    await send(ben, quiet.id, 'general', `q${i}`);
    await send(ben, quiet.id, 'wanted', `w${i}`);
    await send(ben, quiet.id, 'watched', `f${i}`);
    await dm(ben, [ann], `dm${i}`);
    await dm(cat, [ann, ben], `group${i}`);
    await dm(dan, [ann, ben, cat], `group4-${i}`);
  }
  await send(ben, main.id, 'alpha', '@**Ann Unread** look');
  await send(ben, quiet.id, 'general', '@**all** everyone');
  await send(ann, main.id, 'alpha', 'here (a topic participant, so @**topic** mentions Ann)');
  await send(cat, main.id, 'alpha', '@**topic** topic folks');
  await dm(ann, [ann], 'note to self');
  await dm(ann, [ben], 'mine, read');
  await assertSame(ann);

  // Moved: a topic renamed within the channel, another into the muted channel, one message into a channel Ann is not in.
  const beta = await send(ben, main.id, 'beta', 'to rename');
  await send(ben, main.id, 'beta', 'to rename too');
  await ben.ok('PATCH', `messages/${beta}`, { topic: 'gamma', propagate_mode: 'change_all' });
  const moving = await send(ben, main.id, 'travel', 'moving');
  await s.owner.ok('PATCH', `messages/${moving}`, { stream_id: quiet.id, propagate_mode: 'change_all' });
  const away = await send(ben, main.id, 'away', 'leaving');
  await s.owner.ok('PATCH', `messages/${away}`, { stream_id: other.id, propagate_mode: 'change_one' });
  await assertSame(ann);

  // Some read, one marked unread again (floors move both ways).
  const firstIds = ((await assertSame(ann)).streams as { unread_message_ids: number[] }[]).flatMap((g) => g.unread_message_ids).sort(byNumber);
  await ann.ok('POST', 'messages/flags', { messages: JSON.stringify(firstIds.slice(0, 5)), op: 'add', flag: 'read' });
  await ann.ok('POST', 'messages/flags', { messages: JSON.stringify([firstIds[1]]), op: 'remove', flag: 'read' });
  const got = await assertSame(ann);
  assert.ok((got.streams as unknown[]).length >= 8, 'the fixture spreads over many topics');
  assert.equal((got.huddles as unknown[]).length, 2);
  assert.equal((got.pms as unknown[]).length, 1);
  assert.equal((got.mentions as unknown[]).length, 3);
  // Someone who reads nothing else: the same for Cat (group DMs from both sides).
  await assertSame(cat);
});

test('more than 50,000 unread: the newest 50,000 are listed and old_unreads_missing is set', async () => {
  const big = await newChannel(s, 'unread-big', { subscribers: [ben, dan] });
  const second = await newChannel(s, 'unread-big-2', { subscribers: [ben, dan] });
  const db = s.running.app.store.db;
  // 50,030 unread channel messages for Dan, inserted in bulk (sending them one by one would take minutes).
  const bulk = async (ch: { id: number; recipient_id: number }, n: number, topics: number) => {
    const first = Number((await db.selectFrom('messages').select((eb) => eb.fn.max<number>('id').as('m')).executeTakeFirstOrThrow()).m) + 1;
    const ids = Array.from({ length: n }, (_, i) => first + i);
    for (let at = 0; at < n; at += 1000) {
      const part = ids.slice(at, at + 1000);
      await db
        .insertInto('messages')
        .values(part.map((id) => ({ id, realm_id: s.realm.id, type: 1, recipient_id: ch.recipient_id, stream_id: ch.id, sender_id: ben.userId, topic: `bulk ${id % topics}`, topic_key: `bulk ${id % topics}`, content: 'b', rendered_content: '<p>b</p>', date_sent: 1, sending_client: 'test', last_edit_time: null, last_moved_time: null, edit_history: null, is_me_message: 0, has_link: 0, has_image: 0, has_attachment: 0 })))
        .execute();
      await db
        .insertInto('user_messages')
        .values(part.flatMap((id) => [{ message_id: id, user_id: ben.userId, flags: 1 }, { message_id: id, user_id: dan.userId, flags: id % 997 === 0 ? 8 : 0 }]))
        .execute();
    }
    if (s.dialect === 'postgres') await sql`SELECT setval(pg_get_serial_sequence('messages', 'id'), (SELECT max(id) FROM messages))`.execute(db);
  };
  await dm(ben, [dan], 'oldest dm, beyond the cap');
  await bulk(big, 30_000, 7);
  await dm(ben, [dan], 'old dm');
  await bulk(second, 20_030, 5);
  await dm(cat, [dan, ben], 'new group dm');
  await send(ben, big.id, 'bulk 1', '@**Dan Unread** newest');
  const got = await assertSame(dan);
  assert.equal(got.old_unreads_missing, true);
  const listed = [...(got.streams as { unread_message_ids: number[] }[]), ...(got.pms as { unread_message_ids: number[] }[]), ...(got.huddles as { unread_message_ids: number[] }[])].reduce((n, g) => n + g.unread_message_ids.length, 0);
  assert.equal(listed, CAP);
});

// GET /messages: anchors, ranges, narrows, shared channel history, search, visibility and errors.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type Client, type TestServer } from './helpers/server.js';
import { newChannel, subscribe } from './helpers/messages.js';

let s: TestServer;
let ann: Client;
let ben: Client;
let late: Client;
const ids: number[] = [];
let dmId = 0;

before(async () => {
  s = await startTestServer();
  ann = await s.user('Ann Fetch');
  ben = await s.user('Ben Fetch');
  for (let i = 0; i < 6; i++) {
    const r = await ann.ok('POST', 'messages', { type: 'stream', to: 'general', topic: i % 2 ? 'odd' : 'even', content: `number ${i} banana${i === 3 ? ' kiwifruit' : ''}` });
    ids.push(r.id);
  }
  dmId = (await ann.ok('POST', 'messages', { type: 'direct', to: [ben.userId], content: 'secret kiwifruit' })).id;
  // Joins after the messages were sent: sees public history only through channel narrows.
  late = await s.user('Late Joiner');
});
after(async () => {
  await s.close();
});

const get = (c: Client, params: Record<string, unknown>) => c.ok('GET', 'messages', { num_before: 0, num_after: 0, ...params } as never);

test('newest anchor with num_before returns the latest messages oldest first', async () => {
  const r = await get(ben, { anchor: 'newest', num_before: 3 });
  assert.deepEqual(
    r.messages.map((m: any) => m.id),
    [ids[4], ids[5], dmId],
  );
  assert.equal(r.found_newest, true);
  assert.equal(r.found_oldest, false);
  assert.equal(r.history_limited, false);
  assert.equal(r.messages[0].content_type, 'text/html');
  assert.deepEqual(r.messages[2].flags, []);
});

test('integer anchors, include_anchor and found_anchor', async () => {
  const r = await get(ben, { anchor: ids[2], num_before: 1, num_after: 1 });
  assert.deepEqual(
    r.messages.map((m: any) => m.id),
    [ids[1], ids[2], ids[3]],
  );
  assert.equal(r.found_anchor, true);
  assert.equal(r.anchor, ids[2]);
  const excl = await get(ben, { anchor: String(ids[2]), num_before: 1, num_after: 1, include_anchor: false });
  assert.deepEqual(
    excl.messages.map((m: any) => m.id),
    [ids[1], ids[3]],
  );
  assert.equal(excl.found_anchor, false);
  const oldest = await get(ben, { anchor: 'oldest', num_after: 100 });
  assert.equal(oldest.found_oldest, true);
  assert.equal(oldest.found_newest, true);
});

test('first_unread anchors at the oldest unread message', async () => {
  await ben.ok('POST', 'messages/flags', { messages: [ids[0], ids[1]], op: 'add', flag: 'read' });
  const r = await get(ben, { anchor: 'first_unread', num_after: 1 });
  assert.equal(r.anchor, ids[2]);
  assert.equal(r.messages[0].id, ids[2]);
  const legacy = await ben.ok('GET', 'messages', { use_first_unread_anchor: true, num_before: 0, num_after: 0 });
  assert.equal(legacy.anchor, ids[2]);
});

test('narrows: channel, topic, sender, dm, is, search, negation, id', async () => {
  const ch = await get(ben, { anchor: 'newest', num_before: 50, narrow: [{ operator: 'channel', operand: 'general' }, { operator: 'topic', operand: 'odd' }] });
  assert.deepEqual(
    ch.messages.map((m: any) => m.id),
    [ids[1], ids[3], ids[5]],
  );
  const neg = await get(ben, { anchor: 'newest', num_before: 50, narrow: [{ operator: 'stream', operand: 'general' }, { operator: 'subject', operand: 'odd', negated: true }] });
  assert.ok(neg.messages.every((m: any) => m.subject === 'even'));
  const dm = await get(ben, { anchor: 'newest', num_before: 50, narrow: [['dm', ann.email]] });
  assert.deepEqual(
    dm.messages.map((m: any) => m.id),
    [dmId],
  );
  const dmIds = await get(ben, { anchor: 'newest', num_before: 50, narrow: [{ operator: 'dm', operand: [ann.userId] }] });
  assert.equal(dmIds.messages.length, 1);
  const incl = await get(ben, { anchor: 'newest', num_before: 50, narrow: [{ operator: 'dm-including', operand: ann.userId }] });
  assert.equal(incl.messages.length, 1);
  const priv = await get(ben, { anchor: 'newest', num_before: 50, narrow: [['is', 'dm']] });
  assert.equal(priv.messages.length, 1);
  const sender = await get(ben, { anchor: 'newest', num_before: 50, narrow: [{ operator: 'sender', operand: ann.userId }] });
  assert.equal(sender.messages.length, 7);
  const search = await get(ben, { anchor: 'newest', num_before: 50, narrow: [['search', 'kiwifruit']] });
  assert.deepEqual(
    search.messages.map((m: any) => m.id),
    [ids[3], dmId],
  );
  const quoted = await get(ben, { anchor: 'newest', num_before: 50, narrow: [['search', 'kiwi" OR banana']] });
  assert.equal(quoted.messages.length, 0);
  const unread = await get(ben, { anchor: 'newest', num_before: 50, narrow: [['is', 'unread']] });
  assert.ok(!unread.messages.some((m: any) => m.id === ids[0]));
  const byId = await get(ben, { anchor: 'newest', num_before: 50, narrow: [{ operator: 'id', operand: ids[4] }] });
  assert.deepEqual(
    byId.messages.map((m: any) => m.id),
    [ids[4]],
  );
});

test('a late joiner sees public history only in channel narrows, flagged read + historical', async () => {
  const mine = await get(late, { anchor: 'newest', num_before: 50 });
  assert.equal(mine.messages.length, 0);
  const ch = await get(late, { anchor: 'newest', num_before: 50, narrow: [{ operator: 'channel', operand: 'general' }] });
  assert.equal(ch.messages.length, 6);
  assert.deepEqual(ch.messages[0].flags, ['read', 'historical']);
  const pub = await get(late, { anchor: 'newest', num_before: 50, narrow: [{ operator: 'channels', operand: 'public' }] });
  assert.equal(pub.messages.length, 6);
  assert.equal((await late.get(`messages/${ids[0]}`)).status, 200);
  assert.equal((await late.get(`messages/${dmId}`)).status, 400);
});

test('private channels and guests do not leak history', async () => {
  const secret = await newChannel(s, 'fetch-secret', { inviteOnly: true, subscribers: [ann] });
  const m = await ann.ok('POST', 'messages', { type: 'stream', to: 'fetch-secret', topic: 't', content: 'hidden' });
  const guest = await s.user('Gina Guest', 600);
  for (const c of [ben, guest]) {
    const r = await get(c, { anchor: 'newest', num_before: 50, narrow: [{ operator: 'channel', operand: secret.id }] });
    assert.equal(r.messages.length, 0);
    assert.equal((await c.get(`messages/${m.id}`)).status, 400);
  }
  const gpub = await get(guest, { anchor: 'newest', num_before: 50, narrow: [{ operator: 'channel', operand: 'general' }] });
  assert.equal(gpub.messages.length, 0);
  // Protected history: a new subscriber does not see what was sent before they joined.
  const prot = await newChannel(s, 'fetch-protected', { inviteOnly: true, historyPublic: false, subscribers: [ann] });
  await ann.ok('POST', 'messages', { type: 'stream', to: 'fetch-protected', topic: 't', content: 'before' });
  await subscribe(s, ben, prot.id);
  const r = await get(ben, { anchor: 'newest', num_before: 50, narrow: [{ operator: 'channel', operand: prot.id }] });
  assert.equal(r.messages.length, 0);
  const other = await s.realm2('fetch-other');
  const o = await other.owner.ok('GET', 'messages', { anchor: 'newest', num_before: 50, num_after: 0 });
  assert.ok(o.messages.every((x: any) => !ids.includes(x.id)));
});

test('apply_markdown, client_gravatar and message_ids', async () => {
  const r = await get(ben, { anchor: ids[0], num_after: 0, apply_markdown: false, client_gravatar: false });
  assert.equal(r.messages[0].content, 'number 0 banana');
  assert.equal(r.messages[0].content_type, 'text/x-markdown');
  assert.match(r.messages[0].avatar_url, /gravatar/);
  const g = await get(ben, { anchor: ids[0] });
  assert.equal(g.messages[0].avatar_url, null);
  const listed = await ben.ok('GET', 'messages', { message_ids: [ids[1], ids[0], 999999] });
  assert.deepEqual(
    listed.messages.map((m: any) => m.id),
    [ids[0], ids[1]],
  );
});

test('errors: anchor, counts, narrow operators, unknown channel', async () => {
  const cases: [Record<string, unknown>, string][] = [
    [{ anchor: 'sideways', num_before: 1, num_after: 1 }, 'Invalid anchor'],
    [{ anchor: 'newest', num_before: 4000, num_after: 1001 }, 'Too many messages requested (maximum 5000).'],
    [{ anchor: 'newest', num_before: 1, num_after: 1, narrow: JSON.stringify([['bogus', 'x']]) }, 'Invalid narrow operator: unknown operator'],
    [{ anchor: 'newest', num_before: 1, num_after: 1, narrow: JSON.stringify([['channel', 'no-such-channel']]) }, 'Invalid narrow operator: unknown channel'],
  ];
  for (const [params, msg] of cases) {
    const r = await ben.get('messages', params as never);
    assert.equal(r.status, 400);
    assert.equal(r.body.code, 'BAD_REQUEST');
    assert.equal(r.body.msg, msg);
  }
  const missing = await ben.get('messages', { anchor: 'newest', num_after: 1 });
  assert.equal(missing.body.code, 'REQUEST_VARIABLE_MISSING');
  const form = await ben.api('GET', 'messages', { anchor: 'newest', num_before: 1, num_after: 0 }, { as: 'query' });
  assert.equal(form.status, 200);
});

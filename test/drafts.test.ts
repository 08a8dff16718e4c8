// Drafts: GET/POST /drafts, PATCH/DELETE /drafts/{id}, validation, ownership, the sync setting and events.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type Client, type TestServer } from './helpers/server.js';
import { expectError } from './helpers/assertions.js';
import { newChannel, queueFor } from './helpers/messages.js';

let s: TestServer;
let dot: Client;
let eli: Client;
let channelId: number;
let secretId: number;

before(async () => {
  s = await startTestServer();
  dot = await s.user('Dot Drafter');
  eli = await s.user('Eli Other');
  channelId = (await newChannel(s, 'drafting', { subscribers: [dot, eli] })).id;
  secretId = (await newChannel(s, 'drafts-secret', { inviteOnly: true, subscribers: [eli] })).id;
});
after(async () => {
  await s.close();
});


const channelDraft = (topic = 'plans', content = 'draft text') => ({ type: 'stream', to: [channelId], topic, content, timestamp: 1700000000 });

test('create, list, edit and delete drafts, with drafts events to the user only', async () => {
  const mine = await queueFor(dot, { event_types: ['drafts'] });
  const theirs = await queueFor(eli, { event_types: ['drafts'] });
  const before = s.running.app.clock.now();
  const r = await dot.ok('POST', 'drafts', {
    drafts: [channelDraft(), { type: 'private', to: [eli.userId, dot.userId, eli.userId], topic: 'ignored', content: 'dm draft' }, { type: '', to: [5], topic: 'x', content: 'loose' }],
  });
  assert.equal(r.ids.length, 3);
  const [a, b, c] = r.ids as number[];
  assert.ok(a < b && b < c);
  const list = await dot.ok('GET', 'drafts');
  assert.equal(list.count, 3);
  const byId = new Map((list.drafts as any[]).map((d) => [d.id, d]));
  assert.deepEqual(byId.get(a), { id: a, ...channelDraft() });
  const dm = byId.get(b);
  // Direct drafts: deduplicated, sorted user IDs and no topic; the server filled the timestamp.
  assert.deepEqual({ ...dm, timestamp: 0 }, { id: b, type: 'private', to: [dot.userId, eli.userId].sort((x, y) => x - y), topic: '', content: 'dm draft', timestamp: 0 });
  assert.ok(dm.timestamp >= before);
  assert.deepEqual(byId.get(c).to, []);
  assert.equal(byId.get(c).topic, '');
  // Most recently edited first.
  assert.deepEqual((list.drafts as any[]).map((d) => d.id), [c, b, a]);
  const added = await mine.events();
  assert.deepEqual(added.map((e) => [e.type, e.op, e.drafts.map((d: any) => d.id)]), [['drafts', 'add', [a, b, c]]]);
  assert.deepEqual(await theirs.events(), []);

  await dot.ok('PATCH', `drafts/${a}`, { draft: { ...channelDraft('new topic', 'edited'), timestamp: 1800000000 } });
  const [upd] = await mine.events();
  assert.deepEqual(upd, { id: upd.id, type: 'drafts', op: 'update', draft: { id: a, ...channelDraft('new topic', 'edited'), timestamp: 1800000000 } });
  assert.equal((await dot.ok('GET', 'drafts')).drafts[0].id, a);

  await dot.ok('DELETE', `drafts/${b}`);
  assert.deepEqual((await mine.events()).map((e) => [e.op, e.draft_id]), [['remove', b]]);
  assert.deepEqual((await dot.ok('GET', 'drafts')).drafts.map((d: any) => d.id), [a, c]);
  assert.deepEqual(await theirs.events(), []);
});

test('parameter forms: form, query and multipart', async () => {
  for (const as of ['form', 'query', 'multipart'] as const) {
    const r = await dot.ok('POST', 'drafts', { drafts: [channelDraft(as)] }, { as });
    await dot.ok('PATCH', `drafts/${r.ids[0]}`, { draft: channelDraft(as, 'edited') }, { as });
    await dot.ok('DELETE', `drafts/${r.ids[0]}`, {}, { as });
  }
  await dot.ok('GET', 'drafts', {}, { as: 'form' });
});

test('validation errors', async () => {
  const post = (d: unknown) => dot.post('drafts', { drafts: [d] });
  await expectError(dot.post('drafts', {}), "Missing 'drafts' argument", 400, 'REQUEST_VARIABLE_MISSING');
  await expectError(dot.post('drafts', { drafts: 'nope' }), 'Argument "drafts" is not valid JSON.');
  await expectError(dot.post('drafts', { drafts: {} }), 'drafts is not a list');
  await expectError(post({ ...channelDraft(), to: [] }), 'Must specify exactly 1 channel ID for channel messages');
  await expectError(post({ ...channelDraft(), to: [channelId, secretId] }), 'Must specify exactly 1 channel ID for channel messages');
  await expectError(post({ ...channelDraft(), to: [secretId] }), 'Invalid channel ID');
  await expectError(post({ ...channelDraft(), to: [987654] }), 'Invalid channel ID');
  await expectError(post({ type: 'private', to: [987654], topic: '', content: 'x' }), 'Invalid user ID 987654');
  await expectError(post({ ...channelDraft(), type: 'direct' }), 'Invalid drafts[0]["type"]');
  await expectError(post({ ...channelDraft(), to: ['general'] }), 'drafts[0]["to"][0] is not an integer');
  await expectError(post({ type: 'stream', to: [channelId], content: 'x' }), 'drafts[0] key is missing: topic');
  await expectError(post({ ...channelDraft(), id: 3 }), 'drafts[0] has an unexpected key: id');
  await expectError(post({ ...channelDraft(), content: 'a\u0000b' }), 'Content must not contain null bytes');
  await expectError(post({ type: 'private', to: [], topic: 'a\u0000b', content: 'x' }), 'Topic must not contain null bytes');
  await expectError(post({ ...channelDraft('t'.repeat(61)) }), 'topic is too long (limit: 60 characters)');
  await expectError(post({ ...channelDraft('t', 'c'.repeat(10001)) }), 'Content is too long (limit: 10000 characters)');
  await expectError(post({ ...channelDraft(), timestamp: 'soon' }), 'drafts[0]["timestamp"] is not a number');
  await expectError(post({ ...channelDraft(), timestamp: -5 }), 'drafts[0]["timestamp"] is out of range');
  // Nothing of a failing request is stored.
  await expectError(dot.post('drafts', { drafts: [channelDraft('kept?'), { ...channelDraft(), to: [] }] }), 'Must specify exactly 1 channel ID for channel messages');
  assert.ok(!(await dot.ok('GET', 'drafts')).drafts.some((d: any) => d.topic === 'kept?'));
  await expectError(dot.patch('drafts/1', {}), "Missing 'draft' argument", 400, 'REQUEST_VARIABLE_MISSING');
});

test("another user's draft, an unknown one, and another organization's do not exist", async () => {
  const [id] = (await dot.ok('POST', 'drafts', { drafts: [channelDraft('private')] })).ids;
  await expectError(eli.patch(`drafts/${id}`, { draft: channelDraft() }), 'Draft does not exist', 404);
  await expectError(eli.delete(`drafts/${id}`), 'Draft does not exist', 404);
  await expectError(dot.delete('drafts/99999999'), 'Draft does not exist', 404);
  await expectError(dot.patch('drafts/99999999999', { draft: channelDraft() }), 'Draft does not exist', 404);
  assert.ok(!(await eli.ok('GET', 'drafts')).drafts.some((d: any) => d.id === id));
  const other = await s.realm2('draftorg');
  assert.deepEqual((await other.owner.ok('GET', 'drafts')).drafts, []);
  await expectError(other.owner.delete(`drafts/${id}`), 'Draft does not exist', 404);
  // A channel of another organization is not a valid draft address.
  await expectError(other.owner.post('drafts', { drafts: [channelDraft()] }), 'Invalid channel ID');
  assert.equal((await dot.ok('GET', 'drafts')).drafts.filter((d: any) => d.id === id).length, 1);
});

test('with enable_drafts_synchronization off, drafts are refused, and turning it off deletes them', async () => {
  const fay = await s.user('Fay Syncless');
  const q = await queueFor(fay, { event_types: ['drafts', 'user_settings'] });
  const [id] = (await fay.ok('POST', 'drafts', { drafts: [channelDraft()] })).ids;
  await q.events();
  await fay.ok('PATCH', 'settings', { enable_drafts_synchronization: false });
  // Only the settings event: the clients keep their local copies.
  assert.deepEqual((await q.events()).map((e) => e.type), ['user_settings']);
  const rows = await s.running.app.store.db.selectFrom('drafts').select('id').where('user_id', '=', fay.userId).execute();
  assert.deepEqual(rows, []);
  const off = 'User has disabled synchronizing drafts.';
  await expectError(fay.post('drafts', { drafts: [channelDraft()] }), off);
  await expectError(fay.get('drafts'), off);
  await expectError(fay.patch(`drafts/${id}`, { draft: channelDraft() }), off);
  await expectError(fay.delete(`drafts/${id}`), off);
  const reg = await fay.ok('POST', 'register', { fetch_event_types: ['drafts'] });
  assert.deepEqual(reg.drafts, []);
  await fay.ok('PATCH', 'settings', { enable_drafts_synchronization: true });
  assert.equal((await fay.ok('POST', 'drafts', { drafts: [channelDraft()] })).ids.length, 1);
});

test('PATCH racing DELETE of the same draft: each answers success or "Draft does not exist", never a 500', async () => {
  const statuses = new Map<string, number>();
  for (let round = 0; round < 40; round++) {
    const [id] = (await dot.ok('POST', 'drafts', { drafts: [channelDraft('race', `round ${round}`)] })).ids;
    const [edit, del] = await Promise.all([dot.patch(`drafts/${id}`, { draft: channelDraft('race', 'edited') }), dot.delete(`drafts/${id}`)]);
    for (const r of [edit, del]) {
      const key = `${r.status} ${r.body.msg}`;
      statuses.set(key, (statuses.get(key) ?? 0) + 1);
      if (r.status !== 200) assert.deepEqual([r.status, r.body.msg], [404, 'Draft does not exist'], JSON.stringify(r.body));
    }
    assert.equal(del.status, 200, 'the delete always wins or runs after');
    assert.ok(!(await dot.ok('GET', 'drafts')).drafts.some((d: any) => d.id === id));
  }
  assert.ok(statuses.has('200 '), JSON.stringify([...statuses]));
});

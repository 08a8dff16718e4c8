// Saved snippets: GET/POST /saved_snippets, PATCH/DELETE /saved_snippets/{id}, errors, ownership and events.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type Client, type TestServer } from './helpers/server.js';
import { expectError } from './helpers/assertions.js';
import { queueFor } from './helpers/messages.js';

let s: TestServer;
let sam: Client;
let ted: Client;

before(async () => {
  s = await startTestServer();
  sam = await s.user('Sam Snippets');
  ted = await s.user('Ted Other');
});
after(async () => {
  await s.close();
});


test('create, list, edit and delete, with saved_snippets events to the user only', async () => {
  const mine = await queueFor(sam, { event_types: ['saved_snippets'] });
  const theirs = await queueFor(ted, { event_types: ['saved_snippets'] });
  const now = s.running.app.clock.now();
  const { saved_snippet_id: id } = await sam.ok('POST', 'saved_snippets', { title: 'Welcome', content: 'Welcome to the **team**!' });
  const { saved_snippet_id: id2 } = await sam.ok('POST', 'saved_snippets', { title: 'Bye', content: 'See you' });
  const list = (await sam.ok('GET', 'saved_snippets')).saved_snippets;
  assert.deepEqual(list.map((x: any) => x.id), [id, id2]);
  assert.deepEqual({ ...list[0], date_created: 0 }, { id, title: 'Welcome', content: 'Welcome to the **team**!', date_created: 0 });
  assert.ok(list[0].date_created >= now);
  const added = await mine.events();
  assert.deepEqual(added.map((e) => [e.op, e.saved_snippet.id]), [['add', id], ['add', id2]]);
  assert.deepEqual(added[0].saved_snippet, list[0]);

  await sam.ok('PATCH', `saved_snippets/${id}`, { title: 'Hello' });
  await sam.ok('PATCH', `saved_snippets/${id}`, { content: 'Hi there' });
  await sam.ok('PATCH', `saved_snippets/${id}`, { title: 'Hello', content: 'Hi there' });
  const updates = await mine.events();
  // The last edit changed nothing: no event.
  assert.deepEqual(updates.map((e) => [e.op, e.saved_snippet.title, e.saved_snippet.content]), [['update', 'Hello', 'Welcome to the **team**!'], ['update', 'Hello', 'Hi there']]);

  await sam.ok('DELETE', `saved_snippets/${id2}`);
  assert.deepEqual((await mine.events()).map((e) => [e.op, e.saved_snippet_id]), [['remove', id2]]);
  assert.deepEqual((await sam.ok('GET', 'saved_snippets')).saved_snippets.map((x: any) => x.id), [id]);
  assert.deepEqual(await theirs.events(), []);
  const reg = await sam.ok('POST', 'register', { fetch_event_types: ['saved_snippets'] });
  assert.deepEqual(reg.saved_snippets, [{ ...list[0], title: 'Hello', content: 'Hi there' }]);
});

test('parameter forms: form, query and multipart', async () => {
  for (const as of ['form', 'query', 'multipart'] as const) {
    const { saved_snippet_id: id } = await sam.ok('POST', 'saved_snippets', { title: `t-${as}`, content: 'c' }, { as });
    await sam.ok('PATCH', `saved_snippets/${id}`, { content: `c-${as}` }, { as });
    await sam.ok('DELETE', `saved_snippets/${id}`, {}, { as });
  }
});

test('validation errors', async () => {
  await expectError(sam.post('saved_snippets', { content: 'x' }), "Missing 'title' argument", 400, 'REQUEST_VARIABLE_MISSING');
  await expectError(sam.post('saved_snippets', { title: 'x' }), "Missing 'content' argument", 400, 'REQUEST_VARIABLE_MISSING');
  await expectError(sam.post('saved_snippets', { title: '  ', content: 'x' }), 'Title cannot be empty.');
  await expectError(sam.post('saved_snippets', { title: 'x', content: '' }), 'Content cannot be empty.');
  await expectError(sam.post('saved_snippets', { title: 'a\u0000', content: 'x' }), 'Title must not contain null bytes');
  await expectError(sam.post('saved_snippets', { title: 'x', content: 'a\u0000' }), 'Content must not contain null bytes');
  await expectError(sam.post('saved_snippets', { title: 't'.repeat(201), content: 'x' }), 'Title is too long (limit: 200 characters)');
  await expectError(sam.post('saved_snippets', { title: 't', content: 'c'.repeat(10001) }), 'Content is too long (limit: 10000 characters)');
  const { saved_snippet_id: id } = await sam.ok('POST', 'saved_snippets', { title: 'valid', content: 'x' });
  await expectError(sam.patch(`saved_snippets/${id}`, {}), 'At least one of title or content must be provided.');
  await expectError(sam.patch(`saved_snippets/${id}`, { title: '' }), 'Title cannot be empty.');
});

test("unknown IDs, another user's snippet and another organization's are BAD_REQUEST (404)", async () => {
  const { saved_snippet_id: id } = await sam.ok('POST', 'saved_snippets', { title: 'mine', content: 'x' });
  const gone = 'Saved snippet does not exist.';
  await expectError(ted.patch(`saved_snippets/${id}`, { title: 'stolen' }), gone, 404);
  await expectError(ted.delete(`saved_snippets/${id}`), gone, 404);
  await expectError(sam.patch('saved_snippets/99999999', { title: 'x' }), gone, 404);
  await expectError(sam.delete('saved_snippets/99999999999'), gone, 404);
  const other = await s.realm2('snippetorg');
  await expectError(other.owner.delete(`saved_snippets/${id}`), gone, 404);
  assert.deepEqual((await other.owner.ok('GET', 'saved_snippets')).saved_snippets, []);
  assert.deepEqual((await ted.ok('GET', 'saved_snippets')).saved_snippets, []);
  assert.ok((await sam.ok('GET', 'saved_snippets')).saved_snippets.some((x: any) => x.id === id && x.title === 'mine'));
});

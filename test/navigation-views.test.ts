// Navigation views: GET/POST /navigation_views, PATCH/DELETE /navigation_views/{fragment}, rules and events.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type Client, type TestServer } from './helpers/server.js';
import { expectError } from './helpers/assertions.js';
import { queueFor } from './helpers/messages.js';

let s: TestServer;
let nia: Client;
let oz: Client;

before(async () => {
  s = await startTestServer();
  nia = await s.user('Nia Navigator');
  oz = await s.user('Oz Other');
});
after(async () => {
  await s.close();
});


test('add built-in and custom views, update and remove them, with navigation_view events to the user only', async () => {
  const mine = await queueFor(nia, { event_types: ['navigation_view'] });
  const theirs = await queueFor(oz, { event_types: ['navigation_view'] });
  await nia.ok('POST', 'navigation_views', { fragment: 'inbox', is_pinned: false });
  await nia.ok('POST', 'navigation_views', { fragment: 'narrow/is/alerted', is_pinned: true, name: 'Alert Words' });
  assert.deepEqual((await nia.ok('GET', 'navigation_views')).navigation_views, [
    { fragment: 'inbox', is_pinned: false },
    { fragment: 'narrow/is/alerted', is_pinned: true, name: 'Alert Words' },
  ]);
  assert.deepEqual(
    (await mine.events()).map(({ id: _id, ...e }) => e),
    [
      { type: 'navigation_view', op: 'add', navigation_view: { fragment: 'inbox', is_pinned: false } },
      { type: 'navigation_view', op: 'add', navigation_view: { fragment: 'narrow/is/alerted', is_pinned: true, name: 'Alert Words' } },
    ],
  );
  // The fragment in the path keeps its slashes, plain or percent-encoded.
  await nia.ok('PATCH', 'navigation_views/narrow/is/alerted', { name: 'Watched Phrases' });
  await nia.ok('PATCH', `navigation_views/${encodeURIComponent('narrow/is/alerted')}`, { is_pinned: false, name: 'Watched Phrases' });
  await nia.ok('PATCH', 'navigation_views/inbox', { is_pinned: false });
  assert.deepEqual(
    (await mine.events()).map(({ id: _id, ...e }) => e),
    [
      { type: 'navigation_view', op: 'update', fragment: 'narrow/is/alerted', data: { name: 'Watched Phrases' } },
      { type: 'navigation_view', op: 'update', fragment: 'narrow/is/alerted', data: { is_pinned: false } },
    ],
  );
  await nia.ok('DELETE', 'navigation_views/narrow/is/alerted');
  assert.deepEqual((await mine.events()).map((e) => [e.op, e.fragment]), [['remove', 'narrow/is/alerted']]);
  const reg = await nia.ok('POST', 'register', { fetch_event_types: ['navigation_views'] });
  assert.deepEqual(reg.navigation_views, [{ fragment: 'inbox', is_pinned: false }]);
  assert.deepEqual(await theirs.events(), []);
  assert.deepEqual((await oz.ok('GET', 'navigation_views')).navigation_views, []);
});

test('parameter forms: form, query and multipart', async () => {
  for (const as of ['form', 'query', 'multipart'] as const) {
    await nia.ok('POST', 'navigation_views', { fragment: `narrow/search/${as}`, is_pinned: true, name: `Search ${as}` }, { as });
    await nia.ok('PATCH', `navigation_views/narrow/search/${as}`, { is_pinned: false }, { as });
    await nia.ok('DELETE', `navigation_views/narrow/search/${as}`, {}, { as });
  }
});

test('validation errors', async () => {
  await expectError(nia.post('navigation_views', { fragment: '  ', is_pinned: true, name: 'x' }), 'fragment cannot be blank');
  await expectError(nia.post('navigation_views', { is_pinned: true, name: 'x' }), "Missing 'fragment' argument", 400, 'REQUEST_VARIABLE_MISSING');
  await expectError(nia.post('navigation_views', { fragment: 'narrow/x' , name: 'x' }), "Missing 'is_pinned' argument", 400, 'REQUEST_VARIABLE_MISSING');
  await expectError(nia.post('navigation_views', { fragment: 'narrow/x', is_pinned: 'maybe', name: 'x' }), 'is_pinned is not a boolean');
  await expectError(nia.post('navigation_views', { fragment: 'recent', is_pinned: true, name: 'Recent stuff' }), 'Built-in views cannot have a custom name');
  await expectError(nia.post('navigation_views', { fragment: 'narrow/x', is_pinned: true }), 'Custom views must have a valid name');
  await expectError(nia.post('navigation_views', { fragment: 'narrow/x', is_pinned: true, name: ' ' }), 'Custom views must have a valid name');
  await expectError(nia.post('navigation_views', { fragment: 'narrow/\u0000', is_pinned: true, name: 'x' }), 'fragment must not contain null bytes');
  await expectError(nia.post('navigation_views', { fragment: 'narrow/x', is_pinned: true, name: 'a\u0000' }), 'name must not contain null bytes');
  await expectError(nia.post('navigation_views', { fragment: 'f'.repeat(257), is_pinned: true, name: 'x' }), 'fragment is too long (limit: 256 characters)');
  await expectError(nia.post('navigation_views', { fragment: 'narrow/x', is_pinned: true, name: 'n'.repeat(101) }), 'name is too long (limit: 100 characters)');
  await nia.ok('POST', 'navigation_views', { fragment: 'recent', is_pinned: true });
  await expectError(nia.post('navigation_views', { fragment: 'recent', is_pinned: false }), 'Navigation view already exists.');
  await expectError(nia.patch('navigation_views/recent', {}), 'At least one of is_pinned or name must be provided.');
  await expectError(nia.patch('navigation_views/recent', { name: 'Recent' }), 'Built-in views cannot have a custom name');
  await expectError(nia.patch('navigation_views/narrow/none', { is_pinned: true }), 'Navigation view does not exist.', 404);
  await expectError(nia.delete('navigation_views/narrow%00'), 'Navigation view does not exist.', 404);
});

test("another user's and another organization's views are separate", async () => {
  await nia.ok('POST', 'navigation_views', { fragment: 'narrow/is/private-to-nia', is_pinned: true, name: 'Mine' });
  await expectError(oz.patch('navigation_views/narrow/is/private-to-nia', { is_pinned: false }), 'Navigation view does not exist.', 404);
  await expectError(oz.delete('navigation_views/narrow/is/private-to-nia'), 'Navigation view does not exist.', 404);
  // The same fragment is free for another user.
  await oz.ok('POST', 'navigation_views', { fragment: 'narrow/is/private-to-nia', is_pinned: false, name: 'Also mine' });
  const other = await s.realm2('navorg');
  await expectError(other.owner.delete('navigation_views/narrow/is/private-to-nia'), 'Navigation view does not exist.', 404);
  assert.deepEqual((await other.owner.ok('GET', 'navigation_views')).navigation_views, []);
  const views = (await nia.ok('GET', 'navigation_views')).navigation_views;
  assert.ok(views.some((v: any) => v.fragment === 'narrow/is/private-to-nia' && v.is_pinned === true && v.name === 'Mine'));
});

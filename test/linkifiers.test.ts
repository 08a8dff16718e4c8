// Linkifiers: administration endpoints, validation, order, register state, events by capability, rendering.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type Client, type TestServer } from './helpers/server.js';
import { queueFor } from './helpers/messages.js';

let s: TestServer;
let mo: Client;
before(async () => {
  s = await startTestServer();
  mo = await s.user('Mo Member');
});
after(async () => {
  await s.close();
});

const CAPS = { linkifier_url_template: true };

test('add, list, update, reorder, remove; events only to clients with linkifier_url_template', async () => {
  const modern = await queueFor(mo, { event_types: ['realm_linkifiers'], client_capabilities: CAPS });
  const legacy = await queueFor(s.owner, { event_types: ['realm_linkifiers'] });
  const a = (await s.owner.ok('POST', 'realm/filters', { pattern: '#(?P<id>[0-9]+)', url_template: 'https://tracker.example/{id}' })).id;
  const b = (await s.owner.ok('POST', 'realm/filters', { pattern: 'PR-(?P<n>[0-9]+)', url_template: 'https://git.example/pull/{n}', example_input: 'PR-12', reverse_template: 'PR-{n}', alternative_url_templates: ['https://git.example/pulls/{n}'] })).id;
  let list = (await mo.ok('GET', 'realm/linkifiers')).linkifiers;
  assert.deepEqual(list, [
    { pattern: '#(?P<id>[0-9]+)', url_template: 'https://tracker.example/{id}', id: a, example_input: null, reverse_template: null, alternative_url_templates: [] },
    { pattern: 'PR-(?P<n>[0-9]+)', url_template: 'https://git.example/pull/{n}', id: b, example_input: 'PR-12', reverse_template: 'PR-{n}', alternative_url_templates: ['https://git.example/pulls/{n}'] },
  ]);
  await s.owner.ok('PATCH', 'realm/linkifiers', { ordered_linkifier_ids: [b, a] });
  list = (await mo.ok('GET', 'realm/linkifiers')).linkifiers;
  assert.deepEqual(list.map((l: any) => l.id), [b, a]);
  await s.owner.ok('PATCH', `realm/filters/${a}`, { pattern: 'T(?P<id>[0-9]+)', url_template: 'https://tracker.example/t/{id}' });
  const reg = await mo.ok('POST', 'register', { fetch_event_types: ['realm_linkifiers'], client_capabilities: CAPS });
  assert.deepEqual(reg.realm_linkifiers.map((l: any) => l.pattern), ['PR-(?P<n>[0-9]+)', 'T(?P<id>[0-9]+)']);
  const old = await mo.ok('POST', 'register', { fetch_event_types: ['realm_linkifiers'] });
  assert.deepEqual(old.realm_linkifiers, [], 'empty without linkifier_url_template');
  const id = (await mo.ok('POST', 'messages', { type: 'stream', to: 'general', topic: 'links', content: 'see T42 and PR-7' })).id;
  const m = await mo.ok('GET', `messages/${id}`);
  assert.match(m.message.content, /href="https:\/\/tracker.example\/t\/42"/);
  assert.match(m.message.content, /href="https:\/\/git.example\/pull\/7"/);
  await s.owner.ok('DELETE', `realm/filters/${a}`);
  await s.owner.ok('DELETE', `realm/filters/${b}`);
  const evs = await modern.events();
  assert.equal(evs.length, 6, "two adds, a reorder, an update, two removals");
  assert.ok(evs.every((e) => e.type === 'realm_linkifiers'));
  assert.deepEqual(evs[5].realm_linkifiers, []);
  assert.deepEqual(evs[1].realm_linkifiers.map((l: any) => l.id), [a, b]);
  assert.deepEqual(await legacy.events(), []);
});

test('errors and permissions', async () => {
  let r = await mo.post('realm/filters', { pattern: 'X(?P<id>[0-9]+)', url_template: 'https://x.example/{id}' });
  assert.deepEqual([r.status, r.body.code, r.body.msg], [400, 'UNAUTHORIZED_PRINCIPAL', 'Must be an organization administrator']);
  r = await s.owner.post('realm/filters', { url_template: 'https://x.example/{id}' });
  assert.deepEqual([r.body.code, r.body.var_name], ['REQUEST_VARIABLE_MISSING', 'pattern']);
  r = await s.owner.post('realm/filters', { pattern: 'X(' , url_template: 'https://x.example/' });
  assert.equal(r.body.msg, 'Invalid linkifier pattern.');
  r = await s.owner.post('realm/filters', { pattern: 'X(?P<id>[0-9]+)', url_template: 'https://x.example/{other}' });
  assert.match(r.body.msg, /"other"/);
  r = await s.owner.post('realm/filters', { pattern: 'X(?P<id>[0-9]+)', url_template: 'not a url {id}' });
  assert.equal(r.body.msg, 'Invalid URL template.');
  r = await s.owner.post('realm/filters', { pattern: 'X(?P<id>[0-9]+)', url_template: 'https://x.example/{id}', example_input: 'Y1' });
  assert.equal(r.body.msg, 'Example input does not match the linkifier pattern.');
  const id = (await s.owner.ok('POST', 'realm/filters', { pattern: 'X(?P<id>[0-9]+)', url_template: 'https://x.example/{id}' })).id;
  r = await s.owner.post('realm/filters', { pattern: 'X(?P<id>[0-9]+)', url_template: 'https://y.example/{id}' });
  assert.equal(r.body.msg, 'A linkifier with this pattern already exists.');
  r = await s.owner.delete('realm/filters/99999');
  assert.deepEqual([r.status, r.body.msg], [400, 'Linkifier not found.']);
  r = await s.owner.patch('realm/filters/99999', { pattern: 'Z(?P<id>[0-9]+)', url_template: 'https://x.example/{id}' });
  assert.equal(r.body.msg, 'Linkifier not found.');
  r = await s.owner.patch('realm/linkifiers', { ordered_linkifier_ids: [id, id] });
  assert.equal(r.body.msg, 'The ordered list must enumerate all existing linkifiers exactly once');
  r = await mo.patch('realm/linkifiers', { ordered_linkifier_ids: [id] });
  assert.equal(r.body.code, 'UNAUTHORIZED_PRINCIPAL');
  r = await mo.delete(`realm/filters/${id}`);
  assert.equal(r.body.code, 'UNAUTHORIZED_PRINCIPAL');
});

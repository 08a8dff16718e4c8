// A 405 lists the methods of every route entry the path matches, when several entries share a pattern.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Router } from '../src/http/router.js';
import { startTestServer, type TestServer } from './helpers/server.js';

let s: TestServer;
before(async () => {
  s = await startTestServer();
});
after(async () => {
  await s.close();
});

test('the router merges the methods of entries sharing a pattern', () => {
  const h = Object.assign(async () => ({}), { auth: 'user' as const });
  const r = new Router().add('things/{id:int}', { GET: h }).add('things/{id:int}', { PATCH: h, DELETE: h }).add('things/{name}', { GET: h, PUT: h });
  const m = r.match('POST', 'things/3');
  assert.equal(m.kind, 'method');
  assert.deepEqual(m.kind === 'method' && [...m.allowed].sort(), ['DELETE', 'GET', 'PATCH', 'PUT']);
  const found = r.match('DELETE', 'things/3');
  assert.equal(found.kind, 'found');
});

test('POST /users/{id} answers 405 naming GET, PATCH and DELETE (declared in two views)', async () => {
  const r = await s.owner.api('POST', `users/${s.owner.userId}`);
  assert.equal(r.status, 405);
  assert.equal(r.body.result, 'error');
  for (const m of ['GET', 'PATCH', 'DELETE']) assert.ok(r.body.allowed_methods.includes(m), `${m} in ${JSON.stringify(r.body.allowed_methods)}`);
});

// GET /api/v1/openapi.json: a valid OpenAPI 3.1 document, served without credentials, listing every route the server serves.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Validator } from '@seriousme/openapi-schema-validator';
import { startTestServer, request, type TestServer } from './helpers/server.js';
import { allRoutes } from '../src/http/routes.js';
import { openApiPath } from '../src/http/openapi.js';
import { isDeclared } from '../src/http/endpoint.js';

let s: TestServer;
let doc: Record<string, any>;
before(async () => {
  s = await startTestServer();
  const r = await request(s.url, 'GET', 'openapi.json', {}, { auth: null });
  assert.equal(r.status, 200, JSON.stringify(r.body).slice(0, 200));
  assert.match(String(r.headers['content-type']), /^application\/json/);
  doc = r.body;
});
after(async () => {
  await s.close();
});

test('the document is valid OpenAPI 3.1', async () => {
  assert.equal(doc.openapi, '3.1.0');
  const validator = new Validator();
  const res = await validator.validate(structuredClone(doc));
  assert.deepEqual(res.errors ?? [], []);
  assert.equal(res.valid, true);
  assert.equal(validator.version, '3.1');
});

test('every route the server serves is in the document, with its method', () => {
  const missing: string[] = [];
  let operations = 0;
  for (const [pattern, methods] of allRoutes()) {
    for (const method of Object.keys(methods)) {
      operations++;
      if (!doc.paths[openApiPath(pattern)]?.[method.toLowerCase()]) missing.push(`${method} ${pattern}`);
    }
  }
  assert.deepEqual(missing, []);
  assert.ok(operations > 100, `only ${operations} operations`);
  assert.ok(doc.paths['/openapi.json'].get, 'the document lists itself');
});

test('a declared route documents its parameters: path bounds, JSON-encoded lists, required fields, the success fields', () => {
  const add = doc.paths['/messages/{message_id}/reactions'].post;
  assert.equal(add.summary, 'Add an emoji reaction');
  assert.deepEqual(add.parameters[0].schema, { type: 'integer', minimum: 0, maximum: 2147483647 });
  const typing = doc.paths['/typing'].post.requestBody.content['application/x-www-form-urlencoded'];
  assert.deepEqual(typing.schema.required, ['op']);
  assert.deepEqual(typing.encoding.to, { contentType: 'application/json' });
  assert.equal(typing.schema.properties.to.items.maximum, 2147483647);
  const words = doc.paths['/users/me/alert_words'].get.responses['200'].content['application/json'].schema;
  assert.deepEqual(words.allOf[1].properties.alert_words, { type: 'array', items: { type: 'string' } });
  const drafts = doc.paths['/drafts'].get;
  assert.equal(drafts.parameters, undefined);
  assert.equal(doc.paths['/openapi.json'].get.security.length, 0, 'the document needs no credentials');
});

test('declared and undeclared routes are told apart', () => {
  let declared = 0;
  for (const [pattern, methods] of allRoutes()) {
    for (const [method, handler] of Object.entries(methods)) {
      const op = doc.paths[openApiPath(pattern)][method.toLowerCase()];
      assert.equal(op['x-parley-undeclared'] === true, !isDeclared(handler!), `${method} ${pattern}`);
      if (isDeclared(handler!)) declared++;
    }
  }
  assert.ok(declared >= 12, `${declared} declared`);
});

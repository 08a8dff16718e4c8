// Every declared route, sent out-of-range integers, NUL bytes and wrong JSON in each declared parameter and path ID, answers a JSON 4xx, never a 5xx.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, request, type TestServer } from './helpers/server.js';
import { allRoutes } from '../src/http/routes.js';
import { isDeclared } from '../src/http/endpoint.js';
import type { ParamDecl } from '../src/core/param-types.js';
import { NON_API_ROUTE } from '../src/http/router.js';

let s: TestServer;
before(async () => {
  s = await startTestServer();
  // Something to point at: a message (ID 1 in a fresh database) and a draft.
  await s.owner.ok('POST', 'messages', { type: 'stream', to: 'general', topic: 'damage', content: 'target' });
});
after(async () => {
  await s.close();
});

const OUT_OF_RANGE = ['2147483648', '-2147483649', '99999999999999999999', '1.5', ''];
const NUL = ['a\u0000b', '\u0000'];
const WRONG_JSON = ['{', '[2147483648]', '[-1, 1e10]', '"x"', '{"a":1}', '[null]', 'null', '[[[]]]'];

/** Damaged values for one declared parameter, by what its schema says it holds. */
function damaged(decl: ParamDecl): string[] {
  const type = (decl.schema as { type?: string }).type;
  if (decl.json) return [...WRONG_JSON, ...NUL];
  if (type === 'integer') return [...OUT_OF_RANGE, ...NUL];
  return [...NUL, ...OUT_OF_RANGE];
}

function concretePath(pattern: string, id: string): string {
  return pattern
    .split('/')
    .map((seg) => {
      const m = /^\{(\w+)(:int|:path)?\}$/.exec(seg);
      return !m ? seg : m[2] === ':int' ? id : 'x';
    })
    .join('/');
}

test('declared routes: out-of-range integers, NUL bytes and wrong JSON answer a JSON 4xx', { timeout: 240_000 }, async () => {
  const failures: string[] = [];
  let calls = 0;
  let routes = 0;
  const auth = { email: s.owner.email, apiKey: s.owner.apiKey };
  for (const [pattern, methods] of allRoutes()) {
    if (pattern.startsWith(NON_API_ROUTE)) continue;
    for (const [method, handler] of Object.entries(methods)) {
      if (!handler || !isDeclared(handler)) continue;
      routes++;
      const { params, path } = handler.declaration;
      const call = async (apiPath: string, sent: Record<string, string>, mustRefuse: boolean) => {
        const r = await request(s.url, method, apiPath, sent, { auth });
        calls++;
        const label = `${method} ${apiPath} ${JSON.stringify(sent).slice(0, 80)} → ${r.status} ${JSON.stringify(r.body).slice(0, 120)}`;
        if (r.status >= 500 || typeof r.body.result !== 'string') failures.push(label);
        else if (mustRefuse && r.status < 400) failures.push(`accepted: ${label}`);
      };
      // Path IDs beyond 32 bits: refused as the route refuses an unknown ID.
      if (Object.keys(path).length) for (const id of ['2147483648', '99999999999999999999']) await call(concretePath(pattern, id), {}, true);
      const apiPath = concretePath(pattern, '1');
      for (const [name, decl] of Object.entries(params)) {
        for (const value of damaged(decl)) {
          await call(apiPath, { [name]: value }, false);
        }
        const type = (decl.schema as { type?: string }).type;
        // An integer beyond what the database stores is never accepted.
        if (type === 'integer') await call(apiPath, { [name]: '2147483648' }, true);
      }
    }
  }
  assert.ok(routes >= 12, `only ${routes} declared routes`);
  assert.ok(calls > 200, `only ${calls} calls`);
  assert.deepEqual(failures, []);
});

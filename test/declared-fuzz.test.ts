// Property-based fuzzing of every declared route: parameters drawn from each declaration's schema, valid-shaped
// and damaged, sent by four kinds of caller; no answer is a 5xx and every error is the JSON envelope.
// PARLEY_FUZZ_RUNS sets the number of requests (default: a few seconds' worth; PARLEY_FUZZ_LONG=1: 100,000); PARLEY_FUZZ_SEED replays a run.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { startTestServer, request, type TestServer } from './helpers/server.js';
import type { ParamDecl } from '../src/core/param-types.js';
import { declaredRoutes, pathSegments, routePath, valid, type Route, type Schema } from './helpers/route-fuzz.js';

/** PARLEY_FUZZ_LONG=1 (or --long): 100,000 requests, for a closing run rather than every CI run. */
const LONG = process.env.PARLEY_FUZZ_LONG === '1' || process.argv.includes('--long');
const RUNS = Number(process.env.PARLEY_FUZZ_RUNS ?? (LONG ? 100_000 : 200));
/** PARLEY_FUZZ_MAX_MS: a long run stops sending after this long (the checks after it still run); the summary gives the count. */
const MAX_MS = process.env.PARLEY_FUZZ_MAX_MS === undefined ? undefined : Number(process.env.PARLEY_FUZZ_MAX_MS);
const SEED = process.env.PARLEY_FUZZ_SEED === undefined ? undefined : Number(process.env.PARLEY_FUZZ_SEED);

type Auth = { email: string; apiKey: string } | null;
let s: TestServer;
const callers: Record<string, Auth> = { none: null };

before(async () => {
  s = await startTestServer();
  const guest = await s.user('Gina Guest', 600);
  const admin = await s.user('Adam Admin', 200);
  // Another organization's member presents valid credentials to this one: they name nobody here.
  const other = await s.realm2('fuzzother');
  callers.guest = { email: guest.email, apiKey: guest.apiKey };
  callers.admin = { email: admin.email, apiKey: admin.apiKey };
  callers.other_realm = { email: other.owner.email, apiKey: other.owner.apiKey };
  // Something for IDs to point at: a message, a user group.
  await s.owner.ok('POST', 'messages', { type: 'stream', to: 'general', topic: 'fuzz', content: 'target' });
});
after(async () => {
  await s.close();
});

/** Text a careless or hostile client sends in place of any parameter. */
const DAMAGED = fc.oneof(
  fc.constantFrom('', 'abc', '1.5', '-1', '1e400', 'NaN', 'true', 'null', '2147483648', '-2147483649', '99999999999999999999', '9007199254740993'),
  fc.constantFrom('a\u0000b', '\u0000', '"\u0000"', '["\u0000"]', '{"\u0000":1}'),
  fc.constantFrom('{', '[', '[1,', '"x', '{"a":1}', '[2147483648]', '[-1, 1e10]', '[null]', '[[[]]]', '{"new": {"direct_members": [null]}}', '[{"operator": "stream", "operand": "\u0000"}]'),
  fc.constantFrom('x'.repeat(6_000), '['.repeat(3000), '9'.repeat(400)),
  fc.string({ unit: 'binary', maxLength: 30 }),
);

/** A parameter as form text: its declared shape (JSON for lists and objects), damaged, or left out. */
function paramText(decl: ParamDecl): fc.Arbitrary<string | undefined> {
  const shaped = valid(decl.schema as Schema).map((v) => (decl.json || (typeof v === 'object' && v !== null) ? JSON.stringify(v) : String(v)));
  return fc.oneof({ weight: 4, arbitrary: shaped }, { weight: 3, arbitrary: DAMAGED }, { weight: 1, arbitrary: fc.constant(undefined) });
}

/** A path segment: an ID near the edges or past them, or a name with bad escapes and NUL bytes. */
function pathText(isInt: boolean): fc.Arbitrary<string> {
  if (isInt) return fc.constantFrom('0', '1', '2', '3', '999999', '2147483647', '2147483648', '99999999999999999999');
  return fc.oneof(fc.constantFrom('x', 'smile', 'owner%40example.com', '%00', 'a%00b', '%E0%A4%A', '%', 'x'.repeat(300)), fc.stringMatching(/^[a-z0-9_]{1,12}$/));
}

/** One request: a route, who sends it, its path segments and parameters. */
function requestFor(route: Route) {
  const segments = pathSegments(route.pattern).map((p) => pathText(p.isInt));
  const params = Object.fromEntries(Object.entries(route.handler.declaration.params).map(([name, decl]) => [name, paramText(decl)]));
  return fc.record({ route: fc.constant(route), caller: fc.constantFrom(...Object.keys(callers)), segments: fc.tuple(...segments), params: fc.record(params), overlong: fc.integer({ min: 0, max: 19 }).map((n) => n === 0) });
}

test('declared routes, fuzzed: no 5xx, every error the JSON envelope, for no auth, a guest, another organization and an admin', { timeout: Math.max(600_000, RUNS * 30) }, async () => {
  const routes = declaredRoutes();
  assert.ok(routes.length >= 40, `only ${routes.length} declared routes`);
  const failures: string[] = [];
  let calls = 0;
  let serverErrors = 0;
  const started = Date.now();
  const property = fc.asyncProperty(fc.oneof(...routes.map(requestFor)), async ({ route, caller, segments, params, overlong }) => {
    const form = new URLSearchParams();
    for (const [k, v] of Object.entries(params)) if (v !== undefined) form.set(k, v);
    const encoded = form.toString();
    let apiPath = routePath(route.pattern, segments).slice('/api/v1/'.length);
    if (route.method === 'GET' && encoded) apiPath += '?' + encoded;
    // A body far past any limit: refused whole, before any route (413), never a 5xx.
    const body = route.method !== 'GET' && overlong ? encoded + '&padding=' + 'x'.repeat(300_000) : encoded;
    // A raw body: the fuzzer's own encoding, and no conformance check of the (random) successes.
    const r = await request(s.url, route.method, apiPath, {}, {
      auth: callers[caller],
      rawBody: route.method === 'GET' ? '' : body,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    calls++;
    if (r.status >= 500) serverErrors++;
    // A long run says how far it got, so that a run stopped early still has figures.
    if (calls % 10_000 === 0) console.log(`fuzz: ${calls} requests so far, ${Date.now() - started} ms, 5xx: ${serverErrors}`);
    const label = `${caller} ${route.method} ${apiPath.slice(0, 120)} ${encoded.slice(0, 160)} → ${r.status} ${JSON.stringify(r.body).slice(0, 160)}`;
    const b = r.body;
    const envelope = b.result === 'error' && typeof b.msg === 'string' && typeof b.code === 'string';
    // A request line past the header limit is refused by the HTTP layer before any route (431, no body).
    if (r.status === 431 && apiPath.length > 8_000) return true;
    if (r.status >= 500) failures.push(label);
    else if (r.status >= 400 && !envelope) failures.push(`not the error envelope: ${label}`);
    else if (r.status < 400 && !route.handler.declaration.raw && b.result !== 'success') failures.push(`not a success envelope: ${label}`);
    return failures.length === 0;
  });
  try {
    await fc.assert(property, { numRuns: RUNS, seed: SEED, endOnFailure: true, interruptAfterTimeLimit: MAX_MS, markInterruptAsFailure: false });
  } catch (err) {
    // The failures list names every bad answer; fast-check's report adds the seed to replay it.
    assert.deepEqual(failures, [], String((err as Error).message).slice(0, 400));
  }
  console.log(`fuzz: ${calls} requests over ${routes.length} declared routes in ${Date.now() - started} ms, 5xx: ${serverErrors}`);
  assert.ok(calls >= Math.min(RUNS, 50) || MAX_MS !== undefined, `only ${calls} calls`);
  assert.deepEqual(failures, []);
});

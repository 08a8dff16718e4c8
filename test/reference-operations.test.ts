// Every operation of the reference (../shared/reference/zulip-openapi.yaml) is served: a request to
// each must not meet the route table's 404 or 405. Operations not served yet are listed below;
// the test also fails when one of them is served, so the list stays true as it shrinks.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from './helpers/server.js';
import { loadReferenceDocument, referencePath } from './helpers/conformance.js';

/** Not part of the API a client calls (development-only, documentation pages, the outgoing-webhook payload, exports). */
const EXCLUDED = new Set(['/dev_fetch_api_key', '/dev_list_users', '/real-time', '/rest-error-handling', '/zulip-outgoing-webhook', '/export/realm', '/export/realm/{export_id}', '/export/realm/consents']);

/** Known missing: "METHOD /path" as the reference writes it. Remove an entry when its operation is served. */
const KNOWN_MISSING = new Set<string>([
]);

/** The reference's brand-named paths under Parley's neutral names (shared/README.md). */
const PARLEY_PATH: Record<string, string> = { '/calls/zoom/create': '/calls/videoprovider/create' };

/** Parameters that keep a probe short: GET /events without a queue registers one and would wait for events. */
const PROBE_PARAMS: Record<string, Record<string, string>> = { 'GET /events': { dont_block: 'true' } };

/** A value for each path parameter: an ID nobody has, or a plausible name. */
function fill(template: string, realmId: number): string {
  return template.replace(/\{([^}]+)\}/g, (_, name: string) => {
    if (name === 'realm_id_str') return String(realmId);
    if (name === 'filename') return 'ab/cdef/none.txt';
    if (name === 'email' || name === 'user_id_or_email') return 'nobody@example.com';
    if (name === 'emoji_name') return 'no_such_emoji';
    if (name === 'domain') return 'example.com';
    if (name === 'fragment') return 'no-such-view';
    return '999999';
  });
}

let s: TestServer;
before(async () => {
  s = await startTestServer();
});
after(async () => {
  await s.close();
});

test('every operation of the reference answers something other than the route table’s 404 or 405', { skip: referencePath() ? false : 'no ../shared/reference' }, async (t) => {
  const doc = loadReferenceDocument(referencePath()!) as { paths: Record<string, Record<string, unknown>> };
  const missing: string[] = [];
  const nowServed: string[] = [];
  let probes = 0;
  let caller = await s.user('Probe 0');
  for (const [template, item] of Object.entries(doc.paths)) {
    if (EXCLUDED.has(template)) continue;
    for (const method of ['get', 'post', 'put', 'patch', 'delete']) {
      if (!item[method]) continue;
      const key = `${method.toUpperCase()} ${template}`;
      const apiPath = fill(PARLEY_PATH[template] ?? template, s.realm.id).slice(1);
      const params = PROBE_PARAMS[key] ?? {};
      let r = await caller.api(method.toUpperCase(), apiPath, params);
      // Some operations end their caller (DELETE /users/me, a new API key): go on as a new member.
      if (r.status === 401) {
        caller = await s.user(`Probe ${++probes}`);
        r = await caller.api(method.toUpperCase(), apiPath, params);
      }
      const unrouted = r.status === 405 || (r.status === 404 && r.body?.msg === 'Not Found' && r.body?.code === 'BAD_REQUEST');
      if (unrouted) missing.push(key);
      if (unrouted && !KNOWN_MISSING.has(key) && !process.env.PARLEY_LIST_MISSING) assert.fail(`${key} answers ${r.status} (not routed) and is not on the known-missing list`);
      if (!unrouted && KNOWN_MISSING.has(key)) nowServed.push(key);
    }
  }
  t.diagnostic(`${missing.length} reference operations not served yet:\n${missing.join('\n')}`);
  const unknown = [...KNOWN_MISSING].filter((k) => !missing.includes(k) && !nowServed.includes(k));
  assert.deepEqual(nowServed, [], `served now; remove from KNOWN_MISSING: ${nowServed.join(', ')}`);
  assert.deepEqual(unknown, [], 'KNOWN_MISSING names operations the reference does not have');
});

// Unit tests of the request-target fast path (it must give exactly what `new URL` gives), the router, and result writing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { IncomingMessage, ServerResponse } from 'node:http';
import { respond, splitTarget } from './server.js';
import { Params } from '../core/params.js';
import { Router } from './router.js';

test('splitTarget agrees with new URL on plain and unusual targets', () => {
  const targets = [
    '/api/v1/events?queue_id=a-b&last_event_id=3',
    '/api/v1/events',
    '/api/v1/events/',
    '/api/v1/users/bob%40example.com',
    '/api/v1/users/bob@example.com?x=1&y=%20+2',
    '/api/v1/messages/12/reactions?emoji_name=%F0%9F%98%80',
    '/api/v1/../v1/events?q=1',
    '/api/v1/./events',
    '/api/v1/%2e%2E/events',
    '/api/v1/events#frag',
    '/api/v1/events?q=a#frag',
    '/api/v1/a b',
    '/api/v1/x"y<z>?q="<>\'',
    '/api/v1/\u00e9t\u00e9?q=\u00e9',
    '//api/v1/events',
    '/api\\v1\\events',
    '/other',
    '/',
  ];
  for (const t of targets) {
    const url = new URL(t, 'http://x');
    const got = splitTarget(t);
    assert.equal(got.pathname, url.pathname, t);
    assert.deepEqual([...new URLSearchParams(got.query)], [...url.searchParams], t);
  }
});

test('the router indexed by first segment keeps table order, 404 and 405', () => {
  const h = Object.assign(async () => ({}), { auth: 'user' as const });
  const h2 = Object.assign(async () => ({}), { auth: 'user' as const });
  const r = new Router()
    .add('users/me', { GET: h })
    .add('users/{user_id:int}', { GET: h2, PATCH: h2 })
    .add('users/{email}', { GET: h })
    .add('{anything}/x', { DELETE: h2 });
  const me = r.match('GET', 'users/me');
  assert.equal(me.kind === 'found' && me.handler, h);
  const byId = r.match('GET', 'users/12');
  assert.deepEqual(byId.kind === 'found' && byId.pathParams, { user_id: '12' });
  const byEmail = r.match('GET', 'users/a%40b');
  assert.deepEqual(byEmail.kind === 'found' && byEmail.pathParams, { email: 'a@b' });
  assert.deepEqual(r.match('POST', 'users/12'), { kind: 'method', allowed: ['GET', 'PATCH'] });
  assert.equal(r.match('GET', 'nothing/here/at/all').kind, 'none');
  assert.equal(r.match('DELETE', 'users/x').kind, 'found');
  assert.equal(r.match('DELETE', 'other/x').kind, 'found');
});

test('a {name:path} parameter takes the remaining segments, slashes (plain or encoded) included', () => {
  const h = Object.assign(async () => ({}), { auth: 'user' as const });
  const r = new Router().add('views/{fragment:path}', { PATCH: h });
  const plain = r.match('PATCH', 'views/narrow/is/alerted');
  assert.deepEqual(plain.kind === 'found' && plain.pathParams, { fragment: 'narrow/is/alerted' });
  const encoded = r.match('PATCH', 'views/narrow%2Fis%2Fstarred');
  assert.deepEqual(encoded.kind === 'found' && encoded.pathParams, { fragment: 'narrow/is/starred' });
  assert.equal(r.match('PATCH', 'views').kind, 'none');
});

/** A response whose head and body are recorded instead of sent. */
function recordedResponse() {
  const res = new ServerResponse(new IncomingMessage(new net.Socket()));
  const out = { status: 0, body: '' };
  res.writeHead = ((status: number) => {
    out.status = status;
    return res;
  }) as typeof res.writeHead;
  res.end = ((body: string) => {
    out.body = body;
    return res;
  }) as typeof res.end;
  return { res, out };
}

test('a result that cannot be serialized is answered 500 and reported, not thrown', () => {
  const unexpected: unknown[] = [];
  const ids: string[] = [];
  const ok = recordedResponse();
  respond(ok.res, new Params({ raw: new Map([['stray', '1']]), used: new Set() }).ignored(), { n: 1 }, (e) => unexpected.push(e));
  assert.equal(ok.out.status, 200);
  assert.deepEqual(JSON.parse(ok.out.body), { result: 'success', msg: '', n: 1, ignored_parameters_unsupported: ['stray'] });
  const bad = recordedResponse();
  respond(bad.res, [], { n: 10n }, (e, id) => {
    unexpected.push(e);
    ids.push(id);
  });
  assert.equal(bad.out.status, 500);
  // A code of its own, and the ID the log line carries, so that a client's report can be found.
  assert.deepEqual(JSON.parse(bad.out.body), { result: 'error', msg: 'Internal server error', code: 'INTERNAL_SERVER_ERROR', request_id: ids[0] });
  assert.match(ids[0], /^[A-Za-z0-9_-]{8}-[0-9a-z]+$/);
  assert.equal(unexpected.length, 1);
});

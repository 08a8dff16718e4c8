// Webex calls (the OAuth flow, has_webex_token, meeting creation, a refused token) and Constructor Groups
// calls, against local stand-ins that check what the real services check.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { createHash } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { startTestServer, type Client, type TestServer } from './helpers/server.js';
import { checkConsistency } from './helpers/events.js';

const CLIENT_ID = 'webex-client';
const CLIENT_SECRET = 'webex-secret';
const CG_ACCESS = 'cg-access';
const CG_SECRET = 'cg-secret';
let fake: http.Server;
let base = '';
/** Access tokens the stand-in accepts; a test revokes one to see the server forget it. */
const goodTokens = new Set<string>();
let tokenCount = 0;
let freeOrg = false;
const meetings: Record<string, unknown>[] = [];
const cgRooms: Record<string, unknown>[] = [];
let s: TestServer;
let plain: TestServer;
let ann: Client;
let ben: Client;

function send(res: http.ServerResponse, status: number, body: unknown): void {
  res.statusCode = status;
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify(body));
}

before(async () => {
  fake = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const url = req.url ?? '';
      if (url === '/webex/v1/access_token') {
        const f = new URLSearchParams(raw);
        if (f.get('client_id') !== CLIENT_ID || f.get('client_secret') !== CLIENT_SECRET) return send(res, 401, { error: 'invalid_client' });
        if (f.get('grant_type') === 'authorization_code' && f.get('code') === 'good-code' && f.get('redirect_uri')?.endsWith('/calls/webex/complete')) {
          const t = `access-${++tokenCount}`;
          goodTokens.add(t);
          return send(res, 200, { access_token: t, refresh_token: 'refresh-1', expires_in: 1209600 });
        }
        return send(res, 400, { error: 'invalid_grant' });
      }
      const bearer = (req.headers.authorization ?? '').replace(/^Bearer /, '');
      if (url === '/webex/v1/rooms' || url === '/webex/v1/meetings') {
        if (!goodTokens.has(bearer)) return send(res, 401, { message: 'The request requires a valid access token set in the Authorization request header.' });
        const body = JSON.parse(raw) as Record<string, unknown>;
        if (url === '/webex/v1/rooms') return freeOrg ? send(res, 403, { message: 'Spaces belonging to a free org cannot be made public' }) : send(res, 200, { id: `room-${meetings.length + 1}`, ...body });
        meetings.push(body);
        return send(res, 200, { id: `m${meetings.length}`, webLink: `https://example.webex.com/meet/m${meetings.length}` });
      }
      if (url === '/cg/xapi/room/default') {
        const want = `${CG_ACCESS}|${createHash('sha256').update(`${CG_ACCESS}|${CG_SECRET}`).digest('hex')}`;
        if (req.headers.authorization !== `Bearer ${want}`) return send(res, 401, { error: 'unauthorized' });
        const body = JSON.parse(raw) as Record<string, unknown>;
        cgRooms.push(body);
        return send(res, 200, { id: 'r1', url: 'https://example.constructor.app/groups/room/r1' });
      }
      send(res, 404, {});
    });
  });
  await new Promise<void>((r) => fake.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(fake.address() as AddressInfo).port}`;
  s = await startTestServer({
    env: {
      PARLEY_WEBEX_CLIENT_ID: CLIENT_ID,
      PARLEY_WEBEX_CLIENT_SECRET: CLIENT_SECRET,
      PARLEY_WEBEX_API_URL: `${base}/webex/v1/`,
      PARLEY_CONSTRUCTOR_GROUPS_URL: `${base}/cg/xapi`,
      PARLEY_CONSTRUCTOR_GROUPS_ACCESS_KEY: CG_ACCESS,
      PARLEY_CONSTRUCTOR_GROUPS_SECRET_KEY: CG_SECRET,
    },
  });
  plain = await startTestServer();
  ann = await s.user('Ann Webex');
  ben = await s.user('Ben Webex');
});
after(async () => {
  await s.close();
  await plain.close();
  await new Promise((r) => fake.close(r));
});

/** A browser step of the flow, signed in as `c` (the web routes take API credentials too). */
function browse(c: Client, path: string): Promise<Response> {
  return fetch(new URL(path, s.url), { redirect: 'manual', headers: { authorization: 'Basic ' + Buffer.from(`${c.email}:${c.apiKey}`).toString('base64') } });
}

/** Starts the flow as `c` and returns the state Parley gave Webex. */
async function startFlow(c: Client): Promise<string> {
  const r = await browse(c, '/calls/webex/register');
  assert.equal(r.status, 302);
  const to = new URL(r.headers.get('location')!);
  assert.equal(`${to.origin}${to.pathname}`, `${base}/webex/v1/authorize`);
  assert.equal(to.searchParams.get('client_id'), CLIENT_ID);
  assert.equal(to.searchParams.get('response_type'), 'code');
  assert.ok(to.searchParams.get('redirect_uri')!.endsWith('/calls/webex/complete'));
  return to.searchParams.get('state')!;
}

test('without the settings: the original errors', async () => {
  const w = await plain.owner.post('calls/webex/create');
  assert.deepEqual([w.status, w.body.msg, w.body.code], [400, 'Webex credentials have not been configured', 'BAD_REQUEST']);
  const c = await plain.owner.post('calls/constructorgroups/create');
  assert.deepEqual([c.status, c.body.msg], [400, 'Constructor Groups credentials have not been configured']);
  const reg = await plain.owner.ok('POST', 'register', { fetch_event_types: ['video_calls'] });
  assert.equal(reg.has_webex_token, false);
});

test('no credentials: 401', async () => {
  const r = await fetch(new URL('/api/v1/calls/webex/create', s.url), { method: 'POST' });
  assert.equal(r.status, 401);
  const c = await fetch(new URL('/api/v1/calls/constructorgroups/create', s.url), { method: 'POST' });
  assert.equal(c.status, 401);
});

test('Webex: before authorizing, the original INVALID_VIDEO_CALL_PROVIDER_TOKEN error', async () => {
  const r = await ann.post('calls/webex/create');
  assert.deepEqual([r.status, r.body.msg, r.body.code], [400, 'Invalid Webex access token', 'INVALID_VIDEO_CALL_PROVIDER_TOKEN']);
});

test('Webex: a state made for another user, a bad code or bad input do not authorize', async () => {
  const state = await startFlow(ann);
  const forged = await browse(ben, `/calls/webex/complete?code=good-code&state=${encodeURIComponent(state)}`);
  assert.equal(forged.status, 400);
  assert.equal(((await forged.json()) as any).msg, 'Invalid Webex session identifier');
  const badCode = await browse(ann, `/calls/webex/complete?code=stolen&state=${encodeURIComponent(state)}`);
  assert.equal(((await badCode.json()) as any).msg, 'Invalid Webex credentials');
  const noCode = await browse(ann, `/calls/webex/complete?state=${encodeURIComponent(state)}`);
  assert.equal(((await noCode.json()) as any).msg, "Missing 'code' argument");
  const notJson = await browse(ann, '/calls/webex/complete?code=good-code&state=nope');
  assert.equal(notJson.status, 400);
  for (const c of [ann, ben]) assert.equal((await c.ok('POST', 'register', { fetch_event_types: ['video_calls'] })).has_webex_token, false);
});

test('Webex: completing the flow sends has_webex_token; calls are then created; a refused token is forgotten', async () => {
  const state = await startFlow(ann);
  const events = await checkConsistency(
    ann,
    async () => {
      const done = await browse(ann, `/calls/webex/complete?code=good-code&state=${encodeURIComponent(state)}`);
      assert.equal(done.status, 200);
      assert.match(done.headers.get('content-type') ?? '', /text\/html/);
    },
    { register: { fetch_event_types: ['video_calls'] }, expect: ['has_webex_token'] },
  );
  assert.deepEqual(events.map(({ id: _i, ...e }) => e), [{ type: 'has_webex_token', value: true }]);
  assert.equal((await ann.ok('POST', 'register', {})).has_webex_token, true);
  assert.equal((await ben.ok('POST', 'register', { fetch_event_types: ['video_calls'] })).has_webex_token, false);

  // A paid organization: an ad-hoc meeting in a new public room.
  const call = await ann.ok('POST', 'calls/webex/create');
  assert.equal(call.url, `https://example.webex.com/meet/m${meetings.length}`);
  assert.equal(meetings.at(-1)!.adhoc, true);
  assert.match(String(meetings.at(-1)!.roomId), /^room-/);
  // A free one: the personal room, for the next 40 minutes.
  freeOrg = true;
  await ann.ok('POST', 'calls/webex/create');
  freeOrg = false;
  const personal = meetings.at(-1)!;
  assert.equal(personal.scheduledType, 'personalRoomMeeting');
  assert.equal((Date.parse(String(personal.end)) - Date.parse(String(personal.start))) / 60000, 40);
  // Ben has not authorized: his own error, Ann's token is not used for him.
  assert.equal((await ben.post('calls/webex/create')).body.code, 'INVALID_VIDEO_CALL_PROVIDER_TOKEN');

  // Webex stops accepting the token: the error, and has_webex_token false.
  goodTokens.clear();
  const gone = await checkConsistency(
    ann,
    async () => {
      const r = await ann.post('calls/webex/create');
      assert.deepEqual([r.status, r.body.code], [400, 'INVALID_VIDEO_CALL_PROVIDER_TOKEN']);
    },
    { register: { fetch_event_types: ['video_calls'] }, expect: ['has_webex_token'] },
  );
  assert.deepEqual(gone.map((e) => e.value), [false]);
});

test('Webex: a completion on another organization’s host goes to the organization that started it', async () => {
  const { owner, host } = await s.realm2('webexorg');
  // fetch() does not let a request name its own Host: node:http does.
  const location = await new Promise<string>((resolve, reject) => {
    const u = new URL(s.url);
    http
      .get({ hostname: u.hostname, port: u.port, path: '/calls/webex/register', headers: { host: `${host}:${u.port}`, authorization: 'Basic ' + Buffer.from(`${owner.email}:${owner.apiKey}`).toString('base64') } }, (res) => {
        res.resume();
        resolve(String(res.headers.location));
      })
      .on('error', reject);
  });
  const state = new URL(location).searchParams.get('state')!;
  assert.equal(JSON.parse(state).realm, 'webexorg');
  const r = await browse(ann, `/calls/webex/complete?code=good-code&state=${encodeURIComponent(state)}`);
  assert.equal(r.status, 302);
  const to = new URL(r.headers.get('location')!);
  assert.equal(to.hostname, 'webexorg.localhost');
  assert.equal(to.pathname, '/calls/webex/complete');
  assert.equal(to.searchParams.get('state'), state);
});

test('Constructor Groups: the creator’s default room, signed with the server’s keys', async () => {
  const r = await ann.ok('POST', 'calls/constructorgroups/create');
  assert.equal(r.url, 'https://example.constructor.app/groups/room/r1');
  assert.deepEqual(cgRooms.at(-1), { creator_email: ann.email, name: "Ann Webex's Parley room", fallback_name: `Ann Webex's Parley room (${s.realm.id}-${ann.userId})` });
});

test('Constructor Groups: a service that refuses the keys gives the original error', async () => {
  const wrong = await startTestServer({ env: { PARLEY_CONSTRUCTOR_GROUPS_URL: `${base}/cg/xapi`, PARLEY_CONSTRUCTOR_GROUPS_ACCESS_KEY: CG_ACCESS, PARLEY_CONSTRUCTOR_GROUPS_SECRET_KEY: 'wrong' } });
  try {
    const r = await wrong.owner.post('calls/constructorgroups/create');
    assert.deepEqual([r.status, r.body.msg], [400, 'Failed to create Constructor Groups call']);
  } finally {
    await wrong.close();
  }
});

// BigBlueButton and Nextcloud Talk calls against a local stand-in for each service that checks what a real one checks.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { createHash } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { startTestServer, type Client, type TestServer } from './helpers/server.js';

const SECRET = 'bbb-shared-secret';
let fake: http.Server;
let base = '';
const bbbCreates: URLSearchParams[] = [];
const talkRooms: { auth: string | undefined; body: string }[] = [];
let s: TestServer;
let plain: TestServer;
let ann: Client;
let ben: Client;

/** BBB's rule: the checksum is sha256(call + query without checksum + secret). */
function validChecksum(call: string, rawQuery: string): boolean {
  const i = rawQuery.lastIndexOf('&checksum=');
  if (i < 0) return false;
  return createHash('sha256').update(call + rawQuery.slice(0, i) + SECRET).digest('hex') === rawQuery.slice(i + '&checksum='.length);
}

before(async () => {
  fake = http.createServer((req, res) => {
    const [path, rawQuery = ''] = (req.url ?? '').split('?');
    if (path === '/bigbluebutton/api/create') {
      const ok = validChecksum('create', rawQuery);
      if (ok) bbbCreates.push(new URLSearchParams(rawQuery));
      res.end(ok ? '<response><returncode>SUCCESS</returncode></response>' : '<response><returncode>FAILED</returncode><messageKey>checksumError</messageKey></response>');
      return;
    }
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      talkRooms.push({ auth: req.headers.authorization, body });
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ ocs: { meta: { status: 'ok' }, data: { token: `room${talkRooms.length}` } } }));
    });
  });
  await new Promise<void>((r) => fake.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(fake.address() as AddressInfo).port}`;
  s = await startTestServer({
    env: {
      PARLEY_BBB_URL: `${base}/bigbluebutton/`,
      PARLEY_BBB_SECRET: SECRET,
      PARLEY_NEXTCLOUD_TALK_URL: `${base}/nc`,
      PARLEY_NEXTCLOUD_TALK_USER: 'parley-bot',
      PARLEY_NEXTCLOUD_TALK_PASSWORD: 'app-pass',
    },
  });
  plain = await startTestServer();
  ann = await s.user('Ann Caller');
  ben = await s.user('Ben Joiner');
});
after(async () => {
  await s.close();
  await plain.close();
  await new Promise((r) => fake.close(r));
});

async function join(c: Client, url: string): Promise<Response> {
  return fetch(new URL(url, s.url), { redirect: 'manual', headers: { authorization: 'Basic ' + Buffer.from(`${c.email}:${c.apiKey}`).toString('base64') } });
}

test('without the settings: the original errors', async () => {
  const r = await plain.owner.get('calls/bigbluebutton/create', { meeting_name: 'x' });
  assert.equal(r.status, 400);
  assert.equal(r.body.msg, 'BigBlueButton is not configured.');
  const t = await plain.owner.post('calls/nextcloud_talk/create', { room_name: 'x' });
  assert.equal(t.status, 400);
  assert.equal(t.body.msg, 'Nextcloud Talk is not configured.');
});

test('bad input is refused', async () => {
  const r = await ann.get('calls/bigbluebutton/create', {});
  assert.equal(r.status, 400);
  assert.equal(r.body.msg, 'Missing \'meeting_name\' argument');
  assert.equal((await ann.get('calls/bigbluebutton/create', { meeting_name: 'm', voice_only: 'maybe' })).status, 400);
  assert.equal((await ann.post('calls/nextcloud_talk/create', {})).body.msg, 'Missing \'room_name\' argument');
  const anon = await fetch(new URL('/api/v1/calls/bigbluebutton/create?meeting_name=m', s.url));
  assert.equal(anon.status, 401);
});

test('BigBlueButton: a signed link; the creator joins as moderator, others as viewers; a tampered link is refused', async () => {
  const { url } = await ann.ok('GET', 'calls/bigbluebutton/create', { meeting_name: 'test_channel meeting', voice_only: true });
  assert.match(url, /^\/calls\/bigbluebutton\/join\?/);
  const q = new URL(url, s.url).searchParams;
  assert.match(q.get('meeting_id')!, /^parley-[0-9a-f]{32}$/);
  assert.equal(q.get('name'), 'test_channel meeting');

  const a = await join(ann, url);
  assert.equal(a.status, 302);
  const annTarget = new URL(a.headers.get('location')!);
  assert.equal(annTarget.origin + annTarget.pathname, `${base}/bigbluebutton/api/join`);
  assert.equal(annTarget.searchParams.get('role'), 'MODERATOR');
  assert.equal(annTarget.searchParams.get('fullName'), 'Ann Caller');
  assert.equal(annTarget.searchParams.get('meetingID'), q.get('meeting_id'));
  assert.ok(validChecksum('join', annTarget.search.slice(1)));
  const created = bbbCreates.at(-1)!;
  assert.equal(created.get('meetingID'), q.get('meeting_id'));
  assert.equal(created.get('name'), 'test_channel meeting');
  assert.equal(created.get('lockSettingsDisableCam'), 'true');

  const b = await join(ben, url);
  assert.equal(b.status, 302);
  const benTarget = new URL(b.headers.get('location')!);
  assert.equal(benTarget.searchParams.get('role'), 'VIEWER');
  assert.equal(benTarget.searchParams.get('fullName'), 'Ben Joiner');

  // Claiming the moderator role by editing the link breaks BBB's checksum.
  q.set('moderator', String(ben.userId));
  const forged = await join(ben, `/calls/bigbluebutton/join?${q.toString()}`);
  assert.equal(forged.status, 400);
  assert.equal(((await forged.json()) as { msg: string }).msg, 'Error authenticating to the BigBlueButton server.');
});

test('Nextcloud Talk: the configured account creates a public conversation', async () => {
  const { url } = await ann.ok('POST', 'calls/nextcloud_talk/create', { room_name: '#Test > team check-in' });
  assert.equal(url, `${base}/nc/index.php/call/room${talkRooms.length}`);
  const sent = talkRooms.at(-1)!;
  assert.equal(sent.auth, 'Basic ' + Buffer.from('parley-bot:app-pass').toString('base64'));
  const body = new URLSearchParams(sent.body);
  assert.equal(body.get('roomType'), '3');
  assert.equal(body.get('roomName'), '#Test > team check-in');
});

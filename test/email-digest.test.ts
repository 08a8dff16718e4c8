// Weekly digest emails over real SMTP: the organization setting and weekday, away users only, once per week
// (also with two nodes on PostgreSQL), and the digest unsubscribe link.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Client, TestServer } from './helpers/server.js';
import { startMailTestServer, type SmtpReceiver } from './helpers/smtp.js';
import type { Clock } from '../src/context.js';
import { deliverDueDigests, weekdayOf } from '../src/actions/email-digest.js';

let now = 1_700_000_000;
const clock: Clock = { now: () => now };
let s: TestServer;
let smtp: SmtpReceiver;
let stop: () => Promise<void>;
let ann: Client;
before(async () => {
  ({ server: s, smtp, close: stop } = await startMailTestServer(clock));
  ann = await s.user('Ann Poster');
});
after(() => stop());

/** There is no API for these organization settings yet: written as stored. */
async function setDigest(enabled: boolean, weekday: number): Promise<void> {
  await s.running.app.store.db.updateTable('realms').set({ settings: JSON.stringify({ digest_emails_enabled: enabled, digest_weekday: weekday }) }).where('id', '=', s.realm.id).execute();
}

test('digests only when the organization turned them on, on its weekday, to away users, once a week', async () => {
  const zed = await s.user('Zed Away');
  const eve = await s.user('Eve Here');
  const quiet = await s.user('Quinn Optout');
  await quiet.ok('PATCH', 'settings', { enable_digest_emails: false });
  for (const [topic, n] of [['weekly sync', 3], ['lunch', 1]] as const) for (let i = 0; i < n; i++) await ann.ok('POST', 'messages', { type: 'stream', to: 'general', topic, content: `msg ${i}` });
  await s.owner.ok('POST', 'messages', { type: 'stream', to: 'general', topic: 'weekly sync', content: 'me too' });
  assert.equal(await deliverDueDigests(s.running.app), 0, 'off by default');
  await setDigest(true, (weekdayOf(now) + 1) % 7);
  assert.equal(await deliverDueDigests(s.running.app), 0, 'not the weekday');
  await setDigest(true, weekdayOf(now));
  await eve.ok('POST', 'users/me/presence', { status: 'active' });
  await deliverDueDigests(s.running.app);
  assert.equal(smtp.to(eve.email).length, 0, 'active users get none');
  assert.equal(smtp.to(quiet.email).length, 0, 'enable_digest_emails off');
  const [got] = smtp.to(zed.email);
  assert.ok(got);
  assert.equal(got.mail.subject, 'Test Org digest');
  const text = got.mail.text ?? '';
  // The text part is read from the HTML: each link's text, then its address.
  assert.match(text, /#general > weekly sync \[http:\/\/localhost\/#narrow\/channel\/\d+\/topic\/weekly%20sync\]: 4 messages from Ann Poster, Olivia Owner/);
  assert.match(text, /#general > lunch \[[^\]]+\]: 1 message from Ann Poster/);
  assert.ok(text.indexOf('weekly sync') < text.indexOf('lunch'), 'busiest first');
  assert.match(String(got.mail.html), /<h3>Hot conversations<\/h3>/);
  // Once a week.
  now += 3600;
  await deliverDueDigests(s.running.app);
  assert.equal(smtp.to(zed.email).length, 1);
  // The digest link turns them off.
  const link = /http:\/\/localhost(\/accounts\/unsubscribe\/digest\/[0-9a-f]{32})/.exec(text);
  assert.ok(link);
  assert.equal((await fetch(`${s.url}${link[1]}`)).status, 200);
  const reg = await zed.ok('POST', 'register', { fetch_event_types: JSON.stringify(['user_settings']) } as never);
  assert.equal(reg.user_settings.enable_digest_emails, false);
});

test('two nodes on one PostgreSQL database send each digest once', async (t) => {
  if (s.dialect !== 'postgres') return t.skip('several processes need PostgreSQL');
  now += 7 * 24 * 3600;
  await setDigest(true, weekdayOf(now));
  const users = await Promise.all(['Ra One', 'Sy Two', 'Ty Three'].map((n) => s.user(n)));
  await ann.ok('POST', 'messages', { type: 'stream', to: 'general', topic: 'race', content: 'news' });
  const peer = await s.peer({ nodeId: 'peer-b' });
  try {
    await Promise.all([deliverDueDigests(s.running.app), deliverDueDigests(peer.app), deliverDueDigests(s.running.app), deliverDueDigests(peer.app)]);
    // The nodes' own workers may take part too (the peer's first pass starts as it does, and under
    // load its first mail, which loads the text converter, can take seconds): wait for every digest,
    // then check none came twice.
    const end = Date.now() + 30_000;
    while (users.some((u) => !smtp.to(u.email).length) && Date.now() < end) await new Promise((r) => setTimeout(r, 25));
    await Promise.all([deliverDueDigests(s.running.app), deliverDueDigests(peer.app)]);
    for (const u of users) assert.equal(smtp.to(u.email).length, 1, u.email);
  } finally {
    await peer.close();
  }
});

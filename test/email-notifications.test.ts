// Missed-message emails over real SMTP: each kind, batching (controllable clock), read meanwhile,
// muting, deactivated users, presence, unsubscribe links, restarts and two nodes on one database.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Client, TestServer } from './helpers/server.js';
import { until } from './helpers/wait.js';
import { startMailTestServer, type Received, type SmtpReceiver } from './helpers/smtp.js';
import { newChannel } from './helpers/messages.js';
import type { Clock } from '../src/context.js';
import type { AppContext } from '../src/context.js';
import { deliverDueEmails } from '../src/actions/email-notifications.js';

let now = 1_700_000_000;
const clock: Clock = { now: () => now };
let s: TestServer;
let smtp: SmtpReceiver;
let stop: () => Promise<void>;
let ann: Client;
before(async () => {
  ({ server: s, smtp, close: stop } = await startMailTestServer(clock));
  ann = await s.user('Ann Sender');
});
after(() => stop());

const app = (): AppContext => s.running.app;
const send = async (c: Client, params: Record<string, unknown>) => (await c.ok('POST', 'messages', params as never)).id as number;
const dm = (from: Client, to: Client, content: string) => send(from, { type: 'direct', to: [to.userId], content });
const post = (from: Client, channel: string, topic: string, content: string) => send(from, { type: 'stream', to: channel, topic, content });

const pending = async (userId: number, a: AppContext = app()) => (await a.store.db.selectFrom('email_pending').select('message_id').where('user_id', '=', userId).execute()).map((r) => r.message_id);
/** Waits until the send's after-commit step queued these messages for the user. */
const queued = (c: Client, ids: number[]) => until(`pending ${ids} for ${c.email}`, async () => (await pending(c.userId)).filter((id) => ids.includes(id)).length === ids.length);
/** Moves the clock past the batching period and lets the worker finish the user's batch. */
async function flush(c: Client, secs = 121): Promise<void> {
  now += secs;
  await deliverDueEmails(app());
  await until(`batch of ${c.email} handled`, async () => (await pending(c.userId)).length === 0);
}
const mailsTo = (c: Client) => smtp.to(c.email);
const header = (r: Received, name: string) => r.mail.headerLines.find((h) => h.key === name)?.line ?? '';

test('a direct message to an away user: one email with text and HTML, link, reply-to and unsubscribe', async () => {
  const ben = await s.user('Ben Away');
  const id = await dm(ann, ben, 'Are you **there**? See [the file](/user_uploads/1/ab/x.png)');
  await queued(ben, [id]);
  // Inside the batching window nothing goes out.
  now += 60;
  await deliverDueEmails(app());
  assert.equal(mailsTo(ben).length, 0);
  await flush(ben, 61);
  const [got] = mailsTo(ben);
  assert.ok(got, 'one email');
  assert.equal(mailsTo(ben).length, 1);
  const m = got.mail;
  assert.equal(m.subject, 'Direct messages with Ann Sender');
  assert.match(m.text ?? '', /Ann Sender/);
  // The text part is read from the HTML (test/email-delivery.test.ts has more).
  assert.match(m.text ?? '', /Are you there\? See the file \[http:\/\/localhost\/user_uploads\/1\/ab\/x\.png\]/);
  assert.match(String(m.html), /<strong>there<\/strong>/);
  assert.match(String(m.html), /href="http:\/\/localhost\/user_uploads\/1\/ab\/x\.png"/);
  assert.match(m.text ?? '', new RegExp(`http://localhost/#narrow/dm/${ann.userId}`));
  assert.match(m.replyTo?.text ?? '', /^mm[0-9a-f]{32}@localhost$/);
  assert.equal(m.headers.get('auto-submitted'), 'auto-generated');
  assert.match(header(got, 'list-unsubscribe'), /<http:\/\/localhost\/accounts\/unsubscribe\/missed_messages\/[0-9a-f]{32}>/);
  assert.match(m.from?.text ?? '', /Ann Sender \(Test Org\)/);
});

test('batching: every message of the period in one email; own messages never', async () => {
  const cal = await s.user('Cal Batch');
  const a = await dm(ann, cal, 'first');
  now += 30;
  const b = await dm(ann, cal, 'second');
  await dm(cal, cal, 'a note to myself');
  const c = await post(ann, 'general', 'plans', `hello @**Cal Batch**`);
  await queued(cal, [a, b, c]);
  await flush(cal);
  const got = mailsTo(cal);
  assert.equal(got.length, 1);
  const text = got[0].mail.text ?? '';
  for (const part of ['first', 'second', 'hello @Cal Batch', '#general > plans']) assert.ok(text.includes(part), `email has ${part}`);
  assert.ok(!text.includes('note to myself'));
  assert.equal(got[0].mail.subject, '3 new messages in Test Org');
  assert.deepEqual(await pending(cal.userId), []);
});

test('nothing for messages read meanwhile, for active users, or for deactivated users', async () => {
  const dee = await s.user('Dee Reader');
  const id = await dm(ann, dee, 'read me');
  await queued(dee, [id]);
  await dee.ok('POST', 'messages/flags', { messages: JSON.stringify([id]), op: 'add', flag: 'read' } as never);
  await flush(dee);
  assert.equal(mailsTo(dee).length, 0);

  const eve = await s.user('Eve Active');
  await eve.ok('POST', 'users/me/presence', { status: 'active' });
  const id2 = await dm(ann, eve, 'you are here');
  await queued(eve, [id2]);
  await flush(eve, 121);
  assert.equal(mailsTo(eve).length, 0, 'active within the presence threshold');

  const fay = await s.user('Fay Gone');
  const id3 = await dm(ann, fay, 'bye');
  await queued(fay, [id3]);
  await s.owner.ok('DELETE', `users/${fay.userId}`);
  await flush(fay);
  assert.equal(mailsTo(fay).length, 0);
});

test('mentions: personal, group, wildcard per wildcard_mentions_notify; muted channels and topics send nothing', async () => {
  const gus = await s.user('Gus Mention');
  const group = await s.owner.ok('POST', 'user_groups/create', { name: 'mailers', description: 'x', members: JSON.stringify([gus.userId]) } as never);
  assert.ok(group);
  const g = await post(ann, 'general', 'group', 'ping @*mailers*');
  const w = await post(ann, 'general', 'wild', 'ping @**all**');
  await queued(gus, [g, w]);
  await flush(gus);
  const text = mailsTo(gus)[0].mail.text ?? '';
  // Mentions read as the HTML shows them.
  assert.ok(text.includes('ping @mailers') && text.includes('ping @all'), text);

  await gus.ok('PATCH', 'settings', { wildcard_mentions_notify: false });
  const w2 = await post(ann, 'general', 'wild', 'again @**all**');
  await queued(gus, [w2]);
  await flush(gus);
  assert.equal(mailsTo(gus).length, 1, 'no email for a wildcard mention when wildcard_mentions_notify is off');

  const room = await s.owner.ok('POST', 'users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'quiet-room' }]), principals: JSON.stringify([gus.userId, ann.userId]) } as never);
  assert.ok(room);
  const qid = (await s.owner.ok('GET', 'get_stream_id', { stream: 'quiet-room' })).stream_id as number;
  await gus.ok('POST', 'users/me/subscriptions/properties', { subscription_data: JSON.stringify([{ stream_id: qid, property: 'is_muted', value: true }]) } as never);
  const m1 = await post(ann, 'quiet-room', 't', 'hey @**Gus Mention**');
  const generalId = (await s.owner.ok('GET', 'get_stream_id', { stream: 'general' })).stream_id as number;
  await gus.ok('POST', 'user_topics', { stream_id: generalId, topic: 'noisy', visibility_policy: 1 });
  const m2 = await post(ann, 'general', 'noisy', 'hey @**Gus Mention**');
  await queued(gus, [m1, m2]);
  await flush(gus);
  assert.equal(mailsTo(gus).length, 1, 'muted channel and muted topic: nothing');
});

test('followed topics and channel email notifications; one-click unsubscribe flips the setting', async () => {
  const hal = await s.user('Hal Follower');
  const generalId = (await s.owner.ok('GET', 'get_stream_id', { stream: 'general' })).stream_id as number;
  await hal.ok('POST', 'user_topics', { stream_id: generalId, topic: 'roadmap', visibility_policy: 3 });
  const f = await post(ann, 'general', 'roadmap', 'next quarter');
  await queued(hal, [f]);
  await flush(hal);
  assert.equal(mailsTo(hal).length, 1);
  assert.match(mailsTo(hal)[0].mail.text ?? '', /#general > roadmap/);
  assert.match(header(mailsTo(hal)[0], 'list-unsubscribe'), /followed_topics/);

  const room = await newChannel(s, 'mail-room', { subscribers: [] });
  await s.owner.ok('POST', 'users/me/subscriptions', { subscriptions: JSON.stringify([{ name: room.name }]), principals: JSON.stringify([hal.userId, ann.userId]) } as never);
  await hal.ok('POST', 'users/me/subscriptions/properties', { subscription_data: JSON.stringify([{ stream_id: room.id, property: 'email_notifications', value: true }]) } as never);
  const c = await post(ann, 'mail-room', 'news', 'channel news');
  await queued(hal, [c]);
  await flush(hal);
  const mail = mailsTo(hal)[1].mail;
  assert.match(mail.text ?? '', /channel news/);
  const link = /http:\/\/localhost(\/accounts\/unsubscribe\/channel\/[0-9a-f]{32})/.exec(mail.text ?? '');
  assert.ok(link, 'an unsubscribe link for channel emails');
  const page = await fetch(`${s.url}${link[1]}`);
  assert.equal(page.status, 200);
  assert.match(await page.text(), /Unsubscribed/);
  const subs = await hal.ok('GET', 'users/me/subscriptions');
  assert.equal((subs.subscriptions as { stream_id: number; email_notifications: boolean | null }[]).find((x) => x.stream_id === room.id)?.email_notifications, false);
  const bad = await fetch(`${s.url}/accounts/unsubscribe/channel/${'0'.repeat(32)}`);
  assert.equal(bad.status, 404);

  // Turning the kind off stops that kind: the next channel message queues nothing.
  await post(ann, 'mail-room', 'news', 'more news');
  const dmId = await dm(ann, hal, 'a direct one');
  await queued(hal, [dmId]);
  await flush(hal);
  assert.equal(mailsTo(hal).length, 3);
  assert.ok(!(mailsTo(hal)[2].mail.text ?? '').includes('more news'));
  const mm = /http:\/\/localhost(\/accounts\/unsubscribe\/missed_messages\/[0-9a-f]{32})/.exec(mailsTo(hal)[2].mail.text ?? '');
  assert.ok(mm);
  assert.equal((await fetch(`${s.url}${mm[1]}`, { method: 'POST', body: 'List-Unsubscribe=One-Click' })).status, 200);
  const reg = await hal.ok('POST', 'register', { fetch_event_types: JSON.stringify(['user_settings']) } as never);
  assert.equal(reg.user_settings.enable_offline_email_notifications, false);
  const id2 = await dm(ann, hal, 'not mailed');
  await queued(hal, [id2]);
  await flush(hal);
  assert.equal(mailsTo(hal).length, 3);
});

test('pending notifications survive a restart and go out exactly once with two nodes', async () => {
  const ivy = await s.user('Ivy Restart');
  const id = await dm(ann, ivy, 'across a restart');
  await queued(ivy, [id]);
  await s.restart();
  assert.deepEqual(await pending(ivy.userId), [id]);
  await flush(ivy);
  assert.equal(mailsTo(ivy).length, 1);

  if (s.dialect !== 'postgres') return;
  const peer = await s.peer({ nodeId: 'peer-b' });
  try {
    const users = await Promise.all(['Jo One', 'Kit Two', 'Lu Three', 'Mo Four'].map((n) => s.user(n)));
    const ids = await Promise.all(users.map((u) => dm(ann, u, 'race')));
    for (const [i, u] of users.entries()) await queued(u, [ids[i]]);
    now += 121;
    await Promise.all([deliverDueEmails(app()), deliverDueEmails(peer.app), deliverDueEmails(app()), deliverDueEmails(peer.app)]);
    for (const u of users) await until('handled', async () => (await pending(u.userId)).length === 0);
    for (const u of users) assert.equal(mailsTo(u).length, 1, `exactly one email to ${u.email}`);
  } finally {
    await peer.close();
  }
});

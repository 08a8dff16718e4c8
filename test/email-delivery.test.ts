// Missed-message email delivery across nodes: the text part read from the HTML, a batch resent as composed after
// a node dies (same Message-ID, once), and users with a live event queue on any node not emailed.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Client, TestServer } from './helpers/server.js';
import { startMailTestServer, type SmtpReceiver } from './helpers/smtp.js';
import type { AppContext, Clock } from '../src/context.js';
import type { RunningServer } from '../src/main.js';
import type { Outbox } from '../src/lib/mail/outbox.js';
import { deliverDueEmails, EMAIL_CLAIM_SECS } from '../src/actions/email-notifications.js';
import { htmlToText } from '../src/lib/mail/html-text.js';
import { renderContextFrom, renderMessage } from '../src/lib/markdown/index.js';

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
const dm = async (to: Client, content: string) => (await ann.ok('POST', 'messages', { type: 'direct', to: JSON.stringify([to.userId]), content })).id as number;
const pending = async (userId: number) => (await app().store.db.selectFrom('email_pending').select('message_id').where('user_id', '=', userId).execute()).map((r) => r.message_id);

async function until(what: string, fn: () => Promise<boolean>, ms = 8000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await fn())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
const queued = (c: Client, id: number) => until(`pending ${id}`, async () => (await pending(c.userId)).includes(id));
const handled = (c: Client) => until(`batch of ${c.email} handled`, async () => (await pending(c.userId)).length === 0);

test('the text part is read from the rendered HTML: links with their address, quotes, code, mentions, math', async () => {
  const ctx = renderContextFrom([{ id: 9, full_name: 'Zoe Z' }], { realmUrl: 'http://localhost' });
  const html = renderMessage('Hi @**Zoe Z**, see [the plan](https://example.com/plan) and https://example.com/x\n> quoted *words*\n\n```python\ndef f():\n    return 1\n```\n$$x^2$$ :smile:', ctx).html;
  const text = await htmlToText(html);
  assert.match(text, /^Hi @Zoe Z, see the plan \[https:\/\/example\.com\/plan\] and https:\/\/example\.com\/x$/m);
  assert.match(text, /^> quoted words$/m);
  assert.match(text, /^ {4}def f\(\):\n {8}return 1$/m);
  assert.match(text, /\$\$x\^2\$\$ :smile:/);
  assert.ok(!text.includes('<') && !text.includes('**'), text);

  const ben = await s.user('Ben Away');
  const id = await dm(ben, 'Are you **there**? See [the file](/user_uploads/1/ab/x.png)\n> earlier words');
  await queued(ben, id);
  now += 121;
  await deliverDueEmails(app());
  await handled(ben);
  const [got] = smtp.to(ben.email);
  assert.match(got.mail.text ?? '', /Are you there\? See the file \[http:\/\/localhost\/user_uploads\/1\/ab\/x\.png\]/);
  assert.match(got.mail.text ?? '', /^> earlier words$/m);
  assert.ok(!(got.mail.text ?? '').includes('**'));
});

/** An outbox whose node "dies" right after the SMTP server accepted the mail. */
const diesAfterSmtp = (real: Outbox): Outbox => ({
  send: async (m) => {
    await real.send(m);
    throw new Error('node died after SMTP');
  },
  close: () => real.close(),
});

test('a node dying between SMTP and completion: the batch goes again once, as composed, under the same Message-ID', async () => {
  const una = await s.user('Una Crash');
  const id = await dm(una, 'sent before the crash');
  await queued(una, id);
  const a = app();
  const real = a.mail;
  a.mail = diesAfterSmtp(real);
  now += 121;
  try {
    await deliverDueEmails(a);
    await until('first copy', async () => smtp.to(una.email).length === 1);
  } finally {
    a.mail = real;
  }
  // The batch is recorded with its rows: no pass composes it again, and within its lease nothing happens.
  assert.deepEqual(await pending(una.userId), [id]);
  const batch = await a.store.db.selectFrom('email_batches').selectAll().where('user_id', '=', una.userId).executeTakeFirstOrThrow();
  now += 60;
  await deliverDueEmails(a);
  assert.equal(smtp.to(una.email).length, 1);
  // The lease runs out: one node takes it over (both race on PostgreSQL) and sends the same message.
  now += EMAIL_CLAIM_SECS;
  let peer: RunningServer | null = null;
  try {
    if (s.dialect === 'postgres') peer = await s.peer({ nodeId: 'peer-crash' });
    await Promise.all([deliverDueEmails(a), deliverDueEmails(a), ...(peer ? [deliverDueEmails(peer.app), deliverDueEmails(peer.app)] : [])]);
    await handled(una);
  } finally {
    await peer?.close();
  }
  const [first, second] = smtp.to(una.email);
  assert.equal(smtp.to(una.email).length, 2);
  assert.equal(second.mail.messageId, first.mail.messageId);
  assert.equal(first.mail.messageId, batch.message_id_header);
  assert.equal(second.mail.subject, first.mail.subject);
  assert.equal(second.mail.text, first.mail.text);
  assert.equal(await a.store.db.selectFrom('email_batches').select('id').where('id', '=', batch.id).executeTakeFirst(), undefined);
  now += 2 * EMAIL_CLAIM_SECS;
  await deliverDueEmails(a);
  assert.equal(smtp.to(una.email).length, 2);
});

test('an SMTP failure before the mail is accepted: sent once, after the lease, under the Message-ID it was composed with', async () => {
  const vic = await s.user('Vic Outage');
  const id = await dm(vic, 'during an outage');
  await queued(vic, id);
  const a = app();
  const real = a.mail;
  a.mail = { send: () => Promise.reject(new Error('SMTP down')), close: () => real.close() };
  now += 121;
  try {
    await deliverDueEmails(a);
  } finally {
    a.mail = real;
  }
  const batch = await a.store.db.selectFrom('email_batches').selectAll().where('user_id', '=', vic.userId).executeTakeFirstOrThrow();
  assert.equal(smtp.to(vic.email).length, 0);
  now += EMAIL_CLAIM_SECS + 1;
  await deliverDueEmails(a);
  await handled(vic);
  assert.equal(smtp.to(vic.email).length, 1);
  assert.equal(smtp.to(vic.email)[0].mail.messageId, batch.message_id_header);
});

/** Registers an event queue for the client on a node (this server or a peer). */
async function register(c: Client, url: string, eventTypes?: string[]): Promise<string> {
  const body = new URLSearchParams(eventTypes ? { event_types: JSON.stringify(eventTypes) } : {});
  const r = await fetch(`${url}/api/v1/register`, { method: 'POST', body, headers: { authorization: `Basic ${Buffer.from(`${c.email}:${c.apiKey}`).toString('base64')}` } });
  const j = (await r.json()) as { queue_id: string };
  return j.queue_id;
}

test('a user with a live event queue for messages gets no email; after the queue is gone they do', async () => {
  const wes = await s.user('Wes Watching');
  const queue = await register(wes, s.url);
  // A queue that does not receive messages does not count.
  const xan = await s.user('Xan Typing');
  await register(xan, s.url, ['typing']);
  const first = await dm(wes, 'seen in the app');
  const other = await dm(xan, 'not seen');
  await queued(wes, first);
  await queued(xan, other);
  now += 121;
  await deliverDueEmails(app());
  await handled(wes);
  await handled(xan);
  assert.equal(smtp.to(wes.email).length, 0);
  assert.equal(smtp.to(xan.email).length, 1);
  await wes.ok('DELETE', 'events', { queue_id: queue });
  const second = await dm(wes, 'after leaving');
  await queued(wes, second);
  now += 121;
  await deliverDueEmails(app());
  await handled(wes);
  assert.equal(smtp.to(wes.email).length, 1);
});

test('a live queue on another node counts, from its queue_presence rows, until that node stops refreshing them', async (t) => {
  if (s.dialect !== 'postgres') return t.skip('several nodes need PostgreSQL');
  const peer = await s.peer({ nodeId: 'peer-queues' });
  try {
    const yan = await s.user('Yan Elsewhere');
    await register(yan, peer.url);
    const id = await dm(yan, 'seen on the other node');
    await queued(yan, id);
    now += 121;
    await peer.queuePresence.runNow();
    await deliverDueEmails(app());
    await handled(yan);
    assert.equal(smtp.to(yan.email).length, 0);
    // The other node stops (its row is not refreshed): after the TTL its queues no longer count.
    await peer.close();
    const next = await dm(yan, 'the other node is gone');
    await queued(yan, next);
    now += 121;
    await deliverDueEmails(app());
    await handled(yan);
    assert.equal(smtp.to(yan.email).length, 1);
  } finally {
    await peer.close();
  }
});

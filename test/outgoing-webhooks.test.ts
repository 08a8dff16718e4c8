// Outgoing-webhook bots (bot_type 3): creation stores the URL, a mention or a direct message POSTs the
// original's payload to it, the answer's content comes back as the bot's message; failures reach the owner.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestServer, type Client, type TestServer } from './helpers/server.js';
import { expectError } from './helpers/assertions.js';
import { newChannel, queueFor } from './helpers/messages.js';

let s: TestServer;
let ann: Client;
let ben: Client;
let hook: http.Server;
let hookUrl: string;
let channelId: number;
/** What the webhook server got, and what it answers next (status, body). */
const received: { body: any; type: string }[] = [];
const answers: { status: number; body: string }[] = [];

before(async () => {
  // The receiver listens on loopback, which outgoing webhooks may reach only when the operator allows it.
  s = await startTestServer({ env: { PARLEY_OUTGOING_WEBHOOKS_ALLOW_PRIVATE: '1' } });
  ann = await s.user('Ann Hooker');
  ben = await s.user('Ben Bystander');
  channelId = (await newChannel(s, 'hooks', { subscribers: [ann, ben] })).id;
  hook = http.createServer((req, res) => {
    let data = '';
    req.on('data', (d) => (data += d));
    req.on('end', () => {
      const type = req.headers['content-type'] ?? '';
      received.push({ body: type.startsWith('application/json') ? JSON.parse(data) : Object.fromEntries(new URLSearchParams(data)), type });
      const a = answers.shift() ?? { status: 200, body: '{}' };
      res.writeHead(a.status, { 'content-type': 'application/json' }).end(a.body);
    });
  });
  await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
  hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`;
});
after(async () => {
  await new Promise((r) => hook.close(r));
  await s.close();
});

async function until<T>(get: () => Promise<T | undefined>): Promise<T> {
  for (let i = 0; i < 400; i++) {
    const v = await get();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('gave up waiting');
}

const lastFrom = (c: Client, senderId: number) =>
  until(async () => {
    const m = (await c.ok('GET', 'messages', { anchor: 'newest', num_before: 1, num_after: 0, narrow: JSON.stringify([{ operator: 'sender', operand: senderId }]), apply_markdown: false })).messages[0];
    return m;
  });

test('creating one stores its URL, interface and a token (register and realm_bot events carry them)', async () => {
  const q = await queueFor(ann, { event_types: ['realm_bot'] });
  const r = await ann.ok('POST', 'bots', { full_name: 'Echo', short_name: 'echo', bot_type: 3, payload_url: JSON.stringify(hookUrl) });
  const [e] = await q.events();
  assert.equal(e.bot.user_id, r.user_id);
  assert.equal(e.bot.services.length, 1);
  assert.deepEqual({ ...e.bot.services[0], token: '' }, { base_url: hookUrl, interface: 1, token: '' });
  const bots = (await ann.ok('POST', 'register', { fetch_event_types: ['realm_bot'] })).realm_bots;
  assert.deepEqual(bots.find((b: any) => b.user_id === r.user_id).services, e.bot.services);
});

test('a mention POSTs the payload; the answer content comes back in the topic; response_not_required posts nothing', async () => {
  const bot = (await ann.ok('GET', 'users')).members.find((u: any) => u.full_name === 'Echo');
  const token = (await ann.ok('POST', 'register', { fetch_event_types: ['realm_bot'] })).realm_bots.find((b: any) => b.user_id === bot.user_id).services[0].token;
  received.length = 0;
  answers.push({ status: 200, body: JSON.stringify({ content: 'pong from the hook' }) });
  const sent = await ann.ok('POST', 'messages', { type: 'stream', to: channelId, topic: 'pings', content: '@**Echo** ping' });
  const reply = await lastFrom(ben, bot.user_id);
  assert.deepEqual([reply.content, reply.subject, reply.stream_id], ['pong from the hook', 'pings', channelId]);
  const { body, type } = received[0];
  assert.equal(type, 'application/json');
  assert.deepEqual([body.bot_email, body.bot_full_name, body.data, body.trigger, body.token], [bot.email, 'Echo', '@**Echo** ping', 'mention', token]);
  assert.deepEqual([body.message.id, body.message.content, body.message.subject, body.message.sender_id, body.message.display_recipient], [sent.id, '@**Echo** ping', 'pings', ann.userId, 'hooks']);
  assert.match(body.message.rendered_content, /user-mention/);

  // A direct message triggers direct_message; the reply goes to the conversation.
  answers.push({ status: 200, body: JSON.stringify({ response_string: 'dm answer' }) });
  await ann.ok('POST', 'messages', { type: 'direct', to: JSON.stringify([bot.user_id]), content: 'hello bot' });
  const dmReply = await until(async () => {
    const m = await lastFrom(ann, bot.user_id);
    return m.content === 'dm answer' ? m : undefined;
  });
  assert.equal(dmReply.type, 'private');
  assert.equal(received[1].body.trigger, 'direct_message');

  answers.push({ status: 200, body: JSON.stringify({ content: 'not wanted', response_not_required: true }) });
  const quiet = await ann.ok('POST', 'messages', { type: 'stream', to: channelId, topic: 'pings', content: '@**Echo** quiet please' });
  await until(async () => (received.length === 3 ? true : undefined));
  // A later trigger's answer arrives after: nothing came in between for the quiet one.
  answers.push({ status: 200, body: JSON.stringify({ content: 'after quiet' }) });
  await ann.ok('POST', 'messages', { type: 'stream', to: channelId, topic: 'pings', content: '@**Echo** again' });
  await until(async () => ((await lastFrom(ben, bot.user_id)).content === 'after quiet' ? true : undefined));
  const recent = (await ben.ok('GET', 'messages', { anchor: quiet.id, num_before: 0, num_after: 10, narrow: JSON.stringify([{ operator: 'sender', operand: bot.user_id }]), apply_markdown: false })).messages;
  assert.deepEqual(recent.map((m: any) => m.content), ['after quiet']);
  // Messages without a mention trigger nothing.
  await ann.ok('POST', 'messages', { type: 'stream', to: channelId, topic: 'pings', content: 'no mention here' });
});

test('a failing webhook: the bot tells its owner the status code', async () => {
  const bot = (await ann.ok('GET', 'users')).members.find((u: any) => u.full_name === 'Echo');
  answers.push({ status: 500, body: 'oops' });
  await ben.ok('POST', 'messages', { type: 'stream', to: channelId, topic: 'failing', content: '@**Echo** break' });
  const notice = await until(async () => {
    const m = await lastFrom(ann, bot.user_id);
    return m.type === 'private' && m.content.includes('500') ? m : undefined;
  });
  assert.match(notice.content, /to your bot @_\*\*Echo\*\* triggered an outgoing webhook\.\nThe webhook got a response with status code \*500\*\./);
});

test('the Slack interface posts its form', async () => {
  const r = await ann.ok('POST', 'bots', { full_name: 'Slacky', short_name: 'slacky', bot_type: 3, payload_url: JSON.stringify(hookUrl), interface_type: 2 });
  received.length = 0;
  answers.push({ status: 200, body: JSON.stringify({ content: 'slack reply' }) });
  await ann.ok('POST', 'messages', { type: 'stream', to: channelId, topic: 'slack', content: '@**Slacky** hi' });
  const reply = await lastFrom(ben, r.user_id);
  assert.equal(reply.content, 'slack reply');
  assert.equal(received[0].type, 'application/x-www-form-urlencoded');
  assert.deepEqual([received[0].body.channel_name, received[0].body.text, received[0].body.user_id], ['hooks', '@**Slacky** hi', String(ann.userId)]);
});

test('creation errors', async () => {
  const make = (extra: Record<string, unknown>) => ann.post('bots', { full_name: 'Bad Hook', short_name: 'badhook', bot_type: 3, ...extra });
  await expectError(make({}), "Missing 'payload_url' argument", 'REQUEST_VARIABLE_MISSING');
  await expectError(make({ payload_url: 'http://x' }), 'Argument "payload_url" is not valid JSON.');
  await expectError(make({ payload_url: JSON.stringify('not a url') }), 'payload_url is not a URL');
  await expectError(make({ payload_url: JSON.stringify('ftp://example.com/') }), 'payload_url is not a URL');
  await expectError(make({ payload_url: JSON.stringify(hookUrl), interface_type: 7 }), 'Invalid interface type');
  await expectError(make({ payload_url: JSON.stringify(hookUrl), interface_type: '"x"' }), 'interface_type is not an integer');
});

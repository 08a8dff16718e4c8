// Outgoing-webhook bots reach only public addresses unless the operator allows private ones
// (PARLEY_OUTGOING_WEBHOOKS_ALLOW_PRIVATE): loopback, private, link-local and names resolving to them are refused.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestServer, type Client, type TestServer } from './helpers/server.js';

let s: TestServer;
let ann: Client;
let hook: http.Server;
let port = 0;
let hits = 0;

before(async () => {
  s = await startTestServer();
  ann = await s.user('Ann Guarded');
  hook = http.createServer((req, res) => {
    hits++;
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ content: 'should never be posted' }));
  });
  await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
  port = (hook.address() as AddressInfo).port;
});
after(async () => {
  await new Promise((r) => hook.close(r));
  await s.close();
});

async function ownerNotice(botId: number, after: number): Promise<string> {
  for (let i = 0; i < 400; i++) {
    const ms = (await ann.ok('GET', 'messages', { anchor: 'newest', num_before: 5, num_after: 0, narrow: JSON.stringify([{ operator: 'sender', operand: botId }]), apply_markdown: false })).messages as any[];
    const m = ms.find((x) => x.id > after && x.type === 'private');
    if (m) return m.content as string;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('no notice from the bot');
}

for (const [label, url] of [
  ['a loopback address', () => `http://127.0.0.1:${port}/hook`],
  ['a name that resolves to loopback', () => `http://localhost:${port}/hook`],
  ['IPv6 loopback', () => `http://[::1]:${port}/hook`],
  ['an IPv4-mapped IPv6 loopback', () => `http://[::ffff:127.0.0.1]:${port}/hook`],
  ['the link-local metadata address', () => 'http://169.254.169.254/latest/meta-data/'],
  ['a private network', () => 'http://10.1.2.3/hook'],
] as const) {
  test(`${label} is refused and the owner is told`, async () => {
    const short = label.replace(/[^a-z0-9]+/g, '').slice(0, 20);
    const bot = await ann.ok('POST', 'bots', { full_name: `Guard ${short}`, short_name: `guard${short}`, bot_type: 3, payload_url: JSON.stringify(url()) });
    const before = hits;
    const sent = await ann.ok('POST', 'messages', { type: 'direct', to: JSON.stringify([bot.user_id]), content: 'hello' });
    const notice = await ownerNotice(bot.user_id, sent.id);
    assert.match(notice, /an exception of type ForbiddenAddressError occurred/);
    assert.match(notice, /not a public address/);
    assert.equal(hits, before);
  });
}

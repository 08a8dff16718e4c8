// Incoming webhooks: register's realm_incoming_webhook_bots descriptors, and POST /external/json with a
// bot's API key in the URL posting the payload pretty-printed to a channel topic or to the bot's owner.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type Client, type TestServer } from './helpers/server.js';
import { newChannel } from './helpers/messages.js';
import { newBot } from './helpers/people.js';

let s: TestServer;
let ann: Client;
let bot: Client;
let channelId: number;

before(async () => {
  s = await startTestServer();
  ann = await s.user('Ann Integrator');
  bot = await newBot(s, ann, 'incoming', { bot_type: 2 });
  channelId = (await newChannel(s, 'alerts', { subscribers: [ann] })).id;
});
after(async () => {
  await s.close();
});

async function hook(query: Record<string, string>, body: string, type = 'application/json', auth?: string) {
  const res = await fetch(`${s.url}/api/v1/external/json?${new URLSearchParams(query)}`, { method: 'POST', headers: { 'content-type': type, ...(auth ? { authorization: auth } : {}) }, body });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

const last = async (c: Client) => (await c.ok('GET', 'messages', { anchor: 'newest', num_before: 1, num_after: 0, apply_markdown: false })).messages[0];

test('register describes the integrations with their config and URL options', async () => {
  const r = await ann.ok('POST', 'register', { fetch_event_types: ['realm_incoming_webhook_bots'] });
  assert.deepEqual(r.realm_incoming_webhook_bots, [{ name: 'json', display_name: 'JSON formatter', all_event_types: null, config_options: [], url_options: [] }]);
});

test('a JSON payload goes to the channel and topic, pretty-printed in a code block', async () => {
  const r = await hook({ api_key: bot.apiKey, stream: 'alerts', topic: 'deploys' }, JSON.stringify({ app: 'parley', ok: true, n: [1, 2], who: 'é' }));
  assert.deepEqual([r.status, r.body.result], [200, 'success']);
  const m = await last(ann);
  assert.deepEqual([m.sender_id, m.stream_id, m.subject], [bot.userId, channelId, 'deploys']);
  assert.equal(m.content, '```json\n{\n  "app": "parley",\n  "ok": true,\n  "n": [\n    1,\n    2\n  ],\n  "who": "\\u00e9"\n}\n```');
  // By channel ID, with the default topic.
  await hook({ api_key: bot.apiKey, stream: String(channelId) }, '[]');
  assert.deepEqual([(await last(ann)).subject, (await last(ann)).content], ['JSON', '```json\n[]\n```']);
});

test('without a channel, the message goes to the bot owner; Basic credentials work too', async () => {
  const auth = `Basic ${Buffer.from(`${bot.email}:${bot.apiKey}`).toString('base64')}`;
  const r = await hook({}, '{"x":1}', 'application/json', auth);
  assert.equal(r.status, 200);
  const m = await last(ann);
  assert.deepEqual([m.type, m.sender_id, m.content], ['private', bot.userId, '```json\n{\n  "x": 1\n}\n```']);
});

test('errors: no key, a wrong key, malformed JSON, an unknown channel', async () => {
  let r = await hook({ stream: 'alerts' }, '{}');
  assert.deepEqual([r.status, r.body.code, r.body.msg], [400, 'REQUEST_VARIABLE_MISSING', "Missing 'api_key' argument"]);
  r = await hook({ api_key: 'nope', stream: 'alerts' }, '{}');
  assert.deepEqual([r.status, r.body.code, r.body.msg], [401, 'INVALID_API_KEY', 'Invalid API key']);
  r = await hook({ api_key: bot.apiKey, stream: 'alerts' }, '{not json');
  assert.deepEqual([r.status, r.body.msg], [400, 'Malformed JSON']);
  r = await hook({ api_key: bot.apiKey, stream: 'alerts' }, 'a=b', 'application/x-www-form-urlencoded');
  assert.deepEqual([r.status, r.body.msg], [400, 'Malformed JSON']);
  r = await hook({ api_key: bot.apiKey, stream: 'no such channel' }, '{}');
  assert.equal(r.status, 400);
  // Another organization's key names nobody here.
  const other = await s.realm2('hooks-elsewhere');
  const theirBot = (await other.owner.ok('POST', 'bots', { full_name: 'Theirs', short_name: 'theirs' })).api_key as string;
  r = await hook({ api_key: theirBot, stream: 'alerts' }, '{}');
  assert.deepEqual([r.status, r.body.msg], [401, 'Account is not associated with this subdomain']);
});

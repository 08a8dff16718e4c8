// Message events in queues: who receives them, narrow and all_public_streams filters, per-client
// content form, avatar form, and the sender's local echo.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type Client, type TestServer } from './helpers/server.js';
import { drainEvents } from './helpers/events.js';
import { newChannel } from './helpers/messages.js';

let s: TestServer;
let ann: Client;
let ben: Client;
let cat: Client;
before(async () => {
  s = await startTestServer();
  ann = await s.user('Ann Sender');
  ben = await s.user('Ben Reader');
  cat = await s.user('Cat Outsider');
});
after(async () => {
  await s.close();
});

async function queue(c: Client, params: Record<string, unknown> = {}) {
  const reg = await c.ok('POST', 'register', { event_types: ['message'], ...params });
  return { id: reg.queue_id as string, events: async () => (await drainEvents(c, reg.queue_id)).filter((e) => e.type === 'message') };
}

test('a channel message reaches subscribers only; a private channel’s never leaks', async () => {
  const open = await newChannel(s, 'ev-open', { subscribers: [ann, ben] });
  const secret = await newChannel(s, 'ev-secret', { inviteOnly: true, subscribers: [ann, ben] });
  const [benQ, catQ, ownerQ] = await Promise.all([queue(ben), queue(cat), queue(s.owner)]);
  await ann.ok('POST', 'messages', { type: 'stream', to: open.id, topic: 't', content: 'public words' });
  await ann.ok('POST', 'messages', { type: 'stream', to: secret.id, topic: 't', content: 'secret words' });
  assert.deepEqual((await benQ.events()).map((e) => e.message.content), ['public words', 'secret words']);
  assert.deepEqual(await catQ.events(), []);
  assert.deepEqual(await ownerQ.events(), [], 'an administrator gets no events of channels they are not subscribed to');
});

test('a direct message reaches its participants only, with their own flags', async () => {
  const [annQ, benQ, catQ] = await Promise.all([queue(ann), queue(ben), queue(cat)]);
  await ann.ok('POST', 'messages', { type: 'direct', to: [ben.userId], content: 'psst @**Ben Reader**' });
  const a = await annQ.events();
  const b = await benQ.events();
  assert.equal(a.length, 1);
  assert.equal(b.length, 1);
  assert.ok(a[0].flags.includes('read'), 'the sender has read it');
  assert.ok(!b[0].flags.includes('read'));
  assert.ok(b[0].flags.includes('mentioned'));
  assert.deepEqual(await catQ.events(), []);
});

test('all_public_streams queues get public channel messages without being subscribed, never private ones', async () => {
  const open = await newChannel(s, 'ev-open-2', { subscribers: [ann] });
  const secret = await newChannel(s, 'ev-secret-2', { inviteOnly: true, subscribers: [ann] });
  const q = await queue(cat, { all_public_streams: true });
  await ann.ok('POST', 'messages', { type: 'stream', to: open.id, topic: 't', content: 'for everyone' });
  await ann.ok('POST', 'messages', { type: 'stream', to: secret.id, topic: 't', content: 'for few' });
  const got = await q.events();
  assert.deepEqual(got.map((e) => e.message.content), ['for everyone']);
  assert.deepEqual(got[0].flags, []);
});

test('a narrow filters the message events a queue receives', async () => {
  const open = await newChannel(s, 'ev-narrow', { subscribers: [ann, ben] });
  const channelQ = await queue(ben, { narrow: [['channel', 'ev-narrow'], ['topic', 'keep']] });
  const dmQ = await queue(ben, { narrow: [['is', 'dm']] });
  await ann.ok('POST', 'messages', { type: 'stream', to: open.id, topic: 'keep', content: 'kept' });
  await ann.ok('POST', 'messages', { type: 'stream', to: open.id, topic: 'drop', content: 'dropped' });
  await ann.ok('POST', 'messages', { type: 'direct', to: [ben.userId], content: 'a dm' });
  assert.deepEqual((await channelQ.events()).map((e) => e.message.content), ['kept']);
  assert.deepEqual((await dmQ.events()).map((e) => e.message.content), ['a dm']);
});

test('apply_markdown and client_gravatar shape the message per client; local_id is echoed to the sending queue', async () => {
  const open = await newChannel(s, 'ev-shape', { subscribers: [ann, ben] });
  const html = await queue(ben, { apply_markdown: true, client_gravatar: false });
  const raw = await queue(ben, { apply_markdown: false, client_gravatar: true });
  const mine = await queue(ann, {});
  await ann.ok('POST', 'messages', { type: 'stream', to: open.id, topic: 't', content: '**bold**', queue_id: mine.id, local_id: '17.01' });
  const [h] = await html.events();
  const [r] = await raw.events();
  assert.equal(h.message.content, '<p><strong>bold</strong></p>');
  assert.equal(h.message.content_type, 'text/html');
  assert.match(h.message.avatar_url, /^https:\/\//);
  assert.equal(r.message.content, '**bold**');
  assert.equal(r.message.content_type, 'text/x-markdown');
  assert.equal(r.message.avatar_url, null);
  assert.equal(h.local_message_id, undefined);
  const [m] = await mine.events();
  assert.equal(m.local_message_id, '17.01');
});

test('another organization’s queues never see this one’s messages', async () => {
  const other = await s.realm2('ev-other');
  const reg = await other.owner.ok('POST', 'register', { event_types: ['message'], all_public_streams: true });
  await ann.ok('POST', 'messages', { type: 'stream', to: 'general', topic: 't', content: 'local news' });
  const events = await drainEvents(other.owner, reg.queue_id);
  assert.deepEqual(events.filter((e) => e.type === 'message'), []);
});

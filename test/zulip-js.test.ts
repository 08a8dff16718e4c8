// The original's JavaScript client (zulip-js from npm, unmodified) against Parley: each of its
// resource methods that the original still serves, with multipart POSTs and query-string PATCH/DELETE.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { startTestServer, type Client, type TestServer } from './helpers/server.js';
import { grantCanCreateUsers } from './helpers/people.js';

/** zulip-js ships no types: its answers are the server's JSON. */
type Answer = Record<string, any>;
type ZulipJs = Record<string, any>;
const zulipInit = createRequire(import.meta.url)('zulip-js') as (config: Record<string, string>) => Promise<ZulipJs>;

let s: TestServer;
let ben: Client;
let owner: ZulipJs;

before(async () => {
  s = await startTestServer();
  ben = await s.user('Ben Jsclient');
  owner = await zulipInit({ username: s.owner.email, apiKey: s.owner.apiKey, realm: s.url });
});
after(async () => {
  await s.close();
});

const ok = (r: Answer): Answer => {
  assert.equal(r.result, 'success', JSON.stringify(r));
  return r;
};

test('zulip-js: fetching an API key with a password, then the profile and the server settings', async () => {
  const byPassword = await zulipInit({ username: s.owner.email, password: 'owner-password', realm: s.url });
  assert.equal(byPassword.config.apiKey, s.owner.apiKey);
  const me = ok(await byPassword.users.me.getProfile());
  assert.equal(me.email, s.owner.email);
  const settings = ok(await owner.server.settings());
  assert.equal(typeof settings.service_feature_level, 'number');
  const wrong = await zulipInit({ username: s.owner.email, apiKey: 'x'.repeat(32), realm: s.url });
  const refused: Answer = await wrong.users.me.getProfile();
  assert.equal(refused.result, 'error');
});

test('zulip-js: channels, subscriptions, topics and users', async () => {
  ok(await owner.users.me.subscriptions.add({ subscriptions: JSON.stringify([{ name: 'js-room', description: 'from zulip-js' }]) }));
  const { stream_id } = ok(await owner.streams.getStreamId({ stream: 'js-room' }));
  const streams = ok(await owner.streams.retrieve());
  assert.ok(streams.streams.some((c: Answer) => c.stream_id === stream_id && c.description === 'from zulip-js'));
  const subs = ok(await owner.streams.subscriptions.retrieve());
  assert.ok(subs.subscriptions.some((c: Answer) => c.name === 'js-room'));
  ok(await owner.messages.send({ type: 'stream', to: 'js-room', topic: 'hello js', content: 'first' }));
  const topics = ok(await owner.streams.topics.retrieve({ stream_id }));
  assert.deepEqual(
    topics.topics.map((t: Answer) => t.name),
    ['hello js'],
  );
  const users = ok(await owner.users.retrieve());
  assert.ok(users.members.some((u: Answer) => u.user_id === ben.userId));
  // Creating users through the API takes the operator-granted can_create_users (parley grant-permission).
  await grantCanCreateUsers(s, s.owner.userId);
  const created = ok(await owner.users.create({ email: 'jsmade@example.com', password: 'js-made-password', full_name: 'Js Made', short_name: 'jsmade' }));
  assert.equal(typeof created.user_id, 'number');
  ok(await owner.users.me.subscriptions.remove({ subscriptions: JSON.stringify(['js-room']) }));
  const after = ok(await owner.streams.subscriptions.retrieve());
  assert.ok(!after.subscriptions.some((c: Answer) => c.name === 'js-room'));
  ok(await owner.users.me.alertWords.retrieve());
  ok(await owner.emojis.retrieve());
});

test('zulip-js: messages sent, rendered, fetched, edited, flagged, reacted to and deleted', async () => {
  const sent = ok(await owner.messages.send({ type: 'stream', to: 'general', topic: 'js', content: 'hello **there**' }));
  const rendered = ok(await owner.messages.render({ content: '**bold**' }));
  assert.equal(rendered.rendered, '<p><strong>bold</strong></p>');
  const one = ok(await owner.messages.getById({ message_id: sent.id }));
  assert.equal(one.message.content, '<p>hello <strong>there</strong></p>');
  const page = ok(await owner.messages.retrieve({ anchor: 'newest', num_before: 5, num_after: 0, narrow: [{ operator: 'topic', operand: 'js' }] }));
  assert.deepEqual(
    page.messages.map((m: Answer) => m.id),
    [sent.id],
  );
  ok(await owner.messages.update({ message_id: sent.id, content: 'edited by zulip-js' }));
  const history = ok(await owner.messages.getHistoryById({ message_id: sent.id }));
  assert.equal(history.message_history.length, 2);
  ok(await owner.messages.flags.add({ flag: 'starred', messages: [sent.id] }));
  const starred = ok(await owner.messages.retrieve({ anchor: 'newest', num_before: 5, num_after: 0, narrow: [{ operator: 'is', operand: 'starred' }] }));
  assert.deepEqual(
    starred.messages.map((m: Answer) => m.id),
    [sent.id],
  );
  ok(await owner.messages.flags.remove({ flag: 'starred', messages: [sent.id] }));
  ok(await owner.reactions.add({ message_id: sent.id, emoji_name: 'octopus' }));
  const reacted = ok(await owner.messages.getById({ message_id: sent.id }));
  assert.deepEqual(
    reacted.message.reactions.map((r: Answer) => r.emoji_name),
    ['octopus'],
  );
  ok(await owner.reactions.remove({ message_id: sent.id, emoji_name: 'octopus' }));
  ok(await owner.messages.deleteById({ message_id: sent.id }));
  const gone: Answer = await owner.messages.getById({ message_id: sent.id });
  assert.equal(gone.result, 'error');
  // Another user's message cannot be deleted by a member through the client either.
  const bens = await zulipInit({ username: ben.email, apiKey: ben.apiKey, realm: s.url });
  const other = ok(await owner.messages.send({ type: 'stream', to: 'general', topic: 'js', content: 'mine' }));
  const refused: Answer = await bens.messages.deleteById({ message_id: other.id });
  assert.equal(refused.result, 'error');
});

test('zulip-js: an event queue registered, polled for a message and a typing notice, and deregistered', async () => {
  const bens = await zulipInit({ username: ben.email, apiKey: ben.apiKey, realm: s.url });
  const queue = ok(await bens.queues.register({ event_types: ['message', 'typing'] }));
  ok(await owner.typing.send({ to: [ben.userId], op: 'start' }));
  const dm = ok(await owner.messages.send({ type: 'direct', to: JSON.stringify([ben.userId]), content: 'a direct one' }));
  const seen: Answer[] = [];
  let last = queue.last_event_id;
  for (let i = 0; i < 50 && !(seen.some((e) => e.type === 'typing') && seen.some((e) => e.type === 'message')); i++) {
    const r = ok(await bens.events.retrieve({ queue_id: queue.queue_id, last_event_id: last, dont_block: true }));
    for (const e of r.events) {
      seen.push(e);
      last = Math.max(last, e.id);
    }
    if (!r.events.length) await new Promise((done) => setTimeout(done, 20));
  }
  assert.ok(seen.some((e) => e.type === 'typing' && e.op === 'start' && e.sender.user_id === s.owner.userId));
  assert.ok(seen.some((e) => e.type === 'message' && e.message.id === dm.id));
  ok(await bens.queues.deregister({ queue_id: queue.queue_id }));
  const after: Answer = await bens.events.retrieve({ queue_id: queue.queue_id, last_event_id: last, dont_block: true });
  assert.equal(after.code, 'BAD_EVENT_QUEUE_ID');
});

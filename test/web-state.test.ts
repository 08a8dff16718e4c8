// The web client's state reducers: a register's state plus the events that followed equals a fresh
// register (sidebars, unread counts, settings), and the loaded messages equal a fresh fetch.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type Client, type TestServer } from './helpers/server.js';
import { drainEvents } from './helpers/events.js';
import { fromRegister, REGISTER_PARAMS, type ClientState } from '../web/src/state/model.js';
import { applyEvent } from '../web/src/state/apply.js';
import { addPage, applyMessageEvent, emptyStore, messageOf, type MessageStore } from '../web/src/state/messages.js';
import { narrowKey, type Narrow } from '../web/src/state/narrow.js';

let s: TestServer;
let ann: Client;
let ben: Client;
before(async () => {
  s = await startTestServer();
  ann = await s.user('Ann Webstate');
  ben = await s.user('Ben Webstate');
});
after(async () => {
  await s.close();
});

const INBOX: Narrow = { kind: 'inbox' };
const send = async (c: Client, params: Record<string, unknown>) => (await c.ok('POST', 'messages', params as never)).id as number;

async function fetchFeed(c: Client, store: MessageStore): Promise<MessageStore> {
  const page = await c.ok('GET', 'messages', { anchor: 'newest', num_before: 100, num_after: 0, narrow: [], apply_markdown: true });
  return addPage(store, narrowKey(INBOX), INBOX, page as never, 'initial');
}

/**
 * Registers as the client does, runs the action, applies every event it got to the client state
 * and the message store, and compares them with a fresh register and a fresh fetch.
 */
async function consistent(c: Client, action: () => Promise<unknown>, expect: string[]): Promise<ClientState> {
  const reg = await c.ok('POST', 'register', REGISTER_PARAMS);
  let state = fromRegister(reg);
  let store = await fetchFeed(c, emptyStore());
  await action();
  const events = (await drainEvents(c, reg.queue_id)).filter((e) => e.type !== 'heartbeat');
  for (const t of expect) assert.ok(events.some((e) => e.type === t), `expected a ${t} event, got ${events.map((e) => e.type).join(', ')}`);
  for (const e of events) {
    state = applyEvent(state, e);
    store = applyMessageEvent(store, e, c.userId);
  }
  assert.deepEqual(state, fromRegister(await c.ok('POST', 'register', REGISTER_PARAMS)));
  const fresh = await fetchFeed(c, emptyStore());
  const shown = (st: MessageStore) => st.feeds[narrowKey(INBOX)].ids.map((id) => st.byId[id]);
  assert.deepEqual(shown(store), shown(fresh));
  await c.ok('DELETE', 'events', { queue_id: reg.queue_id });
  return state;
}

test('new messages: channel, mention, direct, group; unread places and mentions', async () => {
  const state = await consistent(
    ann,
    async () => {
      await send(ben, { type: 'stream', to: 'general', topic: 'state', content: 'hello @**Ann Webstate**' });
      await send(ben, { type: 'direct', to: [ann.userId], content: 'a dm' });
      await send(ben, { type: 'direct', to: [ann.userId, s.owner.userId], content: 'a group' });
      await send(ann, { type: 'stream', to: 'general', topic: 'state', content: 'my own' });
    },
    ['message'],
  );
  assert.equal(Object.keys(state.unread).length, 3, 'three unread, my own message is read');
  assert.equal(state.mentions.length, 1);
});

test('read and unread flags, stars, and marking a whole topic read', async () => {
  const id = await send(ben, { type: 'stream', to: 'general', topic: 'flags', content: 'flag me' });
  const id2 = await send(ben, { type: 'direct', to: [ann.userId], content: 'dm to flag' });
  await consistent(
    ann,
    async () => {
      await ann.ok('POST', 'messages/flags', { messages: [id, id2], op: 'add', flag: 'read' });
      await ann.ok('POST', 'messages/flags', { messages: [id2], op: 'remove', flag: 'read' });
      await ann.ok('POST', 'messages/flags', { messages: [id], op: 'add', flag: 'starred' });
    },
    ['update_message_flags'],
  );
  await consistent(ann, () => ann.ok('POST', 'mark_all_as_read'), ['update_message_flags']);
});

test('edits, topic moves, deletions and reactions', async () => {
  const mine = await send(ann, { type: 'stream', to: 'general', topic: 'edits', content: 'first draft' });
  const theirs = await send(ben, { type: 'stream', to: 'general', topic: 'edits', content: 'unread for ann' });
  const gone = await send(ben, { type: 'stream', to: 'general', topic: 'edits', content: 'to delete' });
  await consistent(
    ann,
    async () => {
      await ann.ok('PATCH', `messages/${mine}`, { content: 'second draft' });
      await ben.ok('PATCH', `messages/${theirs}`, { topic: 'moved', propagate_mode: 'change_one' });
      await ben.ok('DELETE', `messages/${gone}`);
      await ben.ok('POST', `messages/${mine}/reactions`, { emoji_name: 'tada' });
      await ann.ok('POST', `messages/${mine}/reactions`, { emoji_name: 'smile' });
      await ann.ok('DELETE', `messages/${mine}/reactions`, { emoji_name: 'smile' });
    },
    ['update_message', 'delete_message', 'reaction'],
  );
});

test('channels and subscriptions: create, subscribe, mute, colour, pin, leave', async () => {
  await consistent(
    ann,
    async () => {
      await ann.ok('POST', 'users/me/subscriptions', { subscriptions: [{ name: 'webstate-new' }] });
      const sid = (await ann.ok('GET', 'get_stream_id', { stream: 'webstate-new' })).stream_id as number;
      await ann.ok('POST', 'users/me/subscriptions/properties', {
        subscription_data: [
          { stream_id: sid, property: 'is_muted', value: true },
          { stream_id: sid, property: 'color', value: '#123456' },
          { stream_id: sid, property: 'pin_to_top', value: true },
        ],
      });
      await ann.ok('DELETE', 'users/me/subscriptions', { subscriptions: ['general'] });
    },
    ['subscription', 'stream'],
  );
  await ann.ok('POST', 'users/me/subscriptions', { subscriptions: [{ name: 'general' }] });
});

test('people, settings, drafts and presence', async () => {
  await consistent(
    ann,
    async () => {
      await s.user('Cal Newcomer');
      await ben.ok('PATCH', 'settings', { full_name: 'Ben Renamed' });
      await ann.ok('PATCH', 'settings', { color_scheme: 3, twenty_four_hour_time: true });
      const general = (await ann.ok('GET', 'get_stream_id', { stream: 'general' })).stream_id as number;
      const d = await ann.ok('POST', 'drafts', { drafts: [{ type: 'stream', to: [general], topic: 't', content: 'draft one', timestamp: 1700000000 }] });
      await ann.ok('PATCH', `drafts/${d.ids[0]}`, { draft: { type: 'stream', to: [general], topic: 't', content: 'draft two', timestamp: 1700000001 } });
      const d2 = await ann.ok('POST', 'drafts', { drafts: [{ type: 'private', to: [ben.userId], topic: '', content: 'gone', timestamp: 1700000002 }] });
      await ann.ok('DELETE', `drafts/${d2.ids[0]}`);
      await ben.ok('POST', 'users/me/presence', { status: 'active', new_user_input: true });
    },
    ['realm_user', 'user_settings', 'drafts'],
  );
});

test('a message object from the API and from an event give the same client message', async () => {
  const id = await send(ben, { type: 'stream', to: 'general', topic: 'shape', content: '**bold**' });
  const fetched = (await ann.ok('GET', `messages/${id}`, { apply_markdown: true })).message;
  assert.equal(messageOf(fetched).content, '<p><strong>bold</strong></p>');
  assert.equal(messageOf(fetched).subject, 'shape');
});

test('a topic feed loses messages moved out of it and keeps the rest', async () => {
  const general = (await ann.ok('GET', 'get_stream_id', { stream: 'general' })).stream_id as number;
  const stays = await send(ben, { type: 'stream', to: 'general', topic: 'moving', content: 'stays' });
  const goes = await send(ben, { type: 'stream', to: 'general', topic: 'moving', content: 'goes' });
  const narrow: Narrow = { kind: 'topic', stream_id: general, topic: 'moving' };
  const reg = await ann.ok('POST', 'register', REGISTER_PARAMS);
  const page = await ann.ok('GET', 'messages', { anchor: 'newest', num_before: 50, num_after: 0, narrow: [{ operator: 'channel', operand: general }, { operator: 'topic', operand: 'moving' }] });
  let store = addPage(emptyStore(), narrowKey(narrow), narrow, page as never, 'initial');
  await ben.ok('PATCH', `messages/${goes}`, { topic: 'moved away', propagate_mode: 'change_one' });
  for (const e of await drainEvents(ann, reg.queue_id)) store = applyMessageEvent(store, e, ann.userId);
  assert.deepEqual(store.feeds[narrowKey(narrow)].ids, [stays]);
  assert.equal(store.byId[goes].subject, 'moved away');
});

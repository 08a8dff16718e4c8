// Rendering with the sender's and the organization's settings: emoticons, links into the organization, previews, code language, cached linkifiers.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { startTestServer, Client, type TestServer } from './helpers/server.js';
import { compileLinkifiers } from '../src/lib/markdown/linkifiers.js';

let s: TestServer;
let emo: Client;
let plain: Client;

before(async () => {
  s = await startTestServer();
  emo = await s.user('Emma Emoticons');
  plain = await s.user('Paul Plain');
});
after(async () => {
  await s.close();
});

const SMILE = '<span aria-label="smile" class="emoji emoji-1f642" role="img" title="smile">:smile:</span>';

/** Sends to general and returns the stored rendered content (GET /messages/{id}). */
async function sendAndFetch(c: Client, content: string, topic = 'render options'): Promise<string> {
  const id = (await c.ok('POST', 'messages', { type: 'stream', to: 'general', topic, content })).id as number;
  return (await c.ok('GET', `messages/${id}`)).message.content as string;
}

test('translate_emoticons, set through PATCH /settings, turns :) into the smile emoji when sending', async () => {
  assert.equal(await sendAndFetch(emo, 'hello :)'), '<p>hello :)</p>', 'off by default: the emoticon stays text');
  await emo.ok('PATCH', 'settings', { translate_emoticons: true });
  assert.equal(await sendAndFetch(emo, 'hello :)'), `<p>hello ${SMILE}</p>`);
  assert.equal(await sendAndFetch(plain, 'hello :)'), '<p>hello :)</p>', "another user's setting does not apply");
  await emo.ok('PATCH', 'settings', { translate_emoticons: false });
  assert.equal(await sendAndFetch(emo, 'hello :)'), '<p>hello :)</p>');
});

test('an edit is rendered with the author’s translate_emoticons', async () => {
  await emo.ok('PATCH', 'settings', { translate_emoticons: true });
  try {
    const id = (await emo.ok('POST', 'messages', { type: 'stream', to: 'general', topic: 'edits', content: 'first' })).id as number;
    await emo.ok('PATCH', `messages/${id}`, { content: 'edited ;)' });
    const m = (await emo.ok('GET', `messages/${id}`)).message;
    assert.match(m.content, /^<p>edited <span aria-label="wink" class="emoji emoji-[0-9a-f-]+" role="img" title="wink">:wink:<\/span><\/p>$/);
  } finally {
    await emo.ok('PATCH', 'settings', { translate_emoticons: false });
  }
});

test('POST /messages/render honours translate_emoticons', async () => {
  assert.equal((await emo.ok('POST', 'messages/render', { content: 'hi :)' })).rendered, '<p>hi :)</p>');
  await emo.ok('PATCH', 'settings', { translate_emoticons: true });
  try {
    assert.equal((await emo.ok('POST', 'messages/render', { content: 'hi :)' })).rendered, `<p>hi ${SMILE}</p>`);
    assert.equal((await plain.ok('POST', 'messages/render', { content: 'hi :)' })).rendered, '<p>hi :)</p>');
  } finally {
    await emo.ok('PATCH', 'settings', { translate_emoticons: false });
  }
});

test("links into the organization's own URL become #narrow fragment links; other links stay absolute", async () => {
  // The test server's organization has the empty subdomain: its URL is the external URL itself.
  const narrow = 'http://localhost/#narrow/channel/1-general/topic/x/near/12';
  assert.equal(await sendAndFetch(plain, `see ${narrow}`), `<p>see <a href="#narrow/channel/1-general/topic/x/near/12">${narrow}</a></p>`);
  assert.equal(await sendAndFetch(plain, `[that message](${narrow})`), '<p><a href="#narrow/channel/1-general/topic/x/near/12">that message</a></p>');
  const elsewhere = 'http://other.example/#narrow/channel/1-general';
  assert.equal(await sendAndFetch(plain, `see ${elsewhere}`), `<p>see <a href="${elsewhere}">${elsewhere}</a></p>`);
  assert.equal((await plain.ok('POST', 'messages/render', { content: `see ${narrow}` })).rendered, `<p>see <a href="#narrow/channel/1-general/topic/x/near/12">${narrow}</a></p>`);
});

test("an organization with a subdomain: links into its URL are local, the main organization's are not", async () => {
  const { owner, host } = await s.realm2('renderopts');
  const url = `http://${host}/#narrow/channel/3-general`;
  assert.equal((await owner.ok('POST', 'messages/render', { content: url })).rendered, `<p><a href="#narrow/channel/3-general">${url}</a></p>`);
  const main = 'http://localhost/#narrow/channel/3-general';
  assert.equal((await owner.ok('POST', 'messages/render', { content: main })).rendered, `<p><a href="${main}">${main}</a></p>`);
});

test('the organization settings inline_image_preview and default_code_block_language apply', async () => {
  const image = 'https://example.com/cat.png';
  assert.match(await sendAndFetch(plain, image), /message_inline_image/);
  const code = '```\nx = 1\n```';
  assert.match(await sendAndFetch(plain, code), /^<div class="codehilite"><pre>/);
  // No endpoint changes organization settings yet: write the row and drop the cached organization, as an action would.
  const app = s.running.app;
  const realm = await app.store.db.selectFrom('realms').selectAll().where('id', '=', s.realm.id).executeTakeFirstOrThrow();
  await app.store.db.updateTable('realms').set({ settings: JSON.stringify({ ...JSON.parse(realm.settings), inline_image_preview: false, default_code_block_language: 'python' }) }).where('id', '=', s.realm.id).execute();
  app.caches.invalidateRealms();
  try {
    assert.equal(await sendAndFetch(plain, image), `<p><a href="${image}">${image}</a></p>`);
    assert.match(await sendAndFetch(plain, code), /data-code-language="Python".*<span class="n">x<\/span>/s);
  } finally {
    await app.store.db.updateTable('realms').set({ settings: realm.settings }).where('id', '=', s.realm.id).execute();
    app.caches.invalidateRealms();
  }
});

test('a linkifier added after a send applies to the next send; a removed one, an edited one and a new order are picked up at once', async () => {
  assert.equal(await sendAndFetch(plain, 'fixes RO42'), '<p>fixes RO42</p>', 'no linkifier yet (and the empty list is now cached)');
  const id = (await s.owner.ok('POST', 'realm/filters', { pattern: 'RO(?P<n>[0-9]+)', url_template: 'https://tracker.example/ro/{n}' })).id as number;
  assert.equal(await sendAndFetch(plain, 'fixes RO42'), '<p>fixes <a href="https://tracker.example/ro/42">RO42</a></p>');
  // A second, overlapping linkifier added later loses ties; reordering puts it first.
  const other = (await s.owner.ok('POST', 'realm/filters', { pattern: 'RO4(?P<n>[0-9]+)', url_template: 'https://other.example/{n}' })).id as number;
  assert.match(await sendAndFetch(plain, 'fixes RO42'), /href="https:\/\/tracker\.example\/ro\/42"/);
  await s.owner.ok('PATCH', 'realm/linkifiers', { ordered_linkifier_ids: [other, id] });
  assert.match(await sendAndFetch(plain, 'fixes RO42'), /href="https:\/\/other\.example\/2"/);
  await s.owner.ok('DELETE', `realm/filters/${other}`);
  await s.owner.ok('PATCH', `realm/filters/${id}`, { pattern: 'RO(?P<n>[0-9]+)', url_template: 'https://tracker.example/v2/{n}' });
  assert.match(await sendAndFetch(plain, 'fixes RO42'), /href="https:\/\/tracker\.example\/v2\/42"/);
  assert.match((await plain.ok('POST', 'messages/render', { content: 'RO7' })).rendered, /href="https:\/\/tracker\.example\/v2\/7"/);
  await s.owner.ok('DELETE', `realm/filters/${id}`);
  assert.equal(await sendAndFetch(plain, 'fixes RO42'), '<p>fixes RO42</p>');
  assert.equal((await plain.ok('POST', 'messages/render', { content: 'RO7' })).rendered, '<p>RO7</p>');
});

test('compileLinkifiers compiles a given list once', () => {
  const list = Object.freeze([{ id: 1, pattern: 'T(?P<id>[0-9]+)', url_template: 'https://t.example/{id}' }]);
  const first = compileLinkifiers(list);
  assert.equal(compileLinkifiers(list), first, 'the same list gives the same compiled list');
  assert.notEqual(compileLinkifiers([...list]), first, 'another list (even with equal contents) is compiled on its own');
  assert.equal(first.length, 1);
});

const onPostgres = !!process.env.PARLEY_TEST_PG_URL;

test('a linkifier change on one node reaches the cached list of another', { skip: onPostgres ? false : 'several nodes need PostgreSQL; this runs in the PostgreSQL pass' }, async () => {
  const busUrl = `nats://127.0.0.1:4222?subject=parley.test.${randomBytes(6).toString('hex')}`;
  const a = await startTestServer({ env: { PARLEY_BUS_URL: busUrl, PARLEY_NODE_ID: 'a' } });
  const b = await a.peer({ busUrl, nodeId: 'b' });
  try {
    const onB = new Client({ url: b.url } as TestServer, a.owner.userId, a.owner.email, a.owner.apiKey);
    const render = async (c: Client) => (await c.ok('POST', 'messages/render', { content: 'NX5' })).rendered as string;
    assert.equal(await render(onB), '<p>NX5</p>', "node b caches the organization's empty list");
    const id = (await a.owner.ok('POST', 'realm/filters', { pattern: 'NX(?P<n>[0-9]+)', url_template: 'https://nx.example/{n}' })).id as number;
    // The control message travels through NATS.
    await new Promise((r) => setTimeout(r, 100));
    assert.match(await render(onB), /href="https:\/\/nx\.example\/5"/);
    await a.owner.ok('DELETE', `realm/filters/${id}`);
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(await render(onB), '<p>NX5</p>');
  } finally {
    await b.close();
    await a.close();
  }
});

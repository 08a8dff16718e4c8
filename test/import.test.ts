// parley import: the shared Slack and Mattermost fixtures import with their counts and behave like organizations
// built through the API (rendering, unread counts, search, narrows); damaged exports leave nothing; stub accounts.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import { createHmac } from 'node:crypto';
import yazl from 'yazl';
import { Client, request, startTestServer, type TestServer } from './helpers/server.js';
import { checkConsistency } from './helpers/events.js';
import { runImport } from '../src/import/command.js';
import { readMessageFiles } from '../src/import/zulip.js';
import { mrkdwnToMarkdown } from '../src/import/slack-mrkdwn.js';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const FIXTURES = path.resolve(root, '../shared/fixtures/import');
const present = fs.existsSync(FIXTURES);
if (!present) {
  if (process.env.CI) throw new Error(`the import fixtures are missing at ${FIXTURES}`);
  process.stderr.write(`NOTICE: import fixtures not found at ${FIXTURES}; the import suite is skipped\n`);
}
const SECRET = 'import-test-jwt-secret-long-enough';

let s: TestServer;
before(async () => {
  if (present) s = await startTestServer({ env: { PARLEY_JWT_KEYS: JSON.stringify({ '': { key: SECRET, algorithms: ['HS256'] }, stubs: { key: SECRET, algorithms: ['HS256'] } }) } });
});
after(async () => {
  if (present) await s.close();
});

const app = () => s.running.app;
const db = () => s.running.app.store.db;

/** A client for an imported account (its API key from the database; imported people have no password). */
async function clientFor(subdomain: string, fullName: string): Promise<Client> {
  const u = await db()
    .selectFrom('users')
    .innerJoin('realms', 'realms.id', 'users.realm_id')
    .select(['users.id', 'users.email', 'users.api_key'])
    .where('realms.string_id', '=', subdomain)
    .where('users.full_name', '=', fullName)
    .executeTakeFirstOrThrow();
  return new Client(s, u.id, u.email, u.api_key, `${subdomain}.localhost`);
}

/** GET of a file path (not under /api/v1) as the client, on its organization's host. */
function download(c: Client, filePath: string): Promise<{ status: number; body: Buffer }> {
  const url = new URL(c.server.url);
  const headers: Record<string, string> = { authorization: 'Basic ' + Buffer.from(`${c.email}:${c.apiKey}`).toString('base64') };
  if (c.host) headers.host = c.host;
  return new Promise((resolve, reject) => {
    http
      .get({ hostname: url.hostname, port: url.port, path: filePath, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
      })
      .on('error', reject);
  });
}

async function realmExists(subdomain: string): Promise<boolean> {
  return !!(await db().selectFrom('realms').select('id').where('string_id', '=', subdomain).executeTakeFirst());
}

function copyFixture(name: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `parley-fixture-${name}-`));
  fs.cpSync(path.join(FIXTURES, name), dir, { recursive: true });
  return dir;
}

test('Slack mrkdwn becomes the message Markdown', { skip: !present }, () => {
  const names = { user: (id: string) => ({ U1: 'Ann Lee' })[id], channel: (id: string) => ({ C1: 'general' })[id] };
  const cases: [string, string][] = [
    ['hi <@U1>, see <#C1|general>', 'hi @**Ann Lee**, see #**general**'],
    ['<!here> <!channel> <!everyone>', '@**all** @**channel** @**everyone**'],
    ['*bold* _italic_ ~gone~', '**bold** *italic* ~~gone~~'],
    ['<https://x.test/a?b=1&amp;c=2|the docs> and <https://y.test>', '[the docs](https://x.test/a?b=1&c=2) and https://y.test'],
    ['<mailto:a@b.test|a@b.test>', 'a@b.test'],
    ['run `a *b* c` now', 'run `a *b* c` now'],
    ['look:```x = *1*\ny = 2```', 'look:\n```\nx = *1*\ny = 2\n```'],
    ['1 &lt; 2 &amp;&amp; 3 &gt; 2', '1 < 2 && 3 > 2'],
    ['<@U9> left', '@U9 left'],
  ];
  for (const [input, expected] of cases) assert.equal(mrkdwnToMarkdown(input, names), expected, input);
});

test("the original's message files are read in date order (the fixture's 888, 999, 555)", { skip: !present }, async () => {
  const { messages } = await readMessageFiles(path.join(FIXTURES, 'zulip'));
  assert.deepEqual(
    messages.map((m) => m.id),
    [888, 999, 555],
  );
});

test('Slack fixture: counts, rendering as if sent, archived channel, search and narrows', { skip: !present }, async () => {
  const out = await runImport(app(), { format: 'slack', path: path.join(FIXTURES, 'slack'), subdomain: 'slack' });
  // users.json: 4 people; channels.json: 4 channels; random/: 13 entries of which 4 are joins (not messages).
  assert.deepEqual([out.users, out.bots, out.channels, out.messages, out.direct_messages], [4, 0, 4, 9, 0]);
  const josef = await clientFor('slack', 'Josef K.');
  const rhea = await clientFor('slack', 'Rhea Parekh');
  const channels = (await josef.ok('GET', 'streams', { include_all: true, exclude_archived: false })).streams as any[];
  assert.deepEqual(channels.map((c) => c.name).sort(), ['general', 'general1', 'random', 'sharedchannel']);
  const got = await rhea.ok('GET', 'messages', { anchor: 'oldest', num_before: 0, num_after: 100, narrow: [{ operator: 'channel', operand: 'random' }], apply_markdown: true });
  const msgs = got.messages as any[];
  assert.equal(msgs.length, 9);
  assert.ok(msgs.every((m) => m.subject === 'imported from Slack'));
  assert.deepEqual(
    msgs.map((m) => m.timestamp),
    [...msgs.map((m) => m.timestamp)].sort((a, b) => a - b),
  );
  const byText = (t: string) => msgs.find((m) => m.content.includes(t));
  assert.equal(byText('random</em>').content, '<p>The markdown mapping is also lossy, as Zulip doesn\'t support two types of formatting together like bold and italic <del><strong><em>random</em></strong></del> while slack does</p>');
  assert.match(byText('uploaded a file').content, new RegExp(`<span class="user-mention" data-user-id="${josef.userId}">@Josef K\\.</span> uploaded a file: <a href="https://plan8team\\.slack\\.com/files/U6006P1CN/F8VSW87RR/dirac72\\.md">dirac72\\.md</a>`));
  assert.equal(msgs.filter((m) => m.content.includes('channel-wildcard-mention')).length, 2);
  // The same content sent through the API renders identically.
  await rhea.ok('POST', 'users/me/subscriptions', { subscriptions: [{ name: 'general' }] });
  const sent = await rhea.ok('POST', 'messages', { type: 'stream', to: 'general', topic: 't', content: '~~***random***~~' });
  const again = await rhea.ok('GET', `messages/${sent.id}`);
  assert.equal(again.message.content, '<p><del><strong><em>random</em></strong></del></p>');
  const found = await rhea.ok('GET', 'messages', { anchor: 'newest', num_before: 10, num_after: 0, narrow: [{ operator: 'search', operand: 'Steve' }] });
  assert.equal(found.messages.length, 1);
  const random = channels.find((c) => c.name === 'random');
  assert.equal(random.is_archived, true);
  // Imported history is read: nothing unread for anyone.
  const reg = await josef.ok('POST', 'register', { event_types: ['message', 'update_message_flags'] });
  assert.equal(reg.unread_msgs.count, 0);
});

test('Mattermost team: roles, private channel, replies as topics, reactions and emoji; new messages count as unread', { skip: !present }, async () => {
  const out = await runImport(app(), { format: 'mattermost', path: path.join(FIXTURES, 'mattermost'), team: 'gryffindor', subdomain: 'hogwarts' });
  // gryffindor: ron and harry in the team, snape (posted) and malfoy (reacted) from outside, deactivated.
  assert.deepEqual([out.users, out.channels, out.messages, out.direct_messages, out.reactions, out.reactions_skipped, out.custom_emoji], [4, 3, 19, 0, 7, 0, 2]);
  const harry = await clientFor('hogwarts', 'Harry Potter');
  const ron = await clientFor('hogwarts', 'Ron Weasley');
  const me = await harry.ok('GET', 'users/me');
  assert.equal(me.role, 100);
  assert.equal((await ron.ok('GET', 'users/me')).role, 400);
  const users = (await harry.ok('GET', 'users')).members as any[];
  assert.deepEqual(users.filter((u) => !u.is_bot).map((u) => [u.full_name, u.is_active, u.is_imported_stub]).sort(), [
    ['Harry Potter', true, true],
    ['Ron Weasley', true, true],
    ['Severus Snape', false, true],
    ['malfoy', false, true],
  ]);
  const army = ((await harry.ok('GET', 'streams', { include_all: true })).streams as any[]).find((c) => c.name === 'Dumbledores army');
  assert.equal(army.invite_only, true);
  const topics = ((await harry.ok('GET', `users/me/${army.stream_id}/topics`)).topics as any[]).map((t) => t.name).sort();
  assert.deepEqual(topics, ['harry joined the channel.', 'imported from Mattermost', 'This will crash html2text!!! <g:brand><![CDATSALOMON NO…'].sort());
  const quidditch = await harry.ok('GET', 'messages', { anchor: 'oldest', num_before: 0, num_after: 50, narrow: [{ operator: 'channel', operand: 'Gryffindor quidditch team' }] });
  const hello = (quidditch.messages as any[]).find((m) => m.content === '<p>Hello world</p>');
  assert.deepEqual(hello.reactions.map((r: any) => r.emoji_name).sort(), ['big_smile', 'tick', 'world_map']);
  const welcome = (quidditch.messages as any[]).find((m) => m.content.includes('Welcome mate'));
  assert.equal(welcome.content, `<p><span class="user-mention" data-user-id="${ron.userId}">@Ron Weasley</span> Welcome mate!</p>`);
  const ronView = await ron.ok('GET', `messages/${welcome.id}`);
  assert.ok(ronView.message.flags.includes('mentioned'));
  const emoji = (await harry.ok('GET', 'realm/emoji')).emoji as Record<string, any>;
  assert.deepEqual(Object.values(emoji).map((e) => e.name).sort(), ['peerdium', 'tick']);

  // Unread floors after the import: a new message is unread for the other subscriber, and only it.
  const before = await ron.ok('POST', 'register', { event_types: ['message', 'update_message_flags'] });
  assert.equal(before.unread_msgs.count, 0);
  await harry.ok('POST', 'messages', { type: 'stream', to: 'Gryffindor quidditch team', topic: 'after import', content: 'fresh' });
  const reg = await ron.ok('POST', 'register', { event_types: ['message', 'update_message_flags'] });
  assert.equal(reg.unread_msgs.count, 1);
  const unread = await ron.ok('GET', 'messages', { anchor: 'first_unread', num_before: 0, num_after: 10, narrow: [{ operator: 'is', operand: 'unread' }] });
  assert.deepEqual(
    (unread.messages as any[]).map((m) => m.content),
    ['<p>fresh</p>'],
  );
  // A person added to the private channel later reads its whole history, as in the source system.
  const realm = await db().selectFrom('realms').selectAll().where('string_id', '=', 'hogwarts').executeTakeFirstOrThrow();
  const luna = await s.user('Luna Lovegood', 400, { realm, host: 'hogwarts.localhost' });
  await harry.ok('POST', 'users/me/subscriptions', { subscriptions: [{ name: 'Dumbledores army' }], principals: [luna.userId] });
  const history = await luna.ok('GET', 'messages', { anchor: 'newest', num_before: 50, num_after: 0, narrow: [{ operator: 'channel', operand: 'Dumbledores army' }] });
  assert.equal(history.messages.length, 7);
});

test('Mattermost roles: system admin, team admin, member and guest; replies as one topic', { skip: !present }, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-mm-roles-'));
  const member = (username: string, roles: string, teamRoles: string) => ({
    type: 'user',
    user: { username, email: `${username}@mm.test`, first_name: username, last_name: 'Test', roles, teams: [{ name: 'crew', roles: teamRoles, channels: [{ name: 'deck', roles: 'channel_user' }] }] },
  });
  const lines = [
    { type: 'version', version: 1 },
    { type: 'team', team: { name: 'crew', display_name: 'The Crew', type: 'O' } },
    { type: 'channel', channel: { team: 'crew', name: 'deck', display_name: 'Deck', type: 'O', purpose: 'On deck' } },
    member('cap', 'system_admin system_user', 'team_user'),
    member('mate', 'system_user', 'team_admin team_user'),
    member('hand', 'system_user', 'team_user'),
    member('visitor', 'system_guest', 'team_guest'),
    { type: 'post', post: { team: 'crew', channel: 'deck', user: 'cap', message: 'Storm ahead, ~deck and @visitor', create_at: 1600000000000, reactions: [{ user: 'hand', emoji_name: 'thumbsup' }], replies: [{ user: 'visitor', message: 'noted', create_at: 1600000001000 }] } },
  ];
  fs.writeFileSync(path.join(dir, 'export.json'), lines.map((l) => JSON.stringify(l)).join('\n'));
  const out = await runImport(app(), { format: 'mattermost', path: dir, subdomain: 'crew' });
  assert.deepEqual([out.users, out.messages, out.reactions], [4, 2, 1]);
  const cap = await clientFor('crew', 'cap Test');
  const roles = Object.fromEntries(((await cap.ok('GET', 'users')).members as any[]).filter((u) => !u.is_bot).map((u) => [u.full_name, u.role]));
  assert.deepEqual(roles, { 'cap Test': 100, 'mate Test': 200, 'hand Test': 400, 'visitor Test': 600 });
  const visitor = await clientFor('crew', 'visitor Test');
  const thread = await visitor.ok('GET', 'messages', { anchor: 'oldest', num_before: 0, num_after: 10, narrow: [{ operator: 'channel', operand: 'Deck' }] });
  assert.deepEqual(
    (thread.messages as any[]).map((m) => m.subject),
    ['Storm ahead, ~deck and @visitor', 'Storm ahead, ~deck and @visitor'],
  );
  assert.match(thread.messages[0].content, /<a class="stream" data-stream-id="\d+" href="[^"]*">#Deck<\/a> and <span class="user-mention" data-user-id="\d+">@visitor Test<\/span>/);
  assert.deepEqual(thread.messages[0].reactions.map((r: any) => [r.emoji_name, r.emoji_code]), [['+1', '1f44d']]);
  fs.rmSync(dir, { recursive: true, force: true });
});

test('Mattermost direct messages and group messages, attachments, control characters', { skip: !present }, async () => {
  const out = await runImport(app(), { format: 'mattermost', path: path.join(FIXTURES, 'mattermost', 'direct_channel'), subdomain: 'dms' });
  assert.deepEqual([out.users, out.channels, out.messages, out.direct_messages, out.attachments], [4, 3, 4, 7, 2]);
  const harry = await clientFor('dms', 'Harry Potter');
  const ginny = await clientFor('dms', 'Ginny Weasley');
  const dms = await harry.ok('GET', 'messages', { anchor: 'oldest', num_before: 0, num_after: 50, narrow: [{ operator: 'is', operand: 'dm' }] });
  assert.equal(dms.messages.length, 7);
  const group = (dms.messages as any[]).filter((m) => m.display_recipient.length === 3);
  assert.equal(group.length, 3);
  assert.ok(group.some((m) => m.content === '<p>Hello How Are you</p>'));
  const ginnyGroup = await ginny.ok('GET', 'messages', { anchor: 'oldest', num_before: 0, num_after: 50, narrow: [{ operator: 'dm', operand: [harry.userId, ginny.userId, (await clientFor('dms', 'Ron Weasley')).userId] }] });
  assert.equal(ginnyGroup.messages.length, 3);
  const withFile = (dms.messages as any[]).find((m) => m.content.includes('harry-ron.jpg'));
  const href = /href="(\/user_uploads\/[^"]+)"/.exec(withFile.content)![1];
  const file = await download(harry, href);
  assert.equal(file.status, 200);
  assert.deepEqual(file.body, fs.readFileSync(path.join(FIXTURES, 'mattermost/direct_channel/data/20210622/teams/noteam/channels/mcrm7xee5bnpzn7u9ktsd91dwy/users/knq189b88fdxbdkeeasdynia4o/o3to4ezua3bajj31mzpkn96n5e/harry-ron.jpg')));
  // Ginny was not in that conversation: the file is not hers to read.
  assert.notEqual((await download(ginny, href)).status, 200);
});

/** The Slack fixture as a .zip with one top folder, as Slack's download has it (yazl writes, the importer reads with yauzl). */
async function zipOf(dir: string, top: string, target: string): Promise<void> {
  const zip = new yazl.ZipFile();
  for (const e of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (e.isFile()) zip.addFile(path.join(e.parentPath, e.name), `${top}/${path.relative(dir, path.join(e.parentPath, e.name))}`);
  }
  zip.end();
  await new Promise<void>((resolve, reject) => zip.outputStream.pipe(fs.createWriteStream(target)).on('close', resolve).on('error', reject));
}

test('a .zip export imports like its directory; a damaged archive is refused', { skip: !present }, async () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-zip-'));
  const archive = path.join(tmp, 'slack-export.zip');
  await zipOf(path.join(FIXTURES, 'slack'), 'Acme Slack export', archive);
  const out = await runImport(app(), { format: 'slack', path: archive, subdomain: 'zipped' });
  assert.deepEqual([out.users, out.channels, out.messages], [4, 4, 9]);
  fs.writeFileSync(path.join(tmp, 'cut.zip'), fs.readFileSync(archive).subarray(0, 200));
  await assert.rejects(runImport(app(), { format: 'slack', path: path.join(tmp, 'cut.zip'), subdomain: 'cut' }), /cannot unpack/);
  assert.equal(await realmExists('cut'), false);
  fs.rmSync(tmp, { recursive: true, force: true });
});

test('refusals: an existing subdomain, and damaged exports leave no organization and no files behind', { skip: !present }, async () => {
  await assert.rejects(runImport(app(), { format: 'slack', path: path.join(FIXTURES, 'slack'), subdomain: 'slack' }), /already exists/);
  await assert.rejects(runImport(app(), { format: 'mattermost', path: path.join(FIXTURES, 'mattermost') }), /pick one with --team/);

  const truncated = copyFixture('slack');
  const usersJson = fs.readFileSync(path.join(truncated, 'users.json'), 'utf8');
  fs.writeFileSync(path.join(truncated, 'users.json'), usersJson.slice(0, usersJson.length / 2));
  await assert.rejects(runImport(app(), { format: 'slack', path: truncated, subdomain: 'broken1' }), /users\.json is not valid JSON/);
  assert.equal(await realmExists('broken1'), false);

  const unknown = copyFixture('slack');
  const day = path.join(unknown, 'random', '2017-06-25.json');
  fs.writeFileSync(day, fs.readFileSync(day, 'utf8').replace('"user": "U6006P1CN",\n        "text": "edfadfa"', '"user": "U0NOBODY",\n        "text": "edfadfa"'));
  await assert.rejects(runImport(app(), { format: 'slack', path: unknown, subdomain: 'broken2' }), /unknown user ID U0NOBODY/);
  assert.equal(await realmExists('broken2'), false);

  // A missing attachment fails after other files were written: the transaction rolls back and those files go.
  const missing = copyFixture('mattermost');
  fs.rmSync(path.join(missing, 'direct_channel/data/20210622/teams/noteam/channels/mcrm7xee5bnpzn7u9ktsd91dwy/users/knq189b88fdxbdkeeasdynia4o/smaa5epsnp89tgjszzue1691ao/this is a file'));
  const usersBefore = Number((await db().selectFrom('users').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
  await assert.rejects(runImport(app(), { format: 'mattermost', path: path.join(missing, 'direct_channel'), subdomain: 'broken3' }), /missing file for attachment "this is a file"/);
  assert.equal(await realmExists('broken3'), false);
  assert.equal(Number((await db().selectFrom('users').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n), usersBefore);
  const uploads = path.join(app().config.dataDir, 'uploads');
  const files = fs.existsSync(uploads) ? fs.readdirSync(uploads, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => e.name) : [];
  assert.equal(files.filter((f) => f === 'harry-ron.jpg').length, 1, 'only the successful import keeps its copy');
  for (const d of [truncated, unknown, missing]) fs.rmSync(d, { recursive: true, force: true });
});

const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
function jwt(email: string): string {
  const body = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64({ email, exp: Math.floor(Date.now() / 1000) + 60 })}`;
  return `${body}.${createHmac('sha256', SECRET).update(body).digest('base64url')}`;
}

test('stub accounts: no password logs them in; the first login ends the stub with both realm_user updates', { skip: !present }, async () => {
  await runImport(app(), { format: 'slack', path: path.join(FIXTURES, 'slack'), subdomain: 'stubs' });
  const host = 'stubs.localhost';
  const steve = await clientFor('stubs', 'Steve Howell');
  const rhea = await clientFor('stubs', 'Rhea Parekh');
  const row = await db().selectFrom('users').selectAll().where('id', '=', steve.userId).executeTakeFirstOrThrow();
  assert.equal(row.password_hash, null);
  for (const password of ['', 'password', row.api_key, steve.email]) {
    const r = await request(s.url, 'POST', 'fetch_api_key', { username: steve.email, password }, { host });
    assert.notEqual(r.status, 200, `password ${JSON.stringify(password)} must not log a stub in`);
  }
  assert.equal((await steve.ok('GET', 'users/me')).is_imported_stub, true);
  const events = await checkConsistency(
    rhea,
    async () => {
      const r = await request(s.url, 'POST', 'jwt/fetch_api_key', { token: jwt(steve.email) }, { host });
      assert.equal(r.status, 200, JSON.stringify(r.body));
    },
    { expect: ['realm_user'] },
  );
  const updates = events.filter((e) => e.type === 'realm_user' && e.op === 'update' && e.person.user_id === steve.userId).map((e) => Object.keys(e.person).sort().join(','));
  assert.deepEqual(updates, ['is_imported_stub,user_id', 'date_joined,user_id']);
  const after = await steve.ok('GET', 'users/me');
  assert.equal(after.is_imported_stub, false);
});

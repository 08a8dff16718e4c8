// Imported stub accounts claimed by their owners: the forgotten-password flow of the web client's
// /accounts/ pages and an invitation to the existing account; the first login ends the stub with both
// realm_user updates (checked by the events-consistency machinery), later logins change nothing.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import http from 'node:http';
import { Client, encodeParams, request, startTestServer, type TestServer } from './helpers/server.js';
import { checkConsistency } from './helpers/events.js';
import { mailedKey } from './helpers/outbox.js';
import { runImport } from '../src/import/command.js';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const SLACK = path.resolve(root, '../shared/fixtures/import/slack');
const present = fs.existsSync(SLACK);

let s: TestServer;
before(async () => {
  if (present) s = await startTestServer();
});
after(async () => {
  if (present) await s.close();
});

/** A client for an imported account (its API key from the database; imported people have no password). */
async function clientFor(subdomain: string, fullName: string): Promise<Client> {
  const u = await s.running.app.store.db
    .selectFrom('users')
    .innerJoin('realms', 'realms.id', 'users.realm_id')
    .select(['users.id', 'users.email', 'users.api_key'])
    .where('realms.string_id', '=', subdomain)
    .where('users.full_name', '=', fullName)
    .executeTakeFirstOrThrow();
  return new Client(s, u.id, u.email, u.api_key, `${subdomain}.localhost`);
}

/** A same-origin form POST to the web client's /accounts/ pages on an organization's host. */
function accounts(host: string, page: string, params: Record<string, string>): Promise<{ status: number; body: Record<string, any> }> {
  const url = new URL(s.url);
  const body = encodeParams(params);
  return new Promise((resolve, reject) => {
    const req = http.request(
      { hostname: url.hostname, port: url.port, method: 'POST', path: `/accounts/${page}`, headers: { host, 'content-type': 'application/x-www-form-urlencoded', 'content-length': String(Buffer.byteLength(body)) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, any> }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** The realm_user updates about one user, as the sorted field names of each. */
const updatesOf = (events: any[], userId: number) => events.filter((e) => e.type === 'realm_user' && e.op === 'update' && e.person.user_id === userId).map((e) => Object.keys(e.person).sort().join(','));

async function stubRow(userId: number) {
  return s.running.app.store.db.selectFrom('users').select(['is_imported_stub', 'date_joined', 'password_hash']).where('id', '=', userId).executeTakeFirstOrThrow();
}

test('forgotten password: the mailed link sets a password, the first web login ends the stub with both updates', { skip: !present }, async () => {
  await runImport(s.running.app, { format: 'slack', path: SLACK, subdomain: 'stubreset' });
  const host = 'stubreset.localhost';
  const steve = await clientFor('stubreset', 'Steve Howell');
  const rhea = await clientFor('stubreset', 'Rhea Parekh');
  const imported = await stubRow(steve.userId);
  assert.equal(imported.is_imported_stub, 1);

  assert.equal((await accounts(host, 'password/reset', { email: steve.email })).status, 200);
  const key = mailedKey(s, steve.email, /\/reset-password\?key=([\w-]+)/);
  const set = await accounts(host, 'password/set', { key, new_password: 'steve-chose-this' });
  assert.equal(set.status, 200, JSON.stringify(set.body));
  // Setting the password is not a login: the account is still a stub until its owner signs in.
  assert.equal((await steve.ok('GET', 'users/me')).is_imported_stub, true);

  const before = Math.floor(Date.now() / 1000);
  const events = await checkConsistency(
    rhea,
    async () => {
      const r = await accounts(host, 'login', { username: steve.email, password: 'steve-chose-this' });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.equal(r.body.user_id, steve.userId);
    },
    { expect: ['realm_user'] },
  );
  assert.deepEqual(updatesOf(events, steve.userId), ['is_imported_stub,user_id', 'date_joined,user_id']);
  const claimed = await stubRow(steve.userId);
  assert.equal(claimed.is_imported_stub, 0);
  assert.ok(claimed.date_joined >= before && claimed.date_joined !== imported.date_joined, 'date_joined is the first login');
  const me = await steve.ok('GET', 'users/me');
  assert.equal(me.is_imported_stub, false);

  // A second login is not a first login: no events.
  const again = await checkConsistency(rhea, async () => {
    assert.equal((await accounts(host, 'login', { username: steve.email, password: 'steve-chose-this' })).status, 200);
  });
  assert.deepEqual(updatesOf(again, steve.userId), []);
});

test('an invitation to an imported stub claims that account: no second account, the first login ends the stub', { skip: !present }, async () => {
  await runImport(s.running.app, { format: 'slack', path: SLACK, subdomain: 'stubinvite' });
  const host = 'stubinvite.localhost';
  // Josef K. is the workspace's primary owner.
  const owner = await clientFor('stubinvite', 'Josef K.');
  const rhea = await clientFor('stubinvite', 'Rhea Parekh');
  const steve = await clientFor('stubinvite', 'Steve Howell');
  const countUsers = async () => (await owner.ok('GET', 'users')).members.length;
  const people = await countUsers();

  await owner.ok('POST', 'invites', { invitee_emails: steve.email, stream_ids: [] });
  const key = mailedKey(s, steve.email, /\/api\/v1\/invites\/accept\?key=([A-Za-z0-9_-]+)/);
  const accepted = await request(s.url, 'POST', 'invites/accept', { key, full_name: 'Steven Howell', password: 'invited-password' }, { host });
  assert.equal(accepted.status, 200, JSON.stringify(accepted.body));
  assert.equal(accepted.body.user_id, steve.userId, 'the existing account, not a new one');
  assert.equal(await countUsers(), people);
  assert.equal((await stubRow(steve.userId)).is_imported_stub, 1, 'still a stub until the first login');

  const events = await checkConsistency(
    rhea,
    async () => {
      const r = await request(s.url, 'POST', 'fetch_api_key', { username: steve.email, password: 'invited-password' }, { host });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.equal(r.body.user_id, steve.userId);
    },
    { expect: ['realm_user'] },
  );
  assert.deepEqual(updatesOf(events, steve.userId), ['is_imported_stub,user_id', 'date_joined,user_id']);
  const me = await steve.ok('GET', 'users/me');
  assert.equal(me.is_imported_stub, false);
  // The imported history stays the account's own.
  assert.equal(me.full_name, 'Steve Howell');

  // Once claimed, the address has an account like any other: a new invitation is refused.
  const again = await owner.api('POST', 'invites', { invitee_emails: steve.email, stream_ids: [] });
  assert.equal(again.status, 400);
  assert.match(JSON.stringify(again.body), /Already has an account/);
});

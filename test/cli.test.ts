// The parley command line: create-realm and create-user print one JSON line; serve bootstraps once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { runCli } from '../src/cli.js';
import { request } from './helpers/server.js';
import { freshStorage, startServeProcess } from './helpers/storage.js';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');

async function cli(args: string[]): Promise<{ code: number; lines: string[] }> {
  const lines: string[] = [];
  const code = await runCli(args, (s) => lines.push(s));
  return { code, lines };
}

test('create-realm and create-user print one JSON line each', async () => {
  const st = await freshStorage();
  try {
    const realm = await cli(['create-realm', '--name', 'Acme', '--subdomain', 'acme', '--owner-email', 'boss@acme.test', '--owner-name', 'Boss', '--owner-password', 'pw1', ...st.args]);
    assert.equal(realm.code, 0);
    assert.equal(realm.lines.length, 1);
    const r = JSON.parse(realm.lines[0]);
    assert.deepEqual(Object.keys(r).sort(), ['api_key', 'email', 'realm_id', 'realm_url', 'user_id']);
    assert.equal(r.email, 'boss@acme.test');
    assert.match(r.realm_url, /acme\./);
    const user = await cli(['create-user', '--realm', 'acme', '--email', 'ann@acme.test', '--name', 'Ann', '--password', 'pw2', '--role', '600', ...st.args]);
    assert.equal(user.code, 0);
    const u = JSON.parse(user.lines[0]);
    assert.equal(u.email, 'ann@acme.test');
    assert.equal(u.realm_id, r.realm_id);
    assert.notEqual(u.api_key, r.api_key);
    const dup = await cli(['create-user', '--realm', 'acme', '--email', 'ann@acme.test', '--name', 'Ann', '--password', 'pw2', ...st.args]);
    assert.equal(dup.code, 1);
    const badRole = await cli(['create-user', '--realm', 'acme', '--email', 'x@acme.test', '--name', 'X', '--password', 'pw', '--role', '7', ...st.args]);
    assert.equal(badRole.code, 1);
    const missing = await cli(['create-realm', '--name', 'NoOwner', ...st.args]);
    assert.equal(missing.code, 1);
  } finally {
    await st.cleanup();
  }
});

test('serve creates a first organization once and prints its login', async () => {
  const st = await freshStorage();
  const start = () => startServeProcess(root, st);
  try {
    const first = await start();
    const email = /Email:\s+(\S+)/.exec(first.out)?.[1];
    const key = /API key:\s+(\S+)/.exec(first.out)?.[1];
    assert.ok(email && key, first.out);
    const me = await request(first.url, 'GET', 'users/me', {}, { auth: { email, apiKey: key } });
    assert.equal(me.status, 200);
    assert.equal(me.body.role, 100);
    await first.stop();
    const second = await start();
    assert.doesNotMatch(second.out, /Password:/, 'the login is printed only on the first start');
    await second.stop();
  } finally {
    await st.cleanup();
  }
});

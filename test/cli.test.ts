// The parley command line: create-realm and create-user print one JSON line; serve bootstraps once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import pg from 'pg';
import { randomBytes } from 'node:crypto';
import { runCli } from '../src/cli.js';
import { request } from './helpers/server.js';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const PG_BASE = process.env.PARLEY_TEST_PG_URL ?? '';

/** A fresh data directory, plus a fresh PostgreSQL database when the suite runs on PostgreSQL. */
async function freshStorage(): Promise<{ args: string[]; env: Record<string, string>; cleanup: () => Promise<void> }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-cli-'));
  if (!PG_BASE) return { args: ['--data-dir', dir], env: { PARLEY_DATA_DIR: dir }, cleanup: async () => fs.rmSync(dir, { recursive: true, force: true }) };
  const name = `parley_cli_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: `${PG_BASE}/postgres` });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = `${PG_BASE}/${name}`;
  return {
    args: ['--data-dir', dir, '--database-url', url],
    env: { PARLEY_DATA_DIR: dir, PARLEY_DATABASE_URL: url },
    cleanup: async () => {
      fs.rmSync(dir, { recursive: true, force: true });
      const a = new pg.Client({ connectionString: `${PG_BASE}/postgres` });
      await a.connect();
      await a.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await a.end();
    },
  };
}

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
  const start = () =>
    new Promise<{ out: string; url: string; stop: () => Promise<void> }>((resolve, reject) => {
      const child = spawn(process.execPath, [path.join(root, 'bin/parley.js'), 'serve', '--port', '0', ...st.args], { env: { ...process.env, ...st.env } });
      let out = '';
      const timer = setTimeout(() => reject(new Error('serve did not start: ' + out)), 20000);
      child.stdout.on('data', (d) => {
        out += d;
        const m = /listening on (http:\/\/[^\s]+)/.exec(out);
        if (m) {
          clearTimeout(timer);
          resolve({ out, url: m[1], stop: () => new Promise((r) => { child.once('exit', () => r()); child.kill('SIGTERM'); }) });
        }
      });
      child.stderr.on('data', (d) => (out += d));
    });
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

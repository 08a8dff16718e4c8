// README.md's `sh` blocks run as written, beside a server as `npm start` runs it: adding people,
// the original's unmodified Python client with a zuliprc, a second organization, backup and restore.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { freshStorage, startServeProcess } from './helpers/storage.js';
import { freePort, root } from './helpers/cli.js';

const CLIENT = path.resolve(root, '../shared/clients/python-zulip-api');
const PYTHON = '/usr/bin/python3';
const pythonReady = fs.existsSync(path.join(CLIENT, 'zulip/zulip/__init__.py')) && spawnSync(PYTHON, ['-c', 'import requests, distro, typing_extensions']).status === 0;
const acmeResolves = spawnSync(PYTHON, ['-c', 'import socket; socket.getaddrinfo("acme.localhost", 80)']).status === 0;
const missing = [
  !pythonReady && `the Python client (${CLIENT}) or Debian's python3-requests, python3-distro, python3-typing-extensions`,
  !acmeResolves && 'a resolver for *.localhost (Debian: libnss-myhostname)',
].filter(Boolean);
if (missing.length) {
  if (process.env.CI) throw new Error(`CI needs ${missing.join(' and ')}`);
  console.log(`NOTE: the README walkthrough test was SKIPPED: it needs ${missing.join(' and ')}.`);
}

/** The `sh` blocks of a README section, in order. */
function shBlocks(readme: string, heading: string): string[] {
  const start = readme.indexOf(`\n## ${heading}\n`);
  assert.ok(start >= 0, `README has a section "${heading}"`);
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end < 0 ? undefined : end);
  const blocks = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]);
  assert.ok(blocks.length > 0, `section "${heading}" has sh blocks`);
  return blocks;
}

test('the README walkthrough runs as written with the unmodified Python client', { skip: missing.length > 0 }, async () => {
  const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
  const st = await freshStorage();
  const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-readme-'));
  const shims = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-shims-'));
  try {
    fs.symlinkSync(CLIENT, path.join(cwd, 'python-zulip-api'));
    // `npx parley` as in the package's directory (npx finds its own bin there; here, outside it, it
    // would look in the registry); python3 as Debian's, which has the client's packages.
    fs.writeFileSync(path.join(shims, 'npx'), `#!/bin/sh\n[ "$1" = parley ] || exit 99\nshift\nexec "${process.execPath}" "${path.join(root, 'bin/parley.js')}" "$@"\n`, { mode: 0o755 });
    fs.symlinkSync(PYTHON, path.join(shims, 'python3'));
    const port = await freePort();
    // What `npm start` runs, on this test's storage and port (the walkthrough uses the defaults otherwise).
    const env = { ...st.env, PARLEY_PORT: String(port), HOME: cwd, PATH: `${shims}:${process.env.PATH}` };
    const sh = (block: string) => {
      const r = spawnSync('bash', ['-euo', 'pipefail', '-c', block], { cwd, env: { ...process.env, ...env }, encoding: 'utf8' });
      assert.equal(r.status, 0, `${block}\n--- stdout:\n${r.stdout}\n--- stderr:\n${r.stderr}`);
      return r.stdout;
    };
    let server = await startServeProcess(root, { ...st, args: [] }, [], env);
    try {
      const [people] = shBlocks(readme, 'Adding people to the first organization');
      const peopleOut = sh(people).trim().split('\n');
      assert.equal(peopleOut.length, 3, 'one JSON line per command');
      const ann = JSON.parse(peopleOut[0]);
      assert.equal(ann.realm_url, `http://localhost:${port}`, 'the URL of the running server');
      assert.equal(fs.statSync(path.join(cwd, 'ann.zuliprc')).mode & 0o777, 0o600);
      const listed = JSON.parse(peopleOut[2]).users.map((u: any) => [u.email, u.role]);
      assert.deepEqual(listed.filter(([e]: string[]) => !e.endsWith('.system@localhost')), [['owner@example.com', 100], ['ann@example.com', 400], ['bob@example.com', 300]]);

      const [python] = shBlocks(readme, 'Connecting clients');
      assert.deepEqual(sh(python).trim().split('\n'), ['success', '<p>Hello from Python</p>']);

      const [second] = shBlocks(readme, 'A second organization');
      const secondOut = sh(second).trim().split('\n');
      assert.equal(JSON.parse(secondOut[0]).realm_url, `http://acme.localhost:${port}`);
      assert.equal(secondOut[1], 'Acme', 'the Python client reached the second organization by its URL');

      const [backup, restore] = shBlocks(readme, 'Backup and restore');
      const made = JSON.parse(sh(backup).trim());
      assert.ok(made.bytes > 0);
      await server.stop();
      const restored = JSON.parse(sh(restore).trim());
      assert.equal(restored.realms, 2);
      assert.ok(restored.messages >= 1);
      server = await startServeProcess(root, { ...st, args: [] }, [], env);
      // The restored server still knows Ann and her message.
      assert.deepEqual(sh(python).trim().split('\n'), ['success', '<p>Hello from Python</p>']);
    } finally {
      await server.stop();
    }
  } finally {
    fs.rmSync(cwd, { recursive: true, force: true });
    fs.rmSync(shims, { recursive: true, force: true });
    await st.cleanup();
  }
});

test('README: the two commands stay at the top; every command it names exists', () => {
  const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
  const quick = readme.slice(readme.indexOf('## Quick start'), readme.indexOf('\n## ', readme.indexOf('## Quick start') + 1));
  assert.match(quick, /\n {4}npm install && npm start\n/);
  assert.match(quick, /\n {4}npm test\n/);
  const named = new Set([...readme.matchAll(/npx parley ([a-z][a-z-]*)/g)].map((m) => m[1]));
  const help = spawnSync(process.execPath, [path.join(root, 'bin/parley.js'), '--help'], { encoding: 'utf8' }).stdout;
  for (const command of named) assert.match(help, new RegExp(`\\n  ${command} `), `README names "${command}"`);
  // `[--role 400]` in a line to copy once passed "[--role" to the command.
  const toCopy = readme.split('\n').filter((l) => /^( {4})?(PARLEY_\S+ )*npx parley /.test(l));
  assert.ok(toCopy.length >= 5);
  for (const line of toCopy) assert.doesNotMatch(line, /\[--/, line);
});

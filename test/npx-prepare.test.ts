// `npx parley` right after `npm install`: npm's prepare step builds dist/ on a fresh checkout.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { root } from './helpers/cli.js';

// Nothing here touches a database: it runs once, in the SQLite pass.
const onPostgres = !!process.env.PARLEY_TEST_PG_URL;

test('prepare builds a fresh checkout so npx parley runs; it skips when dist is current and in CI', { skip: onPostgres && 'database-independent: runs in the SQLite pass' }, () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  assert.equal(pkg.scripts.prepare, 'node scripts/prepare.mjs', 'npm install and npm ci run it');
  const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-checkout-'));
  try {
    // A checkout as git gives it: sources, no dist/; the installed modules are borrowed.
    for (const entry of ['package.json', 'tsconfig.json', 'bin', 'scripts', 'src', 'test', 'bench', 'web']) {
      if (fs.existsSync(path.join(root, entry))) fs.cpSync(path.join(root, entry), path.join(copy, entry), { recursive: true });
    }
    fs.symlinkSync(path.join(root, 'node_modules'), path.join(copy, 'node_modules'));
    const env: Record<string, string | undefined> = { ...process.env, CI: '' };
    delete env.CI;
    const ci = spawnSync(process.execPath, ['scripts/prepare.mjs'], { cwd: copy, env: { ...env, CI: 'true' }, encoding: 'utf8' });
    assert.equal(ci.status, 0, ci.stderr);
    assert.ok(!fs.existsSync(path.join(copy, 'dist')), 'CI skips it (npm test builds)');

    const built = spawnSync(process.execPath, ['scripts/prepare.mjs'], { cwd: copy, env, encoding: 'utf8' });
    assert.equal(built.status, 0, built.stdout + built.stderr);
    const cliJs = path.join(copy, 'dist/src/cli.js');
    assert.ok(fs.existsSync(cliJs));
    assert.ok(fs.existsSync(path.join(copy, 'dist/public/index.html')), 'the web client is built too');
    const after = spawnSync('npx', ['--no-install', 'parley', '--version'], { cwd: copy, env, encoding: 'utf8' });
    assert.equal(after.status, 0, after.stderr);
    assert.equal(after.stdout.trim(), pkg.version);

    const stamp = fs.statSync(cliJs).mtimeMs;
    const again = spawnSync(process.execPath, ['scripts/prepare.mjs'], { cwd: copy, env, encoding: 'utf8' });
    assert.equal(again.status, 0);
    assert.equal(fs.statSync(cliJs).mtimeMs, stamp, 'a current dist/ is not built again');
  } finally {
    fs.rmSync(copy, { recursive: true, force: true });
  }
});

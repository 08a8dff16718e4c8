#!/usr/bin/env node
// Runs the compiled test suite on SQLite, then again on PostgreSQL when one is reachable
// (always in CI, where a missing PostgreSQL is a failure rather than a skip).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const pgBase = process.env.PARLEY_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432';
const inCI = !!process.env.CI;
const only = process.argv.slice(2);

function testFiles(dir) {
  const out = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...testFiles(p));
    else if (e.name.endsWith('.test.js')) out.push(p);
  }
  return out.sort();
}

async function pgReachable() {
  const c = new pg.Client({ connectionString: `${pgBase}/postgres`, connectionTimeoutMillis: 3000 });
  try {
    await c.connect();
    await c.query('SELECT 1');
    await c.end();
    return true;
  } catch {
    return false;
  }
}

function run(label, env) {
  let files = [...testFiles(path.join(root, 'dist/test')), ...testFiles(path.join(root, 'dist/src'))];
  if (only.length) files = files.filter((f) => only.some((o) => f.includes(o)));
  console.log(`\n=== ${label}: ${files.length} test files ===`);
  const r = spawnSync(process.execPath, ['--test', '--test-concurrency=3', ...files], { stdio: 'inherit', env: { ...process.env, ...env } });
  return r.status === 0;
}

const results = [];
results.push(['SQLite', run('SQLite', { PARLEY_TEST_PG_URL: '' })]);
if (await pgReachable()) {
  results.push(['PostgreSQL', run('PostgreSQL', { PARLEY_TEST_PG_URL: pgBase })]);
} else if (inCI) {
  console.error(`\nPostgreSQL at ${pgBase} is not reachable, and CI requires the PostgreSQL run.`);
  results.push(['PostgreSQL', false]);
} else {
  console.log(`\nNOTE: the PostgreSQL run was SKIPPED: no PostgreSQL server at ${pgBase} (set PARLEY_TEST_PG_URL to use another).`);
}
console.log('\n' + results.map(([n, ok]) => `${n}: ${ok ? 'passed' : 'FAILED'}`).join('\n'));
process.exit(results.every(([, ok]) => ok) ? 0 : 1);

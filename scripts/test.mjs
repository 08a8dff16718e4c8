#!/usr/bin/env node
// Runs the compiled test suite on SQLite, then again on PostgreSQL when one is reachable
// (always in CI, where a missing PostgreSQL is a failure rather than a skip).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
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

/**
 * Whether a compiled test file can reach a database the run chooses: some module it imports (relative
 * imports, followed through) reads PARLEY_TEST_PG_URL. The others (parsers, renderers, the CLI's
 * own checks) would only repeat themselves in the PostgreSQL pass, so they run in the SQLite pass alone.
 */
const reachesDatabase = (() => {
  const memo = new Map();
  const importRe = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s*['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;
  const visit = (file, seen) => {
    if (memo.has(file)) return memo.get(file);
    if (seen.has(file) || !fs.existsSync(file)) return false;
    seen.add(file);
    const text = fs.readFileSync(file, 'utf8');
    let found = text.includes('PARLEY_TEST_PG_URL');
    for (const m of text.matchAll(importRe)) {
      if (found) break;
      found = visit(path.resolve(path.dirname(file), m[1] ?? m[2]), seen);
    }
    // Only a positive answer is final: a negative one may be partial while a cycle is being walked.
    if (found) memo.set(file, true);
    return found;
  };
  return (file) => visit(file, new Set());
})();

function run(label, env, filter = () => true) {
  let files = [...testFiles(path.join(root, 'dist/test')), ...testFiles(path.join(root, 'dist/src'))].filter(filter);
  if (only.length) files = files.filter((f) => only.some((o) => f.includes(o)));
  console.log(`\n=== ${label}: ${files.length} test files ===`);
  const r = spawnSync(process.execPath, ['--test', '--test-concurrency=3', ...files], { stdio: 'inherit', env: { ...process.env, ...env } });
  return r.status === 0;
}

/**
 * A migrated database for the pass, which test servers copy instead of each applying every
 * migration (seconds per server on PostgreSQL). Without one they migrate as a fresh install does.
 */
function migrateTemplate(args) {
  const r = spawnSync(process.execPath, [path.join(root, 'bin/parley.js'), 'migrate', ...args], { encoding: 'utf8' });
  if (r.status !== 0) console.log(`(no migrated template: ${r.stderr.trim().split('\n').pop()})`);
  return r.status === 0;
}

async function pgAdmin(sql) {
  const c = new pg.Client({ connectionString: `${pgBase}/postgres` });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

const results = [];
const sqliteTemplate = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-template-'));
const sqliteEnv = migrateTemplate(['--data-dir', sqliteTemplate]) ? { PARLEY_TEST_SQLITE_TEMPLATE: sqliteTemplate } : {};
results.push(['SQLite', run('SQLite', { PARLEY_TEST_PG_URL: '', ...sqliteEnv })]);
fs.rmSync(sqliteTemplate, { recursive: true, force: true });
if (await pgReachable()) {
  const template = `parley_template_${process.pid}`;
  await pgAdmin(`CREATE DATABASE ${template}`);
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-template-'));
  const pgEnv = migrateTemplate(['--data-dir', scratch, '--database-url', `${pgBase}/${template}`]) ? { PARLEY_TEST_PG_TEMPLATE: template } : {};
  fs.rmSync(scratch, { recursive: true, force: true });
  results.push(['PostgreSQL', run('PostgreSQL', { PARLEY_TEST_PG_URL: pgBase, ...pgEnv }, reachesDatabase)]);
  await pgAdmin(`DROP DATABASE IF EXISTS ${template} WITH (FORCE)`);
} else if (inCI) {
  console.error(`\nPostgreSQL at ${pgBase} is not reachable, and CI requires the PostgreSQL run.`);
  results.push(['PostgreSQL', false]);
} else {
  console.log(`\nNOTE: the PostgreSQL run was SKIPPED: no PostgreSQL server at ${pgBase} (set PARLEY_TEST_PG_URL to use another).`);
}
console.log('\n' + results.map(([n, ok]) => `${n}: ${ok ? 'passed' : 'FAILED'}`).join('\n'));
process.exit(results.every(([, ok]) => ok) ? 0 : 1);

// Builds the bench database: organizations via `parley create-realm`, contents via the bulk loader; caches the SQLite file, and a PostgreSQL template database.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { getServerRoot, parleyCommand, ROOT } from './server-process.js';
import { bulkLoad, type CreatedRealm, type FixtureMeta } from './bulk-load.js';
import pg from 'pg';
import { pgSink, sqliteSink, type Sink } from './db-sink.js';
import type { Sizes } from './sizes.js';

/** Bump when the loader's output changes, so old cache files are not reused. */
const FIXTURE_VERSION = 4;
export const CACHE_DIR = path.join(ROOT, '.bench-cache');

function createRealms(dataDir: string, databaseUrl: string | undefined): { root: CreatedRealm; reg: CreatedRealm; fan: CreatedRealm } {
  const one = (subdomain: string): CreatedRealm => {
    const email = `owner@${subdomain || 'root'}.bench.example.com`;
    const args = ['create-realm', '--name', `Bench ${subdomain || 'root'}`, '--owner-email', email, '--owner-name', 'Bench Owner', '--owner-password', 'bench-owner-password', '--data-dir', dataDir];
    if (subdomain) args.push('--subdomain', subdomain);
    if (databaseUrl) args.push('--database-url', databaseUrl);
    const out = parleyCommand(args);
    return { id: out.realm_id as number, ownerId: out.user_id as number, owner: { email: out.email as string, apiKey: out.api_key as string } };
  };
  return { root: one(''), reg: one('reg'), fan: one('fan') };
}

async function build(sink: Sink, dataDir: string, databaseUrl: string | undefined, sizes: Sizes, log: (s: string) => void): Promise<FixtureMeta> {
  const created = createRealms(dataDir, databaseUrl);
  return bulkLoad(sink, created, sizes, log);
}

/** The key covers the sizes and the migrations of the server that makes the schema (`--server`). */
function cacheKey(sizes: Sizes): string {
  const dir = path.join(getServerRoot(), 'src/store/migrations');
  const migrations = fs
    .readdirSync(dir)
    .sort()
    .map((f) => fs.readFileSync(path.join(dir, f), 'utf8'))
    .join('\n');
  const shape = { FIXTURE_VERSION, ...sizes, connections: 0, loadSeconds: 0, fetchRequests: 0, registerRequests: 0, renderRequests: 0, fanoutMessages: 0, fanoutWarmupDeliveries: 0, fixedRate: 0 };
  return crypto.createHash('sha256').update(JSON.stringify(shape)).update(migrations).digest('hex').slice(0, 16);
}

/** Prepares dataDir/parley.sqlite3 (from the cache when it holds this fixture) and returns what the scenarios need. */
export async function sqliteFixture(dataDir: string, sizes: Sizes, log: (s: string) => void): Promise<FixtureMeta> {
  fs.mkdirSync(CACHE_DIR, { recursive: true });
  const key = cacheKey(sizes);
  const cachedDb = path.join(CACHE_DIR, `fixture-${key}.sqlite3`);
  const cachedMeta = path.join(CACHE_DIR, `fixture-${key}.json`);
  const target = path.join(dataDir, 'parley.sqlite3');
  if (fs.existsSync(cachedDb) && fs.existsSync(cachedMeta)) {
    log(`fixture: cached ${path.relative(ROOT, cachedDb)}`);
    fs.copyFileSync(cachedDb, target);
    // Flush the copy now: otherwise the server's first checkpoint fsync would write out the whole file mid-scenario.
    const fd = fs.openSync(target, 'r+');
    fs.fsyncSync(fd);
    fs.closeSync(fd);
    return JSON.parse(fs.readFileSync(cachedMeta, 'utf8')) as FixtureMeta;
  }
  log('fixture: building (cached afterwards)');
  const t0 = Date.now();
  const created = createRealms(dataDir, undefined);
  const sink = sqliteSink(target);
  const meta = await bulkLoad(sink, created, sizes, log);
  await sink.close();
  // Write-then-rename, so a concurrent or interrupted run never sees half a file.
  const tmp = `${cachedDb}.${process.pid}.tmp`;
  fs.copyFileSync(target, tmp);
  fs.writeFileSync(`${cachedMeta}.${process.pid}.tmp`, JSON.stringify(meta));
  fs.renameSync(tmp, cachedDb);
  fs.renameSync(`${cachedMeta}.${process.pid}.tmp`, cachedMeta);
  log(`fixture: built in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  return meta;
}

/** One statement on the server's maintenance database (CREATE and DROP DATABASE cannot run inside the target). */
export async function pgAdmin<R extends pg.QueryResultRow = pg.QueryResultRow>(pgBase: string, text: string, values: unknown[] = []): Promise<R[]> {
  const c = new pg.Client({ connectionString: `${pgBase}/postgres`, connectionTimeoutMillis: 5000 });
  await c.connect();
  try {
    return (await c.query<R>(text, values)).rows;
  } finally {
    await c.end();
  }
}

/** Copies a database; FILE_COPY (PostgreSQL 15) copies the files, about 5 times faster here than the default, which logs every page. */
async function copyDatabase(pgBase: string, from: string, to: string): Promise<void> {
  try {
    await pgAdmin(pgBase, `CREATE DATABASE ${to} TEMPLATE ${from} STRATEGY FILE_COPY`);
  } catch (err) {
    if (!/strategy/i.test((err as Error).message)) throw err;
    await pgAdmin(pgBase, `CREATE DATABASE ${to} TEMPLATE ${from}`);
  }
}

/**
 * Creates database `dbName` holding the fixture. The first run for a fixture shape builds it and
 * keeps a copy as a template database (parley_bench_fixture_<key>, its meta in the database's
 * comment, so the two cannot disagree); later runs copy the template in about a second instead of
 * building for 35–45 s. Templates of other shapes are dropped.
 */
export async function pgFixture(dataDir: string, pgBase: string, dbName: string, sizes: Sizes, log: (s: string) => void): Promise<FixtureMeta> {
  const template = `parley_bench_fixture_${cacheKey(sizes)}`;
  const kept = await pgAdmin<{ meta: string | null }>(pgBase, `SELECT shobj_description(oid, 'pg_database') AS meta FROM pg_database WHERE datname = $1`, [template]);
  if (kept.length && kept[0].meta) {
    log(`fixture: copied from the template database ${template}`);
    await copyDatabase(pgBase, template, dbName);
    return JSON.parse(kept[0].meta) as FixtureMeta;
  }
  log('fixture: building on PostgreSQL (kept as a template afterwards)');
  const t0 = Date.now();
  await pgAdmin(pgBase, `CREATE DATABASE ${dbName}`);
  const sink = await pgSink(`${pgBase}/${dbName}`);
  let meta: FixtureMeta;
  try {
    meta = await build(sink, dataDir, `${pgBase}/${dbName}`, sizes, log);
  } finally {
    await sink.close();
  }
  log(`fixture: built in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  try {
    const stale = await pgAdmin<{ datname: string }>(pgBase, `SELECT datname FROM pg_database WHERE datname LIKE 'parley_bench_fixture_%' AND datname <> $1`, [template]);
    for (const d of stale) await pgAdmin(pgBase, `DROP DATABASE IF EXISTS ${d.datname} WITH (FORCE)`);
    await pgAdmin(pgBase, `DROP DATABASE IF EXISTS ${template} WITH (FORCE)`);
    await copyDatabase(pgBase, dbName, template);
    // The meta last: a template without it is never used (an interrupted copy, a concurrent run).
    await pgAdmin(pgBase, `COMMENT ON DATABASE ${template} IS ${pg.escapeLiteral(JSON.stringify(meta))}`);
  } catch (err) {
    log(`fixture: not kept as a template (${(err as Error).message})`);
  }
  return meta;
}

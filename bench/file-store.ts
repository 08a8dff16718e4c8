// node dist/bench/file-store.js [--database-url URL] [--mib N] [--rounds R] [--gets G]: upload and download
// latency of one file through PARLEY_FILE_STORE=local and =database, two servers in this process, alternated.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { loadConfig } from '../src/config.js';
import { startServer, type RunningServer } from '../src/main.js';
import { doCreateRealm } from '../src/actions/realms.js';
import { createLogger } from '../src/ops/logger.js';
import { percentile } from './stats.js';

const median = (values: number[]) => percentile(values, 50);

const args = process.argv.slice(2);
const flag = (name: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
/** postgres://user@host:port (a fresh database is made per server); absent: SQLite. */
const PG_BASE = flag('database-url') ?? '';
const MIB = Number(flag('mib') ?? 1);
const ROUNDS = Number(flag('rounds') ?? 7);
const GETS = Number(flag('gets') ?? 20);

interface Node {
  srv: RunningServer;
  auth: string;
  cleanup: () => Promise<void>;
}

async function start(fileStore: string): Promise<Node> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-bench-files-'));
  let databaseUrl = '';
  let dbName = '';
  const admin = async (q: string) => {
    const c = new pg.Client({ connectionString: `${PG_BASE}/postgres` });
    await c.connect();
    await c.query(q);
    await c.end();
  };
  if (PG_BASE) {
    dbName = `parley_bench_files_${randomBytes(4).toString('hex')}`;
    await admin(`CREATE DATABASE ${dbName}`);
    databaseUrl = `${PG_BASE}/${dbName}`;
  }
  const config = loadConfig(
    { port: '0', 'data-dir': dataDir, 'database-url': databaseUrl, 'external-url': 'http://localhost', 'file-store': fileStore, bootstrap: '0' },
    { PARLEY_RATE_LIMIT_API: '1000000/60', PARLEY_MAX_FILE_UPLOAD_SIZE_MIB: String(Math.max(25, MIB + 1)) },
  );
  const srv = await startServer(config, { logger: createLogger({ level: 'error', destination: process.stderr }) });
  const { owner } = await doCreateRealm(srv.app, { name: 'Bench', subdomain: '', ownerEmail: 'owner@example.com', ownerName: 'Owner', ownerPassword: 'owner-password' });
  return {
    srv,
    auth: 'Basic ' + Buffer.from(`${owner.email}:${owner.api_key}`).toString('base64'),
    cleanup: async () => {
      await srv.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
      if (dbName) await admin(`DROP DATABASE ${dbName} WITH (FORCE)`);
    },
  };
}

function send(n: Node, method: string, urlPath: string, body?: Buffer, headers: Record<string, string> = {}): Promise<{ status: number; body: Buffer }> {
  const u = new URL(n.srv.url);
  return new Promise((resolve, reject) => {
    const r = http.request({ hostname: u.hostname, port: u.port, method, path: urlPath, headers: { authorization: n.auth, ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d: Buffer) => chunks.push(d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
    });
    r.on('error', reject);
    r.end(body);
  });
}

async function upload(n: Node, data: Buffer): Promise<string> {
  const b = '----bench' + randomBytes(4).toString('hex');
  const body = Buffer.concat([Buffer.from(`--${b}\r\nContent-Disposition: form-data; name="f"; filename="x.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`), data, Buffer.from(`\r\n--${b}--\r\n`)]);
  const r = await send(n, 'POST', '/api/v1/user_uploads', body, { 'content-type': `multipart/form-data; boundary=${b}`, 'content-length': String(body.length) });
  if (r.status !== 200) throw new Error(`upload: ${r.status} ${r.body.toString()}`);
  return (JSON.parse(r.body.toString()) as { url: string }).url;
}

const kinds = ['local', 'database'] as const;
const nodes = { local: await start('local'), database: await start('database') };
const data = randomBytes(MIB * 1024 * 1024);
const times = { local: { up: [] as number[], down: [] as number[] }, database: { up: [] as number[], down: [] as number[] } };
for (let round = 0; round < ROUNDS; round++) {
  // Alternated, and each round the other goes first: the machine's noise falls on both.
  for (const kind of round % 2 ? [...kinds].reverse() : kinds) {
    const n = nodes[kind];
    let t = performance.now();
    const url = await upload(n, data);
    times[kind].up.push(performance.now() - t);
    t = performance.now();
    for (let i = 0; i < GETS; i++) {
      const g = await send(n, 'GET', url);
      if (g.status !== 200 || g.body.length !== data.length) throw new Error(`download: ${g.status}`);
    }
    times[kind].down.push((performance.now() - t) / GETS);
  }
}
const db = PG_BASE ? 'PostgreSQL' : 'SQLite';
for (const kind of kinds) console.log(`${db}, ${MIB} MiB, ${kind}: upload median ${median(times[kind].up).toFixed(1)} ms, download median ${median(times[kind].down).toFixed(2)} ms`);
console.log(`database/local: upload ${(median(times.database.up) / median(times.local.up)).toFixed(2)}×, download ${(median(times.database.down) / median(times.local.down)).toFixed(2)}×`);
for (const n of Object.values(nodes)) await n.cleanup();

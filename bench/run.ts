// The bench orchestrator: `npm run bench [-- --quick] [-- --pg] [--only a,b] [--cpu-prof] [--out FILE]`.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FULL, QUICK } from './sizes.js';
import { getServerRoot, ROOT, rssMb, startParley, useServerRoot, type ServerProcess } from './server-process.js';
import { pgAdmin, pgFixture, sqliteFixture, CACHE_DIR } from './fixture.js';
import { countChannelMessages } from './db-sink.js';
import { measureCeiling } from './ceiling.js';
import { sharedAgent } from './api.js';
import { missingKeys, printTable, writeResults } from './report.js';
import { renderScenario } from './scenarios/render.js';
import { registerScenario } from './scenarios/register.js';
import { historyScenario } from './scenarios/history.js';
import { sendScenario } from './scenarios/send.js';
import { deliveryScenario } from './scenarios/delivery.js';
import { longpollScenario } from './scenarios/longpoll.js';
import { fanoutCeilingScenario } from './scenarios/fanout-ceiling.js';

const SCENARIOS = ['ceiling', 'fanout-ceiling', 'render', 'register', 'history', 'send', 'delivery', 'longpoll'] as const;
const PG_BASE = process.env.PARLEY_BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432';

function parseArgs(argv: string[]) {
  const a = { quick: false, pg: false, cpuProf: false, out: path.join(ROOT, 'bench-results.json'), only: [...SCENARIOS] as string[], nodeArgs: [] as string[] };
  for (let i = 0; i < argv.length; i++) {
    const f = argv[i];
    if (f === '--quick') a.quick = true;
    else if (f === '--pg') a.pg = true;
    else if (f === '--cpu-prof') a.cpuProf = true;
    else if (f === '--out') a.out = path.resolve(argv[++i]);
    else if (f === '--only') a.only = argv[++i].split(',');
    // Another built checkout's server (and schema) under the same scenarios: --server /tmp/base
    else if (f === '--server') useServerRoot(path.resolve(argv[++i]));
    // Passed to the server's node, for experiments: --node-arg --max-semi-space-size=32
    else if (f === '--node-arg') a.nodeArgs.push(argv[++i]);
    else throw new Error(`unknown flag ${f}; usage: run [--quick] [--pg] [--only ${SCENARIOS.join(',')}] [--cpu-prof] [--node-arg ARG]… [--server DIR] [--out FILE]`);
  }
  return a;
}

const log = (s: string) => process.stdout.write(s + '\n');

async function main(): Promise<number> {
  const args = parseArgs(process.argv.slice(2));
  const z = args.quick ? QUICK : FULL;
  const started = Date.now();
  // Every run is bounded: a stuck phase ends the run instead of hanging it.
  const watchdog = setTimeout(() => {
    process.stderr.write('bench: time limit reached, giving up\n');
    process.exit(3);
  }, (args.quick ? 3 : 30) * 60_000);
  watchdog.unref();

  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-bench-'));
  const dbName = args.pg ? `parley_bench_${process.pid}` : '';
  const databaseUrl = args.pg ? `${PG_BASE}/${dbName}` : undefined;
  let server = null as ServerProcess | null;
  const figures: Record<string, number> = {};
  const info: Record<string, unknown> = { mode: args.quick ? 'quick' : 'full', database: args.pg ? 'postgres' : 'sqlite', sizes: z, node: process.version, cpus: os.cpus().length, cpu_model: os.cpus()[0]?.model, date: new Date().toISOString(), server: getServerRoot() };
  try {
    log(`Parley bench (${info.mode}, ${info.database}) on ${os.cpus().length} CPUs, data in ${dataDir}`);
    const meta = args.pg ? await pgFixture(dataDir, PG_BASE, dbName, z, log) : await sqliteFixture(dataDir, z, log);
    const profDir = path.join(CACHE_DIR, 'profiles');
    const start = async () => {
      server = await startParley({ dataDir, databaseUrl, nodeArgs: [...(args.cpuProf ? ['--cpu-prof', '--cpu-prof-interval=250', `--cpu-prof-dir=${profDir}`] : []), ...args.nodeArgs] });
      log(`server: ${server.url} (pid ${server.pid})`);
      await new Promise((r) => setTimeout(r, 1000));
      return server;
    };
    let srv = await start();
    figures.rss_idle_mb = Math.round(rssMb(srv.pid) * 10) / 10;
    const url = srv.url;
    const countStored = (streamId: number) => countChannelMessages(args.pg ? { databaseUrl } : { sqliteFile: path.join(dataDir, 'parley.sqlite3') }, streamId);
    const phases: Record<string, () => Promise<Record<string, number>>> = {
      ceiling: async () => {
        const c = await measureCeiling(z.connections, z.loadSeconds);
        log(`  bare node:http: ${c.rps} req/s, p50 ${c.p50_ms} ms, p99 ${c.p99_ms} ms`);
        return { http_ceiling_rps: c.rps, http_ceiling_p50_ms: c.p50_ms, http_ceiling_p99_ms: c.p99_ms };
      },
      // Parley's server idles meanwhile: the bare fan-out server has the machine's cores, as Parley has them later.
      'fanout-ceiling': () => fanoutCeilingScenario(meta, z, log),
      render: () => renderScenario(url, meta, z, log),
      register: () => registerScenario(srv, meta, z, log),
      history: () => historyScenario(url, meta, z, log),
      send: () => sendScenario(srv, meta, z, countStored, log),
      delivery: () => deliveryScenario(srv, meta, z, log),
      // On a fresh server process, so its RSS before the polls is the idle one and not earlier scenarios' heap.
      longpoll: async () => {
        await srv.stop();
        srv = await start();
        return longpollScenario(srv, meta, z, log);
      },
    };
    for (const name of SCENARIOS) {
      if (!args.only.includes(name)) continue;
      log(`${name}:`);
      const t0 = Date.now();
      Object.assign(figures, await phases[name]());
      log(`  (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
    }
  } finally {
    await server?.stop();
    await sharedAgent.close().catch(() => {});
    fs.rmSync(dataDir, { recursive: true, force: true });
    if (dbName) await pgAdmin(PG_BASE, `DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch((e: Error) => log(`could not drop ${dbName}: ${e.message}`));
  }
  info.seconds = Math.round((Date.now() - started) / 1000);
  printTable(figures, z.fanout, log);
  writeResults(args.out, figures, info);
  log(`wrote ${path.relative(process.cwd(), args.out) || args.out} in ${info.seconds} s`);
  const missing = args.only.length === SCENARIOS.length ? missingKeys(figures) : [];
  if (missing.length) {
    process.stderr.write(`bench: missing figures: ${missing.join(', ')}\n`);
    return 1;
  }
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`bench failed: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  },
);

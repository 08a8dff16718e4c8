// Three Parley nodes on one PostgreSQL database and a NATS subject against one node alone: send throughput, delivery latency and each node's requests, CPU and memory.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { request } from 'undici';
import { encode, headersFor, nowMs, sharedAgent, type Cred } from './api.js';
import { bulkLoad, userCred, type CreatedRealm, type FixtureMeta } from './bulk-load.js';
import { pgSink } from './db-sink.js';
import { pgAdmin } from './fixture.js';
import { LeanConnection } from './lean-http.js';
import { STAMP } from './poller-child.js';
import { startPollers, type PollerGroup } from './pollers.js';
import { cpuMs, parleyCommand, rssMb, startParley, type ServerProcess } from './server-process.js';
import { QUICK, type Sizes } from './sizes.js';
import { round, summarize } from './stats.js';

const PG_BASE = process.env.PARLEY_BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432';
const BUS_BASE = process.env.PARLEY_BENCH_NATS_URL ?? 'nats://127.0.0.1:4222';
const VARIANTS = ['single', 'sticky', 'rr'] as const;
type Variant = (typeof VARIANTS)[number];
const DESCRIBE: Record<Variant, string> = {
  single: 'one node, its own database',
  sticky: 'three nodes, each queue polled where it registered',
  rr: 'three nodes, each poll to the next node in turn',
};
const CONTENT = 'Deploy is done: see **the notes** at https://example.com/notes and ping me with questions.';

function parseArgs(argv: string[]) {
  const a = { users: 100, team: 30, channels: 4, queues: 300, seconds: 20, warmup: 3, concurrency: 12, variants: [...VARIANTS] as Variant[] };
  for (let i = 0; i < argv.length; i++) {
    const f = argv[i];
    const num = () => {
      const v = Number(argv[++i]);
      if (!Number.isFinite(v) || v <= 0) throw new Error(`${f} needs a positive number`);
      return v;
    };
    if (f === '--users') a.users = num();
    else if (f === '--team') a.team = num();
    else if (f === '--channels') a.channels = num();
    else if (f === '--queues') a.queues = num();
    else if (f === '--seconds') a.seconds = num();
    else if (f === '--warmup') a.warmup = num();
    else if (f === '--concurrency') a.concurrency = num();
    else if (f === '--variants') a.variants = argv[++i].split(',') as Variant[];
    else throw new Error(`unknown flag ${f}; usage: three-nodes [--users 100] [--team 30] [--channels 4] [--queues 300] [--seconds 20] [--warmup 3] [--concurrency 12] [--variants ${VARIANTS.join(',')}]`);
  }
  if (a.variants.some((v) => !VARIANTS.includes(v))) throw new Error(`--variants: some of ${VARIANTS.join(',')}`);
  if (a.team > a.users || a.channels < 2) throw new Error('--team must be at most --users, and --channels at least 2');
  return a;
}
type Args = ReturnType<typeof parseArgs>;

const log = (s: string) => process.stderr.write(s + '\n');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The fixture, through the bench's bulk loader at a small size: in the root organization `users`
 * people, all of them in `bench`, and `channels - 1` team channels (`history-N`, a little history
 * each) whose members are the first `team` people. The other two organizations are the loader's
 * small ones and stay idle.
 */
async function buildFixture(dbName: string, a: Args): Promise<FixtureMeta> {
  const sizes: Sizes = { ...QUICK, sendSubscribers: a.users, historySubscribers: a.team, historyChannels: a.channels - 1, historyMessages: 1000 * (a.channels - 1), historyTopics: 10 };
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-3n-fixture-'));
  const databaseUrl = `${PG_BASE}/${dbName}`;
  try {
    await pgAdmin(PG_BASE, `CREATE DATABASE ${dbName}`);
    const realm = (subdomain: string): CreatedRealm => {
      const args = ['create-realm', '--name', `Bench ${subdomain || 'root'}`, '--owner-email', `owner@${subdomain || 'root'}.bench.example.com`, '--owner-name', 'Bench Owner', '--owner-password', 'bench-owner-password', '--data-dir', dataDir, '--database-url', databaseUrl];
      if (subdomain) args.push('--subdomain', subdomain);
      const out = parleyCommand(args);
      return { id: out.realm_id as number, ownerId: out.user_id as number, owner: { email: out.email as string, apiKey: out.api_key as string } };
    };
    const created = { root: realm(''), reg: realm('reg'), fan: realm('fan') };
    const sink = await pgSink(databaseUrl);
    try {
      return await bulkLoad(sink, created, sizes, () => {});
    } finally {
      await sink.close();
    }
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** One running node: its process, data directory and name. */
interface Node {
  id: string;
  server: ServerProcess;
  dataDir: string;
}

async function startNodes(databaseUrl: string, ids: string[], busSubject: string | null): Promise<Node[]> {
  return Promise.all(
    ids.map(async (id) => {
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `parley-3n-${id}-`));
      const args = ['--node-id', id, ...(busSubject ? ['--bus-url', `${BUS_BASE}?subject=${busSubject}`] : [])];
      const server = await startParley({ dataDir, databaseUrl, args, env: { PARLEY_FILE_STORE: 'database', PARLEY_METRICS: '1' } });
      return { id, server, dataDir };
    }),
  );
}

/** A node's own counters from GET /metrics: requests answered (all, and event polls), queues held, events handed out. */
async function scrape(url: string): Promise<{ requests: number; polls: number; queues: number; delivered: number }> {
  const res = await request(`${url}/metrics`, { dispatcher: sharedAgent });
  const text = await res.body.text();
  const out = { requests: 0, polls: 0, queues: 0, delivered: 0 };
  for (const line of text.split('\n')) {
    const value = Number(line.slice(line.lastIndexOf(' ') + 1));
    if (line.startsWith('parley_http_requests_total{')) {
      out.requests += value;
      if (line.includes('method="GET"') && /route="[^"]*\/events"/.test(line)) out.polls += value;
    } else if (line.startsWith('parley_event_queues ')) out.queues = value;
    else if (line.startsWith('parley_events_delivered_total ')) out.delivered = value;
  }
  return out;
}

/** CPU ms of the database's server processes serving dbName (a backend that appears later counts from zero). */
async function backendCpu(dbName: string): Promise<Map<number, number>> {
  const rows = await pgAdmin<{ pid: number }>(PG_BASE, 'SELECT pid FROM pg_stat_activity WHERE datname = $1', [dbName]);
  const out = new Map<number, number>();
  for (const { pid } of rows) {
    try {
      out.set(pid, cpuMs(pid));
    } catch {
      // Gone meanwhile, or another machine's database (then no figure).
    }
  }
  return out;
}

interface SendFigures {
  ok: number;
  failed: number;
  latencies: number[];
  perNode: number[];
  /** Acknowledged sends to each channel (index into the channel list). */
  perChannel: number[];
}

/**
 * Closed-loop senders at full speed: `concurrency` connections, connection i on node i mod N as
 * person i mod `team` (a member of every channel), each message to the next channel in turn and
 * stamped with its send time, so the pollers time its delivery.
 */
async function sendFor(nodes: Node[], creds: Cred[], channels: number[], concurrency: number, seconds: number): Promise<SendFigures> {
  const f: SendFigures = { ok: 0, failed: 0, latencies: [], perNode: nodes.map(() => 0), perChannel: channels.map(() => 0) };
  const end = performance.now() + seconds * 1000;
  let seq = 0;
  const worker = async (i: number) => {
    const n = i % nodes.length;
    const headers = headersFor(creds[i % creds.length], true);
    let conn = new LeanConnection(nodes[n].server.url);
    while (performance.now() < end) {
      const k = seq++;
      const body = encode({ type: 'stream', to: String(channels[k % channels.length]), topic: `t${k % 7}`, content: `${STAMP}${nowMs()}:${k} ${CONTENT}` });
      const t0 = performance.now();
      try {
        const r = await conn.request('POST', '/api/v1/messages', headers, body);
        if (r.status === 200) {
          f.ok++;
          f.perNode[n]++;
          f.perChannel[k % channels.length]++;
          f.latencies.push(performance.now() - t0);
        } else f.failed++;
      } catch {
        f.failed++;
        conn.destroy();
        conn = new LeanConnection(nodes[n].server.url);
        await sleep(100);
      }
    }
    conn.destroy();
  };
  await Promise.all(Array.from({ length: concurrency }, (_, i) => worker(i)));
  return f;
}

interface NodeFigures {
  id: string;
  requests: number;
  polls: number;
  sends: number;
  cpu_s: number;
  rss_mb: number;
  queues_held: number;
  events_delivered: number;
}

/** One variant on running nodes: register the queues, warm up, then send for the timed window and read every counter around it. */
async function runVariant(variant: Variant, nodes: Node[], meta: FixtureMeta, dbName: string, a: Args) {
  const users = Array.from({ length: a.users }, (_, i) => userCred(meta.root, i));
  const senders = users.slice(0, a.team);
  const channels = [meta.root.channels.bench, ...Array.from({ length: a.channels - 1 }, (_, i) => meta.root.channels[`history-${i}`])];
  // Queue k belongs to person k mod users and registers on node k mod N: each person has one client per node.
  const byNode = nodes.map((_, n) => Array.from({ length: a.queues }, (_, k) => k).filter((k) => k % nodes.length === n).map((k) => users[k % a.users]));
  const t0 = Date.now();
  const groups: PollerGroup[] = [];
  try {
    for (const [n, creds] of byNode.entries()) {
      const g = await startPollers(nodes[n].server.url, creds, { pollUrls: variant === 'rr' ? nodes.map((x) => x.server.url) : undefined });
      groups.push(g);
      if (g.failed) throw new Error(`${variant}: ${g.failed} queues failed to register on ${nodes[n].id}: ${g.firstError}`);
    }
    log(`  ${a.queues} queues registered in ${((Date.now() - t0) / 1000).toFixed(1)} s; warming up ${a.warmup} s`);
    await sendFor(nodes, senders, channels, a.concurrency, a.warmup);
    await sleep(1000);
    const stale0 = (await Promise.all(groups.map((g) => g.stats()))).reduce((s, p) => s + p.stale, 0);

    const scrape0 = await Promise.all(nodes.map((x) => scrape(x.server.url)));
    const cpu0 = nodes.map((x) => cpuMs(x.server.pid));
    const clientPids = [process.pid, ...groups.flatMap((g) => g.pids)];
    const clientCpu0 = clientPids.reduce((s, pid) => s + cpuMs(pid), 0);
    const db0 = await backendCpu(dbName);
    const wall0 = performance.now();
    const sent = await sendFor(nodes, senders, channels, a.concurrency, a.seconds);
    const wallS = (performance.now() - wall0) / 1000;
    const cpu1 = nodes.map((x) => cpuMs(x.server.pid));
    const clientCpuS = (clientPids.reduce((s, pid) => s + cpuMs(pid), 0) - clientCpu0) / 1000;
    const db1 = await backendCpu(dbName);
    const scrape1 = await Promise.all(nodes.map((x) => scrape(x.server.url)));
    // Deliveries still on their way when the window closes are counted too.
    await sleep(1000);
    const polled = await Promise.all(groups.map((g) => g.stats()));
    const dbCpuS = [...db1].reduce((s, [pid, ms]) => s + ms - (db0.get(pid) ?? 0), 0) / 1000;
    const perNode: NodeFigures[] = nodes.map((x, n) => ({
      id: x.id,
      requests: scrape1[n].requests - scrape0[n].requests,
      polls: scrape1[n].polls - scrape0[n].polls,
      sends: sent.perNode[n],
      cpu_s: round((cpu1[n] - cpu0[n]) / 1000),
      rss_mb: round(rssMb(x.server.pid), 1),
      queues_held: scrape1[n].queues,
      events_delivered: scrape1[n].delivered - scrape0[n].delivered,
    }));
    const send = summarize(sent.latencies);
    const delivery = summarize(polled.flatMap((p) => p.latencies));
    // Each message should reach every queue of its channel's members once: all people are in the first channel, the first `team` in the others.
    const teamQueues = Array.from({ length: a.queues }, (_, k) => k % a.users).filter((u) => u < a.team).length;
    const expected = sent.perChannel.reduce((s, n, c) => s + n * (c === 0 ? a.queues : teamQueues), 0);
    return {
      variant,
      nodes: nodes.length,
      send_rps: Math.round(sent.ok / wallS),
      send_p50_ms: send.p50,
      send_p99_ms: send.p99,
      send_failed: sent.failed,
      delivery_p50_ms: delivery.p50,
      delivery_p99_ms: delivery.p99,
      deliveries: delivery.n,
      deliveries_expected: expected,
      stale_events: polled.reduce((s, p) => s + p.stale, 0) - stale0,
      poll_errors: polled.reduce((s, p) => s + p.errors, 0),
      nodes_cpu_s: round(perNode.reduce((s, x) => s + x.cpu_s, 0)),
      nodes_cpu_ms_per_msg: round((perNode.reduce((s, x) => s + x.cpu_s, 0) * 1000) / Math.max(1, sent.ok), 3),
      db_cpu_s: round(dbCpuS),
      clients_cpu_s: round(clientCpuS),
      per_node: perNode,
    };
  } finally {
    await Promise.all(groups.map((g) => g.stop()));
  }
}
type VariantResult = Awaited<ReturnType<typeof runVariant>>;

function printTable(results: VariantResult[], a: Args): void {
  const out = (s: string) => process.stdout.write(s + '\n');
  out(`\n${a.queues} long-poll queues of ${a.users} people, ${a.concurrency} senders for ${a.seconds} s over ${a.channels} channels; load average ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}`);
  out('| variant | send msg/s | send p50 / p99 ms | delivery p50 / p99 ms | deliveries (expected; stale) | nodes CPU s (ms/msg) | database CPU s | clients CPU s |');
  out('|---|---|---|---|---|---|---|---|');
  for (const r of results) out(`| ${r.variant}: ${DESCRIBE[r.variant]} | ${r.send_rps} | ${r.send_p50_ms} / ${r.send_p99_ms} | ${r.delivery_p50_ms} / ${r.delivery_p99_ms} | ${r.deliveries} (${r.deliveries_expected}; ${r.stale_events}) | ${r.nodes_cpu_s} (${r.nodes_cpu_ms_per_msg}) | ${r.db_cpu_s} | ${r.clients_cpu_s} |`);
  out('\n| variant | node | requests | of which polls | sends | CPU s | RSS MB | queues held | events delivered |');
  out('|---|---|---|---|---|---|---|---|---|');
  for (const r of results) for (const n of r.per_node) out(`| ${r.variant} | ${n.id} | ${n.requests} | ${n.polls} | ${n.sends} | ${n.cpu_s} | ${n.rss_mb} | ${n.queues_held} | ${n.events_delivered} |`);
}

async function main(): Promise<void> {
  const a = parseArgs(process.argv.slice(2));
  const watchdog = setTimeout(() => {
    log('three-nodes: time limit reached, giving up');
    process.exit(3);
  }, 20 * 60_000);
  watchdog.unref();
  const clusterDb = `parley_bench3_${process.pid}_cluster`;
  const singleDb = `parley_bench3_${process.pid}_single`;
  const load0 = os.loadavg();
  const results: VariantResult[] = [];
  let running: Node[] = [];
  try {
    log(`fixture: ${a.users} people, ${a.channels} channels in ${clusterDb}`);
    const meta = await buildFixture(clusterDb, a);
    if (a.variants.includes('single')) await pgAdmin(PG_BASE, `CREATE DATABASE ${singleDb} TEMPLATE ${clusterDb}`);
    for (const variant of a.variants) {
      // Fresh processes for each variant, so CPU and memory are this variant's alone.
      const ids = variant === 'single' ? ['solo'] : ['n1', 'n2', 'n3'];
      const db = variant === 'single' ? singleDb : clusterDb;
      log(`${variant}: ${DESCRIBE[variant]}`);
      running = await startNodes(`${PG_BASE}/${db}`, ids, variant === 'single' ? null : `parley.bench3.${process.pid}.${variant}`);
      await sleep(1000);
      const r = await runVariant(variant, running, meta, db, a);
      log(`  ${r.send_rps} msg/s, send p50 ${r.send_p50_ms} ms p99 ${r.send_p99_ms} ms, delivery p50 ${r.delivery_p50_ms} ms p99 ${r.delivery_p99_ms} ms; ${r.deliveries} deliveries of ${r.deliveries_expected} expected, ${r.stale_events} stale`);
      results.push(r);
      await Promise.all(running.map((x) => x.server.stop()));
      for (const x of running) fs.rmSync(x.dataDir, { recursive: true, force: true });
      running = [];
    }
  } finally {
    await Promise.all(running.map((x) => x.server.stop()));
    for (const x of running) fs.rmSync(x.dataDir, { recursive: true, force: true });
    await sharedAgent.close().catch(() => {});
    for (const db of [clusterDb, singleDb]) await pgAdmin(PG_BASE, `DROP DATABASE IF EXISTS ${db} WITH (FORCE)`).catch((e: Error) => log(`could not drop ${db}: ${e.message}`));
  }
  const info = { date: new Date().toISOString(), node: process.version, cpus: os.cpus().length, loadavg_start: load0.map((x) => round(x, 1)), loadavg_end: os.loadavg().map((x) => round(x, 1)) };
  process.stdout.write(JSON.stringify({ ...info, users: a.users, team: a.team, channels: a.channels, queues: a.queues, concurrency: a.concurrency, seconds: a.seconds, results }) + '\n');
  printTable(results, a);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    log(`three-nodes failed: ${err instanceof Error ? err.stack : String(err)}`);
    process.exit(1);
  },
);

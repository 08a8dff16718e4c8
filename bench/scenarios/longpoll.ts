// Long-poll capacity: the target count of waiting long-polls (HTTP/1.1 sockets while file descriptors last, HTTP/2 streams beyond), server RSS per 1,000 queues.
import { api, nowMs } from '../api.js';
import { userCred, type FixtureMeta } from '../bulk-load.js';
import { STAMP } from '../poller-child.js';
import { startPollers, type PollerGroup } from '../pollers.js';
import { fileLimit, rssMb, type ServerProcess } from '../server-process.js';
import type { Sizes } from '../sizes.js';
import { round, summarize } from '../stats.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Descriptors the server needs besides its client sockets (database, listener, stdio, libraries, HTTP/2 sessions). */
const SERVER_FD_MARGIN = 200;
/** At least this share of the polls are HTTP/2 streams, so that path is measured (and --quick tests it) on any machine. */
const MIN_H2_SHARE = 0.01;
const PROBE_SEQ = 777;

/** Waits until every queue has a poll outstanding, then lets the server settle; returns the outstanding count. */
async function allWaiting(groups: PollerGroup[]): Promise<number> {
  const deadline = Date.now() + 120_000;
  const want = groups.reduce((a, g) => a + g.registered, 0);
  let waiting = 0;
  while (Date.now() < deadline) {
    waiting = (await Promise.all(groups.map((g) => g.stats()))).reduce((a, s) => a + s.waiting, 0);
    if (waiting >= want) break;
    await sleep(500);
  }
  await sleep(2000);
  return waiting;
}

export async function longpollScenario(server: ServerProcess, meta: FixtureMeta, z: Sizes, log: (s: string) => void): Promise<Record<string, number>> {
  const limit = fileLimit(server.pid);
  const target = z.holdTarget;
  // One socket, so one descriptor, per HTTP/1.1 poll: what the server's file limit leaves room for.
  // The rest are streams of shared HTTP/2 connections, as a proxy or a multi-account client holds them.
  const h1Count = Math.min(target - Math.ceil(target * MIN_H2_SHARE), limit - SERVER_FD_MARGIN);
  const h2Count = target - h1Count;
  log(`  the server may open ${limit} files: ${h1Count} polls over HTTP/1.1, ${h2Count} as HTTP/2 streams`);
  const creds = Array.from({ length: target }, (_, i) => userCred(meta.fan, i % meta.fan.users));
  const rssBefore = rssMb(server.pid);
  // RSS grows by a fixed amount on the first requests (compiled code, heap sizing); the slope between a
  // quarter of the polls and all of them is the cost per queue.
  const quarter = Math.floor(target / 4);
  const t0 = Date.now();
  const groups = [await startPollers(server.url, creds.slice(0, quarter), { perChild: 5000, registerConcurrency: 8 })];
  try {
    await allWaiting(groups);
    // Memory after a full collection (the server runs with --expose-gc), so garbage does not count as queue cost.
    const atQuarter = await server.loopFigures();
    const rssQuarter = atQuarter.rss_mb;
    groups.push(await startPollers(server.url, creds.slice(quarter, h1Count), { perChild: 5000, registerConcurrency: 8 }));
    groups.push(await startPollers(server.url, creds.slice(h1Count), { perChild: 5000, registerConcurrency: 8, transport: 'h2' }));
    const registerS = (Date.now() - t0) / 1000;
    const registered = groups.reduce((a, g) => a + g.registered, 0);
    const failed = groups.reduce((a, g) => a + g.failed, 0);
    log(`  ${registered} queues registered in ${registerS.toFixed(1)} s${failed ? ` (${failed} failed: ${groups.find((g) => g.firstError)?.firstError})` : ''}`);
    const waiting = await allWaiting(groups);
    const held0 = await server.loopFigures();
    const rssHeld = held0.rss_mb;
    // Proof that the polls are held by the server: one message to a channel of all these users reaches every queue.
    const probe = await api(server.url, creds[0], 'POST', 'messages', { type: 'stream', to: String(meta.fan.channels.hold), topic: 't', content: `${STAMP}${nowMs()}:${PROBE_SEQ}` });
    if (probe.status !== 200) throw new Error(`probe send → ${probe.status} ${JSON.stringify(probe.body)}`);
    await Promise.all(groups.map((g) => g.waitComplete(PROBE_SEQ, 120_000)));
    const loop = await server.loopFigures();
    const st = await Promise.all(groups.map((g) => g.stats()));
    const held = st.reduce((a, x) => a + (x.bySeq[PROBE_SEQ] ?? 0), 0);
    const heldH2 = st[2].bySeq[PROBE_SEQ] ?? 0;
    const d = summarize(st.flatMap((x) => x.latencies));
    const perK = (rssHeld - rssQuarter) / ((registered - groups[0].registered) / 1000);
    const heapPerK = (held0.heap_used_mb - atQuarter.heap_used_mb) / ((registered - groups[0].registered) / 1000);
    log(`  held ${held} long-polls, ${heldH2} of them HTTP/2 streams (${waiting} outstanding); RSS ${round(rssBefore, 1)} idle, ${round(rssQuarter, 1)} at ${groups[0].registered}, ${round(rssHeld, 1)} MB at ${registered} (${round(perK)} MB per 1,000; JS heap ${round(heapPerK)} MB per 1,000); probe reached all in ${d.max} ms (p99 ${d.p99}), loop stall ${loop.max_stall_ms} ms`);
    return {
      longpoll_target: target,
      longpoll_held: held,
      longpoll_held_http2: heldH2,
      longpoll_register_s: round(registerS, 1),
      rss_held_mb: round(rssHeld, 1),
      heap_held_mb: round(held0.heap_used_mb, 1),
      heap_per_1k_queues_mb: round(heapPerK),
      rss_per_1k_queues_mb: round(perK),
      longpoll_probe_p99_ms: d.p99,
      longpoll_probe_loop_stall_ms: loop.max_stall_ms,
    };
  } finally {
    await Promise.all(groups.map((g) => g.stop()));
  }
}

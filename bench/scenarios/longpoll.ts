// Long-poll capacity: as many waiting long-polls as the file limits allow (aiming at the target), server RSS per 1,000 queues.
import { api, nowMs } from '../api.js';
import { userCred, type FixtureMeta } from '../bulk-load.js';
import { STAMP } from '../poller-child.js';
import { startPollers, type PollerGroup } from '../pollers.js';
import { fileLimit, rssMb, type ServerProcess } from '../server-process.js';
import type { Sizes } from '../sizes.js';
import { round, summarize } from '../stats.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Descriptors the server needs besides its client sockets (database, listener, stdio, libraries). */
const SERVER_FD_MARGIN = 100;
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
  const target = Math.min(z.holdTarget, limit - SERVER_FD_MARGIN);
  if (target < z.holdTarget) log(`  the server may open ${limit} files: aiming at ${target} long-polls instead of ${z.holdTarget} (raise the hard limit of ulimit -n to try more)`);
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
    groups.push(await startPollers(server.url, creds.slice(quarter), { perChild: 5000, registerConcurrency: 8 }));
    const registerS = (Date.now() - t0) / 1000;
    const registered = groups[0].registered + groups[1].registered;
    const failed = groups[0].failed + groups[1].failed;
    log(`  ${registered} queues registered in ${registerS.toFixed(1)} s${failed ? ` (${failed} failed: ${groups[0].firstError ?? groups[1].firstError})` : ''}`);
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
    const d = summarize(st.flatMap((x) => x.latencies));
    const perK = (rssHeld - rssQuarter) / ((registered - groups[0].registered) / 1000);
    const heapPerK = (held0.heap_used_mb - atQuarter.heap_used_mb) / ((registered - groups[0].registered) / 1000);
    log(`  held ${held} long-polls (${waiting} outstanding); RSS ${round(rssBefore, 1)} idle, ${round(rssQuarter, 1)} at ${groups[0].registered}, ${round(rssHeld, 1)} MB at ${registered} (${round(perK)} MB per 1,000; JS heap ${round(heapPerK)} MB per 1,000); probe reached all in ${d.max} ms (p99 ${d.p99}), loop stall ${loop.max_stall_ms} ms`);
    return {
      longpoll_target: target,
      longpoll_held: held,
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

// Send throughput and latency: POST /messages to a channel whose subscribers all long-poll a queue.
import { encode, headersFor, type Cred } from '../api.js';
import { userCred, type FixtureMeta } from '../bulk-load.js';
import { runLoad, type LoadResult } from '../load.js';
import { runPaced } from '../paced-load.js';
import { startPollers, type PollerGroup } from '../pollers.js';
import { cpuMs, type ServerProcess } from '../server-process.js';
import type { Sizes } from '../sizes.js';

const round3 = (x: number) => Math.round(x * 1000) / 1000;

/** The message every send of the scenario posts: a short line with some Markdown and a link. */
export function sendRequest(url: string, sender: Cred, to: number, z: Sizes) {
  return {
    url: `${url}/api/v1/messages`,
    method: 'POST' as const,
    headers: headersFor(sender, true),
    body: encode({ type: 'stream', to: String(to), topic: 't', content: 'Deploy is done: see **the notes** at https://example.com/notes and ping me with questions.' }),
    connections: z.connections,
    seconds: z.loadSeconds,
  };
}

export interface FullSpeed extends LoadResult {
  /** Long-poll answers per second meanwhile. */
  pollRate: number;
  /** Server and listening clients' CPU per acknowledged send, ms. */
  serverCpuMs: number;
  clientCpuMs: number;
}

/** Sends as fast as the connections go while the group long-polls. */
export async function sendFullSpeed(serverPid: number, group: PollerGroup, request: ReturnType<typeof sendRequest>): Promise<FullSpeed> {
  const clientCpu = () => group.pids.reduce((a, pid) => a + cpuMs(pid), 0);
  const polls0 = (await group.stats()).polls;
  const cpu0 = cpuMs(serverPid);
  const clientCpu0 = clientCpu();
  const r = await runLoad(request);
  const serverCpuMs = round3((cpuMs(serverPid) - cpu0) / Math.max(1, r.ok));
  const clientCpuMs = round3((clientCpu() - clientCpu0) / Math.max(1, r.ok));
  const pollRate = Math.round(((await group.stats()).polls - polls0) / request.seconds);
  return { ...r, pollRate, serverCpuMs, clientCpuMs };
}

export async function sendScenario(server: ServerProcess, meta: FixtureMeta, z: Sizes, countStored: (streamId: number) => Promise<number>, log: (s: string) => void): Promise<Record<string, number>> {
  const creds = Array.from({ length: z.sendSubscribers }, (_, i) => userCred(meta.root, i));
  const group = await startPollers(server.url, creds);
  if (group.failed) throw new Error(`send: ${group.failed} queues failed to register: ${group.firstError}`);
  const stream = meta.root.channels.bench;
  const before = await countStored(stream);
  try {
    const common = sendRequest(server.url, creds[0], stream, z);
    const full = await sendFullSpeed(server.pid, group, common);
    log(`  send: ${full.rps} msg/s, p50 ${full.p50_ms} ms, p99 ${full.p99_ms} ms (${full.non2xx} non-2xx, ${full.errors} errors), while answering ${full.pollRate} long-polls/s; server CPU ${full.serverCpuMs} ms and clients' CPU ${full.clientCpuMs} ms per message`);
    // Open loop: one request every 1/rate s, not autocannon's per-second bursts (paced-load.ts).
    const paced = await runPaced({ ...common, rate: z.fixedRate });
    log(`  send at ${z.fixedRate}/s: achieved ${paced.rps}/s, p50 ${paced.p50_ms} ms, p99 ${paced.p99_ms} ms`);
    const st = await group.stats();
    const stored = (await countStored(stream)) - before;
    const acked = full.ok + paced.ok;
    log(`  durability: ${acked} acknowledged, ${stored} stored; ${st.received} message events delivered to ${creds.length} queues`);
    return {
      send_rps: full.rps,
      send_longpolls_per_s: full.pollRate,
      send_server_cpu_ms_per_msg: full.serverCpuMs,
      send_client_cpu_ms_per_msg: full.clientCpuMs,
      send_p50_ms: full.p50_ms,
      send_p99_ms: full.p99_ms,
      send_p50_ms_at_500: paced.p50_ms,
      send_p99_ms_at_500: paced.p99_ms,
      send_rate_achieved_at_500: paced.rps,
      send_failed: full.non2xx + full.errors + paced.non2xx + paced.errors,
      send_acknowledged: acked,
      send_stored: stored,
      send_events_delivered: st.received,
    };
  } finally {
    await group.stop();
  }
}

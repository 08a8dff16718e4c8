// Send throughput and latency: POST /messages to a channel whose subscribers all long-poll a queue.
import { encode, headersFor } from '../api.js';
import { userCred, type FixtureMeta } from '../bulk-load.js';
import { runLoad } from '../load.js';
import { runPaced } from '../paced-load.js';
import { startPollers } from '../pollers.js';
import { cpuMs, type ServerProcess } from '../server-process.js';
import type { Sizes } from '../sizes.js';

const round3 = (x: number) => Math.round(x * 1000) / 1000;

export async function sendScenario(server: ServerProcess, meta: FixtureMeta, z: Sizes, countStored: (streamId: number) => Promise<number>, log: (s: string) => void): Promise<Record<string, number>> {
  const creds = Array.from({ length: z.sendSubscribers }, (_, i) => userCred(meta.root, i));
  const group = await startPollers(server.url, creds);
  if (group.failed) throw new Error(`send: ${group.failed} queues failed to register: ${group.firstError}`);
  const stream = meta.root.channels.bench;
  const before = await countStored(stream);
  try {
    const common = {
      url: `${server.url}/api/v1/messages`,
      method: 'POST' as const,
      headers: headersFor(creds[0], true),
      body: encode({ type: 'stream', to: String(stream), topic: 't', content: 'Deploy is done: see **the notes** at https://example.com/notes and ping me with questions.' }),
      connections: z.connections,
      seconds: z.loadSeconds,
    };
    const polls0 = (await group.stats()).polls;
    const cpu0 = cpuMs(server.pid);
    const full = await runLoad(common);
    const cpuPerMsg = round3((cpuMs(server.pid) - cpu0) / Math.max(1, full.ok));
    const pollRate = Math.round(((await group.stats()).polls - polls0) / z.loadSeconds);
    log(`  send: ${full.rps} msg/s, p50 ${full.p50_ms} ms, p99 ${full.p99_ms} ms (${full.non2xx} non-2xx, ${full.errors} errors), while answering ${pollRate} long-polls/s; server CPU ${cpuPerMsg} ms per message`);
    // Open loop: one request every 1/rate s, not autocannon's per-second bursts (paced-load.ts).
    const paced = await runPaced({ ...common, rate: z.fixedRate });
    log(`  send at ${z.fixedRate}/s: achieved ${paced.rps}/s, p50 ${paced.p50_ms} ms, p99 ${paced.p99_ms} ms`);
    const st = await group.stats();
    const stored = (await countStored(stream)) - before;
    const acked = full.ok + paced.ok;
    log(`  durability: ${acked} acknowledged, ${stored} stored; ${st.received} message events delivered to ${creds.length} queues`);
    return {
      send_rps: full.rps,
      send_longpolls_per_s: pollRate,
      send_server_cpu_ms_per_msg: cpuPerMsg,
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

// Fan-out delivery: time from send to each listener's long-poll answer, for three listener counts; loop stalls meanwhile.
import { api, nowMs, type Cred } from '../api.js';
import { userCred, type FixtureMeta } from '../bulk-load.js';
import { STAMP } from '../poller-child.js';
import { startPollers, type PollerGroup } from '../pollers.js';
import { cpuMs, type ServerProcess } from '../server-process.js';
import type { Sizes } from '../sizes.js';
import { summarize, round, type Summary } from '../stats.js';

export const LABELS = ['100', '1000', '10000'];
/**
 * Warm-up messages per listener count, at most. Before them come at least
 * `fanoutWarmupDeliveries` deliveries (sizes.ts; 20,000 in a full run): the server and the
 * listening children (each count starts new ones) are still compiling their paths through the
 * first several thousand. With 2,000 (20 messages at 100 listeners), the last listener of each of
 * the next dozen messages still got it after 10–15 ms, of the ones after that after 5–7 ms
 * (docs/performance.md, appendix: eighth pass). The largest count follows the others and gets two messages.
 */
const MAX_WARMUP_MESSAGES = 100;
/** Warm-up messages need no quiet time between them, only each to have reached every queue. */
const WARMUP_GAP_MS = 30;
/** The quiet time between the warm-up and the timed messages. */
const SETTLE_MS = 500;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface TimedFanout {
  /** Send-to-answer latencies over every listener and timed message. */
  delivery: Summary;
  /** The sender's own POST /messages latencies. */
  send: Summary;
  /** Server and listening clients' CPU per delivered event, µs. */
  serverCpuUs: number;
  clientCpuUs: number;
  /** Timed messages that some queue had not received within a minute. */
  incomplete: number;
}

/**
 * Sends warm-up messages, then `messages` timed ones, one at a time, each waited for by every
 * queue of the group; `beforeTimed` runs right before the timed ones (to reset the server's loop figures).
 */
export async function timeFanout(url: string, serverPid: number, group: PollerGroup, sender: Cred, to: string, messages: number, warmupDeliveries: number, beforeTimed: () => Promise<unknown> = async () => {}): Promise<TimedFanout> {
  const n = group.registered;
  const sendMs: number[] = [];
  let incomplete = 0;
  const sendOne = async (seq: number) => {
    const r = await api(url, sender, 'POST', 'messages', { type: 'stream', to, topic: 't', content: `${STAMP}${nowMs()}:${seq}` });
    if (r.status !== 200) throw new Error(`delivery send → ${r.status} ${JSON.stringify(r.body)}`);
    if (!(await group.waitComplete(seq, 60_000))) incomplete++;
    await sleep(n >= 5000 ? 300 : seq <= 0 ? WARMUP_GAP_MS : 100);
    return r.ms;
  };
  // Warm-up, not counted: a fresh server still compiles its delivery path on V8's background
  // threads (seen with perf in a delivery-only run: TurboFan on four threads through the first
  // phase), and so do the new children; the first timed messages were the slow ones.
  const warmups = Math.min(MAX_WARMUP_MESSAGES, Math.ceil(warmupDeliveries / n));
  for (let w = 0; w < warmups; w++) await sendOne(-w);
  // The timed messages measure a steady one every 100 ms, not the way out of the warm-up's
  // rush: a server whose loop was busy for a while batches answers (registry.ts, BUSY_ANSWER_GAP_MS).
  await sleep(SETTLE_MS);
  await group.stats();
  await beforeTimed();
  const cpu0 = cpuMs(serverPid);
  const clientCpu = () => group.pids.reduce((a, pid) => a + cpuMs(pid), 0);
  const clientCpu0 = clientCpu();
  for (let seq = 1; seq <= messages; seq++) sendMs.push(await sendOne(seq));
  // Server CPU per delivered event: the send, the fan-out and each answered and renewed long-poll.
  const serverCpuUs = round(((cpuMs(serverPid) - cpu0) * 1000) / (messages * n));
  // The listening clients' CPU per delivered event (receiving, parsing, polling again): it shares the same 2 cores.
  const clientCpuUs = round(((clientCpu() - clientCpu0) * 1000) / (messages * n));
  const st = await group.stats();
  return { delivery: summarize(st.latencies), send: summarize(sendMs), serverCpuUs, clientCpuUs, incomplete };
}

export async function deliveryScenario(server: ServerProcess, meta: FixtureMeta, z: Sizes, log: (s: string) => void): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  let maxStall = 0;
  for (const [k, n] of z.fanout.entries()) {
    const label = LABELS[k];
    const channel = meta.fan.channels[`fan-${n}`];
    const creds = Array.from({ length: n }, (_, i) => userCred(meta.fan, i));
    const t0 = Date.now();
    const group = await startPollers(server.url, creds, { registerConcurrency: 16 });
    if (group.failed) throw new Error(`delivery: ${group.failed} queues failed to register: ${group.firstError}`);
    log(`  ${n} listeners registered in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    try {
      const r = await timeFanout(server.url, server.pid, group, creds[0], String(channel), z.fanoutMessages[k], z.fanoutWarmupDeliveries, () => server.loopFigures());
      const loop = await server.loopFigures();
      maxStall = Math.max(maxStall, loop.max_stall_ms);
      out[`delivery_p50_ms_${label}`] = r.delivery.p50;
      out[`delivery_p99_ms_${label}`] = r.delivery.p99;
      out[`delivery_send_p50_ms_${label}`] = r.send.p50;
      out[`loop_stall_ms_${label}`] = loop.max_stall_ms;
      out[`gc_pause_max_ms_${label}`] = loop.max_gc_pause_ms;
      out[`delivery_server_cpu_us_${label}`] = r.serverCpuUs;
      out[`delivery_client_cpu_us_${label}`] = r.clientCpuUs;
      out[`delivery_listeners_${label}`] = n;
      log(`  ${n} listeners: delivery p50 ${r.delivery.p50} ms, p99 ${r.delivery.p99} ms, max ${r.delivery.max} ms over ${r.delivery.n} deliveries; send ack p50 ${r.send.p50} ms; loop stall max ${loop.max_stall_ms} ms (longest GC pause ${loop.max_gc_pause_ms} ms); server CPU ${r.serverCpuUs} µs and clients' CPU ${r.clientCpuUs} µs per delivery${r.incomplete ? `; ${r.incomplete} messages not seen by every queue` : ''}`);
    } finally {
      await group.stop();
    }
  }
  out.max_loop_stall_ms = round(maxStall);
  return out;
}

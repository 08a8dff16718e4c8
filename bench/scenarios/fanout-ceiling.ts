// The machine's fan-out ceiling: the send run and the largest delivery run against a bare server that
// only hands events out (bare-fanout-server.ts), with the same clients, load and sizes as Parley's runs.
import { userCred, type FixtureMeta } from '../bulk-load.js';
import { startBareServer } from '../ceiling.js';
import { startPollers } from '../pollers.js';
import type { Sizes } from '../sizes.js';
import { LABELS, timeFanout } from './delivery.js';
import { sendFullSpeed, sendRequest } from './send.js';

export async function fanoutCeilingScenario(meta: FixtureMeta, z: Sizes, log: (s: string) => void): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  const bare = await startBareServer('bare-fanout-server.js');
  try {
    const creds = Array.from({ length: z.sendSubscribers }, (_, i) => userCred(meta.root, i));
    const senders = await startPollers(bare.url, creds);
    try {
      if (senders.failed) throw new Error(`fan-out ceiling: ${senders.failed} queues failed to register: ${senders.firstError}`);
      const full = await sendFullSpeed(bare.pid, senders, sendRequest(bare.url, creds[0], meta.root.channels.bench, z));
      if (full.non2xx || full.errors) throw new Error(`fan-out ceiling: ${full.non2xx} non-2xx answers, ${full.errors} errors`);
      log(`  bare fan-out send: ${full.rps} msg/s to ${creds.length} listeners, p50 ${full.p50_ms} ms, p99 ${full.p99_ms} ms, ${full.pollRate} long-polls/s; server CPU ${full.serverCpuMs} ms and clients' CPU ${full.clientCpuMs} ms per message`);
      out.fanout_ceiling_send_rps = full.rps;
      out.fanout_ceiling_send_server_cpu_ms_per_msg = full.serverCpuMs;
      out.fanout_ceiling_send_client_cpu_ms_per_msg = full.clientCpuMs;
    } finally {
      await senders.stop();
    }
    // The largest listener count only: the one whose target sits nearest this machine's limit.
    const k = z.fanout.length - 1;
    const n = z.fanout[k];
    const fanCreds = Array.from({ length: n }, (_, i) => userCred(meta.fan, i));
    const listeners = await startPollers(bare.url, fanCreds, { registerConcurrency: 16 });
    try {
      // Fewer listeners than asked would make a ceiling of a smaller fan-out.
      if (listeners.failed) throw new Error(`fan-out ceiling: ${listeners.failed} queues failed to register: ${listeners.firstError}`);
      const r = await timeFanout(bare.url, bare.pid, listeners, fanCreds[0], String(meta.fan.channels[`fan-${n}`]), z.fanoutMessages[k], z.fanoutWarmupDeliveries, () => bare.loopStallMs());
      const stall = await bare.loopStallMs();
      if (r.incomplete) throw new Error(`fan-out ceiling: ${r.incomplete} messages not seen by every queue`);
      log(`  bare fan-out to ${n} listeners: delivery p50 ${r.delivery.p50} ms, p99 ${r.delivery.p99} ms over ${r.delivery.n} deliveries; loop stall max ${stall} ms; server CPU ${r.serverCpuUs} µs and clients' CPU ${r.clientCpuUs} µs per delivery`);
      out[`fanout_ceiling_loop_stall_ms_${LABELS[k]}`] = stall;
      out[`fanout_ceiling_delivery_p50_ms_${LABELS[k]}`] = r.delivery.p50;
      out[`fanout_ceiling_delivery_p99_ms_${LABELS[k]}`] = r.delivery.p99;
      out[`fanout_ceiling_delivery_server_cpu_us_${LABELS[k]}`] = r.serverCpuUs;
      out[`fanout_ceiling_delivery_client_cpu_us_${LABELS[k]}`] = r.clientCpuUs;
    } finally {
      await listeners.stop();
    }
  } finally {
    bare.stop();
  }
  return out;
}

// POST /register (full state) for a member of a 1,000-user organization with 100 channels.
import { api } from '../api.js';
import { userCred, type FixtureMeta } from '../bulk-load.js';
import type { Sizes } from '../sizes.js';
import { summarize, timeSequential } from '../stats.js';

export async function registerScenario(url: string, meta: FixtureMeta, z: Sizes, log: (s: string) => void): Promise<Record<string, number>> {
  const cred = userCred(meta.reg, 0);
  let bytes = 0;
  const times = await timeSequential(z.registerRequests, 3, async () => {
    const r = await api(url, cred, 'POST', 'register', {});
    if (r.status !== 200) throw new Error(`POST /register → ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`);
    bytes = JSON.stringify(r.body).length;
    await api(url, cred, 'DELETE', 'events', { queue_id: r.body.queue_id as string });
    return r.ms;
  });
  const s = summarize(times);
  log(`  register (${meta.reg.users + 1} users, ${Object.keys(meta.reg.channels).length} channels, ${Math.round(bytes / 1024)} KB): p50 ${s.p50} ms, p99 ${s.p99} ms`);
  return { register_p50_ms: s.p50, register_p99_ms: s.p99, register_kb: Math.round(bytes / 1024) };
}

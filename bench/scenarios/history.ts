// GET /messages narrowed to one channel and topic, newest 100, on the bulk-loaded message history.
import { api } from '../api.js';
import { userCred, type FixtureMeta } from '../bulk-load.js';
import type { Sizes } from '../sizes.js';
import { summarize, timeSequential } from '../stats.js';

export async function historyScenario(url: string, meta: FixtureMeta, z: Sizes, log: (s: string) => void): Promise<Record<string, number>> {
  const cred = userCred(meta.root, 0);
  const narrow = [
    { operator: 'channel', operand: meta.root.channels['history-0'] },
    { operator: 'topic', operand: 't' },
  ];
  let count = 0;
  const times = await timeSequential(z.fetchRequests, 5, async () => {
    const r = await api(url, cred, 'GET', 'messages', { anchor: 'newest', num_before: 100, num_after: 0, narrow });
    if (r.status !== 200) throw new Error(`GET /messages → ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`);
    count = (r.body.messages as unknown[]).length;
    return r.ms;
  });
  const s = summarize(times);
  log(`  topic fetch (${count} messages of ${z.historyMessages.toLocaleString('en')}): p50 ${s.p50} ms, p99 ${s.p99} ms`);
  return { messages_topic_p50_ms: s.p50, messages_topic_p99_ms: s.p99, messages_topic_returned: count };
}

// Child process holding many event queues: registers each, long-polls it in a loop, and reports delivery latencies over IPC.
import { Client, Pool } from 'undici';
import { encode, headersFor, nowMs, type Cred } from './api.js';

export type ToChild = { type: 'init'; url: string; creds: Cred[]; registerConcurrency: number } | { type: 'stats' } | { type: 'stop' };
export type FromChild =
  | { type: 'ready'; registered: number; failed: number; firstError?: string }
  | { type: 'complete'; seq: number; count: number }
  | { type: 'stats'; waiting: number; received: number; polls: number; errors: number; latencies: number[]; bySeq: Record<number, number> }
  | { type: 'stopped' };

/** Messages whose content starts with this carry their send time and sequence number. */
export const STAMP = 'bench-ts:';

interface Poller {
  cred: Cred;
  client: Client;
  queueId: string;
  lastEventId: number;
  waiting: boolean;
}

const send = (m: FromChild) => process.send!(m);
let stopped = false;
const pollers: Poller[] = [];
let latencies: number[] = [];
const bySeq = new Map<number, number>();
let received = 0;
let polls = 0;
let errors = 0;

async function call(p: Poller, method: 'GET' | 'POST', path: string, params: Record<string, unknown>): Promise<Record<string, any>> {
  const qs = encode(params as Record<string, string>);
  const res = await p.client.request({
    method,
    path: method === 'GET' ? `/api/v1/${path}?${qs}` : `/api/v1/${path}`,
    headers: headersFor(p.cred, method === 'POST'),
    body: method === 'POST' ? qs : undefined,
  });
  const body = (await res.body.json()) as Record<string, any>;
  if (res.statusCode !== 200) throw new Error(`${path} → ${res.statusCode} ${JSON.stringify(body).slice(0, 200)}`);
  return body;
}

function onEvents(events: { id: number; type: string; message?: { content?: string } }[], total: number): void {
  const t = nowMs();
  for (const ev of events) {
    if (ev.type !== 'message') continue;
    received++;
    const content = ev.message?.content ?? '';
    if (!content.startsWith(STAMP)) continue;
    const [ts, seq] = content.slice(STAMP.length).split(':').map(Number);
    latencies.push(t - ts);
    const n = (bySeq.get(seq) ?? 0) + 1;
    bySeq.set(seq, n);
    if (n === total) send({ type: 'complete', seq, count: n });
  }
}

async function loop(p: Poller): Promise<void> {
  while (!stopped) {
    try {
      p.waiting = true;
      const body = await call(p, 'GET', 'events', { queue_id: p.queueId, last_event_id: String(p.lastEventId) });
      p.waiting = false;
      polls++;
      const events = body.events as { id: number; type: string }[];
      for (const ev of events) p.lastEventId = Math.max(p.lastEventId, ev.id);
      onEvents(events, pollers.length);
    } catch (err) {
      p.waiting = false;
      if (stopped) return;
      errors++;
      if (/BAD_EVENT_QUEUE_ID/.test(String(err))) return;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

let baseUrl = '';

async function init(url: string, creds: Cred[], concurrency: number): Promise<void> {
  baseUrl = url;
  let next = 0;
  let failed = 0;
  let firstError: string | undefined;
  const worker = async () => {
    while (next < creds.length && !stopped) {
      const cred = creds[next++];
      // One connection per queue, as a real client would hold: the long-poll occupies it.
      const client = new Client(url, { keepAliveTimeout: 600_000, keepAliveMaxTimeout: 600_000, headersTimeout: 0, bodyTimeout: 0, connectTimeout: 60_000 });
      const p: Poller = { cred, client, queueId: '', lastEventId: -1, waiting: false };
      try {
        const body = await call(p, 'POST', 'register', { event_types: '["message"]', fetch_event_types: '[]', apply_markdown: 'false' });
        p.queueId = body.queue_id as string;
        pollers.push(p);
      } catch (err) {
        failed++;
        firstError ??= String(err);
        await client.close().catch(() => {});
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  for (const p of pollers) void loop(p);
  send({ type: 'ready', registered: pollers.length, failed, firstError });
}

/** Drops the connections (ending the waiting polls), then deletes the queues so later scenarios start clean. */
async function stop(): Promise<void> {
  await Promise.all(pollers.map((p) => p.client.destroy().catch(() => {})));
  if (!pollers.length) return;
  const pool = new Pool(baseUrl, { connections: 8 });
  let next = 0;
  const worker = async () => {
    while (next < pollers.length) {
      const p = pollers[next++];
      const res = await pool.request({ method: 'DELETE', path: `/api/v1/events?${encode({ queue_id: p.queueId })}`, headers: headersFor(p.cred, false) }).catch(() => null);
      await res?.body.dump();
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  await pool.close();
}

process.on('message', (m: ToChild) => {
  if (m.type === 'init') void init(m.url, m.creds, m.registerConcurrency);
  else if (m.type === 'stats') {
    send({ type: 'stats', waiting: pollers.filter((p) => p.waiting).length, received, polls, errors, latencies, bySeq: Object.fromEntries(bySeq) });
    latencies = [];
  } else if (m.type === 'stop') {
    stopped = true;
    void stop().then(() => {
      send({ type: 'stopped' });
      process.exit(0);
    });
  }
});
process.on('disconnect', () => process.exit(0));

// Child process holding many event queues: registers each, long-polls it in a loop, and reports delivery latencies over IPC.
import { Pool } from 'undici';
import { encode, headersFor, type Cred } from './api.js';
import { LeanConnection, type LeanResponse } from './lean-http.js';
import { H2SessionPool, type H2Connection } from './h2-connection.js';

/** h1: one socket per queue (lean-http.ts); h2: queues as streams of shared HTTP/2 sessions (h2-connection.ts). */
export type Transport = 'h1' | 'h2';
/** pollUrls (h1 only): each queue polls these in turn, starting at its index, instead of the node it registered on. */
export type ToChild = { type: 'init'; url: string; creds: Cred[]; registerConcurrency: number; transport: Transport; pollUrls?: string[] } | { type: 'stats' } | { type: 'stop' };
export type FromChild =
  | { type: 'ready'; registered: number; failed: number; firstError?: string }
  | { type: 'complete'; seq: number; count: number }
  | { type: 'stats'; waiting: number; received: number; polls: number; errors: number; stale: number; latencies: number[]; bySeq: Record<number, number> }
  | { type: 'stopped' };

/** Messages whose content starts with this carry their send time and sequence number. */
export const STAMP = 'bench-ts:';

interface Poller {
  cred: Cred;
  client: LeanConnection | H2Connection;
  /** With pollUrls: one connection per node, polled in turn (`turn` counts the polls). */
  pollClients: LeanConnection[] | null;
  turn: number;
  queueId: string;
  /** Computed once: a poll then costs the child no base64 or URL encoding. */
  pollHeaders: Record<string, string>;
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
/** Message events at or below the poll's last_event_id: the client had them already (a duplicate). */
let stale = 0;

function parseOk(path: string, res: LeanResponse): Record<string, any> {
  if (res.status !== 200) throw new Error(`${path} → ${res.status} ${res.body.slice(0, 200)}`);
  return JSON.parse(res.body) as Record<string, any>;
}

/** Lets the loop finish reading what has arrived before this poller writes its next poll. */
const afterArrivals = () => new Promise((r) => setImmediate(r));

async function register(p: Poller, params: Record<string, string>): Promise<Record<string, any>> {
  return parseOk('register', await p.client.request('POST', '/api/v1/register', headersFor(p.cred, true), encode(params)));
}

async function poll(p: Poller): Promise<{ body: Record<string, any>; receivedAt: number }> {
  const target = `/api/v1/events?queue_id=${encodeURIComponent(p.queueId)}&last_event_id=${p.lastEventId}`;
  const client = p.pollClients ? p.pollClients[p.turn++ % p.pollClients.length] : p.client;
  const res = await client.request('GET', target, p.pollHeaders);
  return { body: parseOk('events', res), receivedAt: res.receivedAt };
}

/** `t` is when the answer had arrived whole: this child's parsing of other answers is not the server's latency. */
function onEvents(events: { id: number; type: string; message?: { content?: string } }[], total: number, t: number): void {
  for (const ev of events) {
    if (ev.type !== 'message') continue;
    received++;
    const content = ev.message?.content ?? '';
    if (!content.startsWith(STAMP)) continue;
    // parseFloat: the stamp may be followed by the message's text.
    const [ts, seq] = content.slice(STAMP.length).split(':').map((x) => parseFloat(x));
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
      const { body, receivedAt } = await poll(p);
      p.waiting = false;
      polls++;
      const events = body.events as { id: number; type: string }[];
      for (const ev of events) {
        if (ev.type === 'message' && ev.id <= p.lastEventId) stale++;
        p.lastEventId = Math.max(p.lastEventId, ev.id);
      }
      onEvents(events, pollers.length, receivedAt);
      // One child plays thousands of clients on a shared core: answers that arrived together are
      // all timed before any of their pollers writes its next request (each write a system call
      // that would delay the timing of the answers behind it, which a real client would not).
      await afterArrivals();
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
let h2Pool: H2SessionPool | null = null;

async function init(url: string, creds: Cred[], concurrency: number, transport: Transport, pollUrls?: string[]): Promise<void> {
  baseUrl = url;
  if (transport === 'h2') h2Pool = new H2SessionPool(url);
  let next = 0;
  let failed = 0;
  let firstError: string | undefined;
  const worker = async () => {
    while (next < creds.length && !stopped) {
      const cred = creds[next++];
      // Over HTTP/1.1, one connection per queue, as a real client would hold: the long-poll occupies it.
      const client = h2Pool ? h2Pool.connection() : new LeanConnection(url);
      const pollClients = pollUrls && transport === 'h1' ? pollUrls.map((u) => new LeanConnection(u)) : null;
      const p: Poller = { cred, client, pollClients, turn: pollers.length, queueId: '', pollHeaders: headersFor(cred, false), lastEventId: -1, waiting: false };
      try {
        const body = await register(p, { event_types: '["message"]', fetch_event_types: '[]', apply_markdown: 'false' });
        p.queueId = body.queue_id as string;
        pollers.push(p);
      } catch (err) {
        failed++;
        firstError ??= String(err);
        client.destroy();
        p.pollClients?.forEach((c) => c.destroy());
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  for (const p of pollers) void loop(p);
  send({ type: 'ready', registered: pollers.length, failed, firstError });
}

/** Drops the connections (ending the waiting polls), then deletes the queues so later scenarios start clean. */
async function stop(): Promise<void> {
  for (const p of pollers) {
    p.client.destroy();
    p.pollClients?.forEach((c) => c.destroy());
  }
  h2Pool?.destroyAll();
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
  if (m.type === 'init') void init(m.url, m.creds, m.registerConcurrency, m.transport, m.pollUrls);
  else if (m.type === 'stats') {
    send({ type: 'stats', waiting: pollers.filter((p) => p.waiting).length, received, polls, errors, stale, latencies, bySeq: Object.fromEntries(bySeq) });
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

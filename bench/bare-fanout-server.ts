// The machine's fan-out ceiling: a bare node:http server speaking just enough of the events API
// (register, long-poll, send, delete) for the bench's own clients, with no database, no check and
// no rendering: it hands each message to every registered queue as an event of Parley's shape.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';

interface Queue {
  id: string;
  /** Serialized events not yet acknowledged, and the ID of the first of them. */
  events: string[];
  firstId: number;
  nextId: number;
  waiting: http.ServerResponse | null;
  lastAnsweredAt: number;
  woken: boolean;
}

/**
 * A queue answered less than this long ago waits out the rest, as Parley's queues do under load
 * (events/registry.ts, BUSY_ANSWER_GAP_MS): fewer, larger answers are the cheaper way to deliver a
 * steady stream, so the ceiling uses them too.
 */
const ANSWER_GAP_MS = 100;

const queues = new Map<string, Queue>();
let queueCount = 0;
let messageCount = 0;
let woken: Queue[] = [];
let wakeScheduled = false;

const JSON_TYPE = { 'content-type': 'application/json' };

function reply(res: http.ServerResponse, body: string): void {
  res.writeHead(200, { ...JSON_TYPE, 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

function readBody(req: http.IncomingMessage, done: (body: string) => void): void {
  let body = '';
  req.setEncoding('utf8');
  req.on('data', (c: string) => (body += c));
  req.on('end', () => done(body));
}

/** One message event's JSON without its per-queue ID: the fields and sizes of Parley's (apply_markdown=false). */
function messageJson(id: number, topic: string, content: string): string {
  return JSON.stringify({
    id,
    type: 'stream',
    subject: topic,
    content,
    rendered_content: '',
    client: 'bench',
    sender_id: 1,
    sender_email: 'user0@bench.example.com',
    sender_full_name: 'Bench User 0',
    sender_realm_str: '',
    sender_avatar: { avatar_url: null, avatar_version: 1 },
    display_recipient: 'bench',
    recipient_id: 1,
    timestamp: Math.floor(Date.now() / 1000),
    is_me_message: false,
    reactions: [],
    submessages: [],
    topic_links: [],
    stream_id: 1,
  });
}

function answer(q: Queue): void {
  const res = q.waiting!;
  q.waiting = null;
  q.lastAnsweredAt = performance.now();
  let events = '';
  for (let i = 0; i < q.events.length; i++) events += (i ? ',' : '') + q.events[i] + (q.firstId + i) + '}';
  reply(res, `{"result":"success","msg":"","events":[${events}],"queue_id":"${q.id}"}`);
}

/** Answers the woken queues whose gap has passed; the others when theirs has. */
function answerWoken(): void {
  wakeScheduled = false;
  const now = performance.now();
  const batch = woken;
  woken = [];
  let nextDue = Infinity;
  for (const q of batch) {
    q.woken = false;
    if (!q.waiting || !q.events.length) continue;
    const due = q.lastAnsweredAt + ANSWER_GAP_MS;
    if (due <= now) answer(q);
    else {
      wake(q, false);
      nextDue = Math.min(nextDue, due);
    }
  }
  if (nextDue !== Infinity) {
    wakeScheduled = true;
    setTimeout(answerWoken, nextDue - now);
  }
}

function wake(q: Queue, schedule = true): void {
  if (q.woken) return;
  q.woken = true;
  woken.push(q);
  if (schedule && !wakeScheduled) {
    wakeScheduled = true;
    setImmediate(answerWoken);
  }
}

function register(res: http.ServerResponse): void {
  const id = `bare-${++queueCount}`;
  queues.set(id, { id, events: [], firstId: 0, nextId: 0, waiting: null, lastAnsweredAt: 0, woken: false });
  reply(res, `{"result":"success","msg":"","queue_id":"${id}","last_event_id":-1}`);
}

function poll(res: http.ServerResponse, query: URLSearchParams): void {
  const q = queues.get(query.get('queue_id') ?? '');
  if (!q) {
    res.writeHead(400, JSON_TYPE);
    res.end('{"result":"error","msg":"Bad event queue ID","code":"BAD_EVENT_QUEUE_ID"}');
    return;
  }
  const acked = Number(query.get('last_event_id') ?? -1);
  const drop = Math.min(q.events.length, Math.max(0, acked - q.firstId + 1));
  if (drop) {
    q.events.splice(0, drop);
    q.firstId += drop;
  }
  q.waiting = res;
  res.on('close', () => {
    if (q.waiting === res) q.waiting = null;
  });
  if (q.events.length) wake(q);
}

function send(res: http.ServerResponse, body: string): void {
  const form = new URLSearchParams(body);
  const id = ++messageCount;
  const event = `{"type":"message","message":${messageJson(id, form.get('topic') ?? '', form.get('content') ?? '')},"flags":[],"id":`;
  for (const q of queues.values()) {
    if (!q.events.length) q.firstId = q.nextId;
    q.events.push(event);
    q.nextId++;
    if (q.waiting) wake(q);
  }
  reply(res, `{"result":"success","msg":"","id":${id}}`);
}

const server = http.createServer({ keepAliveTimeout: 120_000 }, (req, res) => {
  const url = req.url ?? '/';
  const mark = url.indexOf('?');
  const pathname = mark < 0 ? url : url.slice(0, mark);
  const query = new URLSearchParams(mark < 0 ? '' : url.slice(mark + 1));
  if (pathname === '/api/v1/events' && req.method === 'GET') {
    req.resume();
    poll(res, query);
  } else if (pathname === '/api/v1/events' && req.method === 'DELETE') {
    req.resume();
    const q = queues.get(query.get('queue_id') ?? '');
    queues.delete(query.get('queue_id') ?? '');
    q?.waiting?.destroy();
    reply(res, '{"result":"success","msg":""}');
  } else if (pathname === '/api/v1/messages' && req.method === 'POST') readBody(req, (body) => send(res, body));
  else if (pathname === '/api/v1/register' && req.method === 'POST') {
    req.resume();
    register(res);
  } else {
    req.resume();
    res.writeHead(404, JSON_TYPE);
    res.end('{"result":"error","msg":"Not found","code":"BAD_REQUEST"}');
  }
});
server.maxConnections = Infinity;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});
// As Parley's loop monitor (src/workers/loop-monitor.ts): on SIGUSR2, the longest stall since the last signal, beyond the 10 ms sampling.
const loopDelay = monitorEventLoopDelay({ resolution: 10 });
loopDelay.enable();
process.on('SIGUSR2', () => {
  process.stdout.write(`loop ${JSON.stringify({ max_stall_ms: Math.round(Math.max(0, loopDelay.max / 1e6 - 10) * 100) / 100 })}\n`);
  loopDelay.reset();
});
process.on('SIGTERM', () => process.exit(0));

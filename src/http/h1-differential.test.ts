// Differential fuzz test: generated HTTP/1.1 byte streams (pipelining, odd framing, bad bytes, arbitrary splits) sent to the listener with the lean parser and with Node's alone must execute the same requests and get the same answers.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import fc from 'fast-check';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createListener, type Listener } from './listener.js';
import { LeanRequest, LeanResponse } from './h1-lean.js';
import { MAX_LEAN_BODY_BYTES } from './h1-lean.js';
import { parseRequestHead } from './h1-head.js';
import type { HttpRequest, HttpResponse } from './types.js';

/** PARLEY_FUZZ_LONG=1 (or --long): many more streams, for a closing run rather than every CI run. */
const LONG = process.env.PARLEY_FUZZ_LONG === '1' || process.argv.includes('--long');
const RUNS = Number(process.env.PARLEY_FUZZ_RUNS ?? (LONG ? 3000 : 60));
/** How long both servers must stay silent before a stream's answers are taken as complete. */
const QUIET_MS = 60;
/** How long an answer or a close that is still due is waited for. */
const DUE_MS = 1500;

interface Side {
  listener: Listener;
  port: number;
  /** The requests the server executed, in order, as "METHOD target body-hex". */
  executed: string[];
}

const TEXT = Object.freeze({ 'content-type': 'text/plain' });

/** What the generated streams exercised: requests the lean parser served itself, refusals, streams. */
const tally = { servedLean: 0, refused: 0, streams: 0 };

function answer(req: HttpRequest, res: HttpResponse, executed: string[]): void {
  const finish = (body: Buffer) => {
    const record = `${req.method} ${req.url} ${body.toString('hex')}`;
    executed.push(record);
    // A HEAD answer has no body (its length would frame nothing): this one says so.
    const text = req.method === 'HEAD' ? '' : record;
    if (res instanceof LeanResponse) res.send(200, TEXT, text);
    // Node's server gets the same header order the lean server writes: the length after the view's headers.
    else (res as ServerResponse).writeHead(200, { 'content-type': 'text/plain', 'content-length': String(Buffer.byteLength(text)) }).end(text);
  };
  if (req instanceof LeanRequest) {
    tally.servedLean++;
    return finish(req.body);
  }
  const chunks: Buffer[] = [];
  (req as IncomingMessage).on('data', (c: Buffer) => chunks.push(c));
  (req as IncomingMessage).on('end', () => finish(Buffer.concat(chunks)));
}

async function side(leanHttp: boolean): Promise<Side> {
  const executed: string[] = [];
  const listener = createListener((req, res) => answer(req, res, executed), { keepAliveTimeoutMs: 30_000, headersTimeoutMs: 20_000, requestTimeoutMs: 20_000, leanHttp });
  await new Promise<void>((r) => listener.server.listen(0, '127.0.0.1', r));
  return { listener, port: (listener.server.address() as net.AddressInfo).port, executed };
}

let lean: Side;
let node: Side;
before(async () => {
  lean = await side(true);
  node = await side(false);
});
after(async () => {
  for (const s of [lean, node]) {
    s.listener.closeAllConnections();
    await new Promise((r) => s.listener.server.close(r));
  }
});

interface Outcome {
  /** The requests the server executed, with their bodies: where each request ended. */
  executed: string[];
  /** The answers' bodies, in order (each names its request). */
  answered: string[];
  /** Node's refusal (a 4xx or 5xx, head and body, the Date blanked), if any. */
  refusal: string;
  closed: boolean;
  /** The last answer said Connection: close (its request asked to close, or was HTTP/1.0). */
  closeAnswered: boolean;
}

/** Splits the bytes answered into the answers' bodies and the refusal, if there is one. */
function outcome(executed: string[], raw: string, closed: boolean): Outcome {
  const answered: string[] = [];
  let refusal = '';
  let closeAnswered = false;
  let pos = 0;
  for (;;) {
    const end = raw.indexOf('\r\n\r\n', pos);
    if (end < 0) break;
    const head = raw.slice(pos, end);
    const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
    const body = raw.slice(end + 4, end + 4 + length);
    if (head.startsWith('HTTP/1.1 200 ')) {
      answered.push(body);
      closeAnswered = /\r\nConnection: close/i.test(head);
    } else refusal += head.replace(/\r\nDate: [^\r]*/g, '') + '\r\n\r\n' + body;
    pos = end + 4 + length;
  }
  // Bytes that do not make an answer would be a framing error of the server's.
  if (pos < raw.length) refusal += `[unframed] ${raw.slice(pos)}`;
  return { executed, answered, refusal, closed, closeAnswered };
}

/** Sends the chunks (a pause between them, so that they tend to arrive apart) and collects the outcome once the server is quiet. */
async function run(s: Side, chunks: Buffer[]): Promise<Outcome> {
  s.executed.length = 0;
  const socket = net.connect(s.port, '127.0.0.1');
  socket.setNoDelay(true);
  let answers = '';
  let closed = false;
  let last = Date.now();
  socket.on('data', (d: Buffer) => {
    answers += d.toString('latin1');
    last = Date.now();
  });
  socket.on('error', () => undefined);
  socket.on('close', () => {
    closed = true;
    last = Date.now();
  });
  await new Promise((r) => socket.once('connect', r));
  for (const c of chunks) {
    if (closed) break;
    socket.write(c);
    last = Date.now();
    await new Promise((r) => setTimeout(r, 1));
  }
  // Quiet for QUIET_MS ends the wait, unless something is still due: an answer for a request the
  // server executed, or the close that an answer saying "close" or a refusal announces. Under load
  // those can come later than QUIET_MS, so they are waited for up to DUE_MS.
  const due = () => {
    const o = outcome(s.executed, answers, closed);
    return o.answered.length < s.executed.length || o.closeAnswered || o.refusal !== '';
  };
  while (!closed && (Date.now() - last < QUIET_MS || (due() && Date.now() - last < DUE_MS))) await new Promise((r) => setTimeout(r, 10));
  socket.destroy();
  await new Promise((r) => setImmediate(r));
  return outcome([...s.executed], answers, closed);
}

/** Usually one of the plain values, sometimes an odd one: most requests are plain, most streams hold an odd part. */
const mostly = <T>(plain: fc.Arbitrary<T>, odd: fc.Arbitrary<T>) => fc.oneof({ weight: 10, arbitrary: plain }, { weight: 1, arbitrary: odd });

const crlf = mostly(fc.constant('\r\n'), fc.constantFrom('\n', '\r', '\r\n ', '\r\r\n'));
const method = mostly(fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'), fc.constantFrom('HEAD', 'PROPFIND', 'get', 'G T', 'GE\x00T', '', 'CONNECT'));
const target = mostly(
  fc.constantFrom('/a', '/api/v1/events?queue_id=1-a&last_event_id=2', '/a?b=%E2%82%AC', '//', '/a#f'),
  fc.constantFrom('/%zz', '*', 'http://h/a', '/a b', '/\x7f', '/\x80', '', '/a\tb', '/a\x00'),
);
const version = mostly(fc.constantFrom('HTTP/1.1'), fc.constantFrom('HTTP/1.0', 'HTTP/2.0', 'HTTP/1.10', 'http/1.1', 'HTTP/1.', 'HTTP/1.1 ', 'HTTP/0.9', 'HTTP/1.2'));
const header = mostly(
  fc.constantFrom('X-A: b', 'X-A: b\tc', 'X-B:   padded   ', 'X-Empty:', 'Accept: */*', 'Connection: keep-alive', 'constructor: x', 'User-Agent: ZulipMobile/1.0'),
  fc.constantFrom(
    'X-Ü: x',
    'X-C: a\x00b',
    'X-D: \x80\xff',
    'Bad Name: x',
    ': no-name',
    'X-E : space-before-colon',
    'no-colon',
    'X-F: a\x7fb',
    'Host: other',
    'Transfer-Encoding: chunked',
    'Transfer-Encoding: identity',
    'Transfer-Encoding: gzip, chunked',
    'Content-Length: 3',
    'Content-Length: +3',
    'Content-Length: 03',
    'Content-Length: 3, 3',
    'Content-Length: -1',
    'Content-Length: 99999999999999999999',
    `Content-Length: ${MAX_LEAN_BODY_BYTES + 1}`,
    'Content-Length:',
    'Expect: 100-continue',
    'Upgrade: websocket',
    'Connection: upgrade',
    'Connection: foo',
    ' folded',
    '\tfolded',
    '__proto__: x',
  ),
);
const body = fc.oneof(
  fc.constant(''),
  fc.constantFrom('abc', 'a=1&b=2', '3\r\nabc\r\n0\r\n\r\n', '0\r\n\r\n', '3\r\nab', 'zz\r\nabc\r\n0\r\n\r\n', '3;ext=1\r\nabc\r\n0\r\n\r\n'),
  fc.string({ unit: 'binary-ascii', maxLength: 12 }),
);

/** One request: mostly well-formed, with some of its parts swapped for odd ones. */
const request = fc
  .record({
    method,
    target,
    version,
    host: mostly(fc.constantFrom('Host: h', 'host:h'), fc.constantFrom('', 'Host: h\r\nHost: h2', 'Host:')),
    headers: fc.array(header, { maxLength: 3 }),
    eol: fc.array(crlf, { minLength: 8, maxLength: 8 }),
    framed: mostly(fc.constant(true), fc.constant(false)),
    body,
  })
  .map((r) => {
    const lines = [`${r.method} ${r.target} ${r.version}`, ...(r.host ? [r.host] : []), ...r.headers];
    // Most requests frame their body by a right Content-Length; the others keep whatever the headers say.
    if (r.framed && r.body && !r.headers.some((h) => /content-length|transfer-encoding/i.test(h))) lines.push(`Content-Length: ${Buffer.byteLength(r.body, 'latin1')}`);
    let text = '';
    lines.forEach((l, i) => (text += l + r.eol[Math.min(i, r.eol.length - 2)]));
    return text + r.eol[r.eol.length - 1].replace('\r\n ', '\r\n') + r.body;
  });

/** A stream: pipelined requests, the last one possibly asking to close, split at arbitrary places. */
const stream = fc
  .record({
    requests: fc.array(request, { minLength: 1, maxLength: 3 }),
    closeLast: mostly(fc.constant(false), fc.constant(true)),
    cuts: fc.array(fc.nat(), { maxLength: 6 }),
  })
  .map(({ requests, closeLast, cuts }) => {
    const texts = [...requests];
    if (closeLast) texts[texts.length - 1] = texts[texts.length - 1].replace(/\r\n/, '\r\nConnection: close\r\n');
    const bytes = Buffer.from(texts.join(''), 'latin1');
    const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
    const chunks: Buffer[] = [];
    let from = 0;
    for (const p of [...points, bytes.length]) {
      if (p > from) chunks.push(bytes.subarray(from, p));
      from = p;
    }
    return chunks;
  });

test(`the lean parser and Node's agree on ${RUNS} generated streams: the same requests executed, the same answers, the same close`, { timeout: LONG ? 3_600_000 : 120_000 }, async () => {
  const details = await fc.check(
    fc.asyncProperty(stream, async (chunks) => {
      const [a, b] = await Promise.all([run(lean, chunks), run(node, chunks)]);
      // Bytes after a request that closes the connection: the lean server answers that request and
      // reads nothing more; Node's parser refuses the extra bytes (400) when they came in the same
      // read. Neither executes anything after the closing request.
      tally.streams++;
      if (b.refusal) tally.refused++;
      const closedEarly = a.closeAnswered && a.closed && !a.refusal && b.refusal.startsWith('HTTP/1.1 400 ');
      // A refusal is compared by its status line: Node frames the same 400 either bare or as an
      // empty chunked answer, depending on whether an answer was still being written when its
      // parser refused (a matter of timing, seen under load, on either side).
      const status = (refusal: string) => refusal.split('\r\n', 1)[0];
      assert.deepEqual([a.executed, closedEarly ? '' : status(a.refusal), a.closed], [b.executed, closedEarly ? '' : status(b.refusal), b.closed]);
      // Answers come in order, each for its request. Node's server drops the answers still due when
      // it refuses a request that came in the same read (it writes its 400 at once): either side
      // may have fewer answers than requests then, never other ones. (So does a CONNECT or an
      // upgrade, which ends the connection when nothing takes it.)
      for (const o of [a, b]) {
        assert.deepEqual(o.answered, o.executed.slice(0, o.answered.length).map((e) => (e.startsWith('HEAD ') ? '' : e)));
        if (!o.refusal && !o.closed) assert.equal(o.answered.length, o.executed.length);
      }
    }),
    { numRuns: RUNS, endOnFailure: true, ...(process.env.PARLEY_FUZZ_SEED ? { seed: Number(process.env.PARLEY_FUZZ_SEED) } : {}) },
  );
  // The failing stream and both outcomes, whole (fast-check's own report shortens them).
  if (details.failed) {
    const chunks = details.counterexample![0];
    const [a, b] = await Promise.all([run(lean, chunks), run(node, chunks)]);
    assert.fail(`seed ${details.seed}: ${String(details.errorInstance)}\nreplayed: ${JSON.stringify({ chunks: chunks.map((c) => c.toString("latin1")), lean: a, node: b }, null, 1)}`);
  }
  if (!details.failed) console.log(`# ${JSON.stringify(tally)}`);
  // The streams reach both the lean parser's own path and Node's refusals, not only one of them.
  assert.ok(tally.servedLean >= RUNS / 4 && tally.refused >= RUNS / 10 && tally.refused <= RUNS * 0.9, JSON.stringify(tally));
});

test('the lean head parser, fed a head split at every byte, waits or refuses early only as the whole head would be taken', () => {
  fc.assert(
    fc.property(request, (text) => {
      const bytes = Buffer.from(text, 'latin1');
      const whole = parseRequestHead(bytes, MAX_LEAN_BODY_BYTES);
      const headEnd = typeof whole === 'string' ? bytes.length : whole.headLength;
      for (let cut = 0; cut < headEnd; cut++) {
        const part = parseRequestHead(bytes.subarray(0, cut), MAX_LEAN_BODY_BYTES);
        // A prefix of a head the lean server takes must wait for the rest; one it refuses may be refused early.
        if (typeof whole !== 'string') assert.equal(part, 'incomplete', `cut at ${cut} of ${JSON.stringify(text)}`);
        else assert.ok(part === 'incomplete' || part === 'unsupported');
      }
      // Pipelined behind itself, it frames the same way.
      const twice = parseRequestHead(Buffer.concat([bytes, bytes]), MAX_LEAN_BODY_BYTES);
      if (typeof whole !== 'string' && typeof twice !== 'string') assert.deepEqual([twice.headLength, twice.bodyLength], [whole.headLength, whole.bodyLength]);
    }),
    { numRuns: LONG ? 200_000 : 3000 },
  );
});

// Serves plain HTTP/1.1 (and 1.0) requests straight on the socket, without Node's HTTP objects; a connection whose request it does not take goes to Node's server.
import type net from 'node:net';
import { STATUS_CODES } from 'node:http';
import { performance } from 'node:perf_hooks';
import { MAX_HEAD_BYTES, isToken, parseRequestHead, type RequestHead } from './h1-head.js';
import type { CloseWatcher } from './types.js';

/**
 * Why: a held long-poll answered through Node's HTTP server costs, per answer and next poll, about
 * twice the CPU of the same exchange on the bare socket (request, response and parser objects, their
 * stream states and events), and most of a held poll's memory (docs/performance.md, "HTTP").
 * Long-polls, sends and reads are plain requests; this serves exactly those (see h1-head.ts) and
 * hands everything else, at a request boundary, to Node's server, which keeps the connection.
 */

/** Bodies up to this size are read here; a larger one (an upload) goes to Node's server, which streams it. */
export const MAX_LEAN_BODY_BYTES = 1024 * 1024;
/** Bytes a client may send ahead while its request is being answered before its reading pauses. */
const MAX_AHEAD_BYTES = MAX_HEAD_BYTES + MAX_LEAN_BODY_BYTES;
const EMPTY = Buffer.alloc(0);
const NO_HEADERS: Record<string, string> = Object.freeze({});
/** What Node checks a response header's value against (it throws on anything else, as this does). */
const BAD_VALUE = /[^\t\x20-\x7e\x80-\xff]/;
const NON_ASCII = /[^\x00-\x7f]/;

/** A request as the views see it: its body is already read. */
export class LeanRequest {
  constructor(
    readonly method: string,
    readonly url: string,
    readonly headers: Record<string, string>,
    readonly body: Buffer,
    private readonly connection: LeanConnection,
  ) {}

  /** The client's address (what per-IP rate limits count by). */
  get remoteAddress(): string {
    return this.connection.socket.remoteAddress ?? '';
  }

  /** The body is read whole before the request is served: nothing to drain. */
  resume(): void {}
}

type Listener = () => void;

/** A response, written in one go by end(); 'finish' when written, then 'close' (as Node's). */
export class LeanResponse {
  statusCode = 200;
  headersSent = false;
  /** 'close' has fired: the response was written, or the client went away first. */
  closed = false;
  private headers: Record<string, string> = NO_HEADERS;
  /** Headers set for this response alone (setHeader), written with the ones given to send. */
  private extraHeaders: Record<string, string> | null = null;
  private finishListeners: Listener[] | null = null;
  private closeListeners: Listener[] | null = null;
  /** Told of 'close' after the listeners: a held long-poll's answer, without a listener array or closure. */
  private closeWatcher: CloseWatcher | null = null;
  /**
   * Written as an X-Request-Id header line after the shared header lines (so those stay cached
   * per headers object). The HTTP layer sets it to a value that needs no escaping.
   */
  requestId: string | null = null;
  /** What the HTTP layer keeps about the request this answers (request-log.ts); this class does not read it. */
  record: unknown = null;

  constructor(
    readonly connection: LeanConnection,
    /** The client asked for the connection to close after this response. */
    private readonly closeAfter: boolean,
  ) {}

  get destroyed(): boolean {
    return this.connection.destroyed;
  }

  /** A header of this response only, as Node's setHeader: sent with whatever send() is given. */
  setHeader(name: string, value: string): this {
    (this.extraHeaders ??= {})[name] = value;
    return this;
  }

  writeHead(status: number, headers: Record<string, string>): this {
    this.statusCode = status;
    this.headers = headers;
    return this;
  }

  /** Writes the response given to writeHead with this body. */
  end(body: string | Buffer): void {
    this.send(this.statusCode, this.headers, body);
  }

  /**
   * Writes status, headers (Content-Length is added here) and body at once. The status line and
   * headers are put together once per headers object (views answer with a few shared ones).
   */
  send(status: number, headers: Record<string, string>, body: string | Buffer): void {
    if (this.headersSent) return;
    this.statusCode = status;
    const close = this.closeAfter || this.connection.closing;
    const length = typeof body === 'string' ? Buffer.byteLength(body) : body.length;
    // Headers of this response alone are not cached: their values change from one response to the next.
    const lines = this.extraHeaders ? buildHeadLines(status, { ...headers, ...this.extraHeaders }) : headLines(status, headers);
    const id = this.requestId === null ? '' : `x-request-id: ${this.requestId}\r\n`;
    const head = lines.text + id + `content-length: ${length}\r\n` + responseTail(close, this.connection.keepAliveLine);
    this.headersSent = true;
    this.connection.write(head, lines.ascii, body, close);
    this.fire(this.finishListeners);
    this.finishListeners = null;
    this.close();
    this.connection.requestDone(close);
  }

  on(event: 'close' | 'finish', listener: Listener): this {
    if (event === 'close') {
      if (!this.closed) (this.closeListeners ??= []).push(listener);
    } else if (!this.headersSent) (this.finishListeners ??= []).push(listener);
    return this;
  }

  once(event: 'close' | 'finish', listener: Listener): this {
    // Each fires at most once.
    return this.on(event, listener);
  }

  /** Calls watcher.closed() at 'close' (one watcher; a later one replaces it). */
  watchClose(watcher: CloseWatcher): void {
    if (!this.closed) this.closeWatcher = watcher;
  }

  /** The connection closed before the response was written, or it has been written. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    const listeners = this.closeListeners;
    this.closeListeners = null;
    this.fire(listeners);
    const watcher = this.closeWatcher;
    this.closeWatcher = null;
    watcher?.closed();
  }

  private fire(listeners: Listener[] | null): void {
    if (listeners) for (const l of listeners) l();
  }
}

let dateSecond = -1;
let keepAliveTail = '';
let closeTail = '';
let tailKeepAliveLine = '';

/** The head's last lines: Date (made once a second, as Node's), Connection, Keep-Alive. */
function responseTail(close: boolean, keepAliveLine: string): string {
  const now = Date.now();
  const second = Math.floor(now / 1000);
  if (second !== dateSecond || keepAliveLine !== tailKeepAliveLine) {
    dateSecond = second;
    tailKeepAliveLine = keepAliveLine;
    const date = `Date: ${new Date(now).toUTCString()}\r\n`;
    keepAliveTail = `${date}Connection: keep-alive\r\n${keepAliveLine}\r\n`;
    closeTail = `${date}Connection: close\r\n\r\n`;
  }
  return close ? closeTail : keepAliveTail;
}

interface HeadLines {
  text: string;
  /** Whether the text is ASCII (header values may hold Latin-1, written as such). */
  ascii: boolean;
}

/** Status line and header lines, by headers object and status (the object must not change afterwards). */
const headCache = new WeakMap<Record<string, string>, Map<number, HeadLines>>();

function headLines(status: number, headers: Record<string, string>): HeadLines {
  let byStatus = headCache.get(headers);
  const hit = byStatus?.get(status);
  if (hit !== undefined) return hit;
  const lines = buildHeadLines(status, headers);
  if (!byStatus) headCache.set(headers, (byStatus = new Map()));
  byStatus.set(status, lines);
  return lines;
}

function buildHeadLines(status: number, headers: Record<string, string>): HeadLines {
  let head = `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Unknown'}\r\n`;
  for (const name in headers) {
    const value = headers[name];
    if (!isToken(name) || BAD_VALUE.test(value)) throw new TypeError(`invalid response header ${JSON.stringify(name)}`);
    // The length written is always the body's own.
    if (name.toLowerCase() !== 'content-length') head += `${name}: ${value}\r\n`;
  }
  return { text: head, ascii: !NON_ASCII.test(head) };
}

export interface LeanServerOptions {
  keepAliveTimeoutMs: number;
  /** How long a request's head may take to arrive. */
  headersTimeoutMs: number;
  /** How long a whole request, head and body, may take to arrive (at least headersTimeoutMs). */
  requestTimeoutMs: number;
  onRequest: (req: LeanRequest, res: LeanResponse) => void;
  /** Gives the socket to Node's server (its unread bytes are back in the socket). */
  handOver: (socket: net.Socket) => void;
}

function serveConnection(c: LeanConnection): void {
  c.serve();
}

/** One socket's requests, one at a time. Also what the read pacer pauses (PausableReads). */
export class LeanConnection {
  /**
   * The bytes received and not yet served: the first chunk, and any later ones. Requests usually
   * arrive whole, in one chunk: then no array is made for them (thousands of polls a second).
   */
  private firstChunk: Buffer | null = null;
  private moreChunks: Buffer[] | null = null;
  private buffered = 0;
  /** The head of the request whose body is still arriving. */
  private head: RequestHead | null = null;
  private current: LeanResponse | null = null;
  /** Held by the read pacer: no request is served until resume(). */
  private held = false;
  /** Its place in the read pacer's list of held connections (PausableReads). */
  readonly fifoSlots = [0];
  /** Paused because the client sent too much ahead of the answer. */
  private throttled = false;
  private serving = false;
  /** A request asked for the connection to close: whatever arrives after it is never read. */
  private lastRequestRead = false;
  /** When the connection went idle, or its current request began to arrive (for the timeouts). */
  since = performance.now();

  constructor(
    private readonly server: LeanHttp1,
    readonly socket: net.Socket,
  ) {}

  get destroyed(): boolean {
    return this.socket.destroyed;
  }

  get keepAliveLine(): string {
    return this.server.keepAliveLine;
  }

  /** The server is closing: this connection ends after its current answer. */
  get closing(): boolean {
    return this.server.closing;
  }

  start(first: Buffer): void {
    this.socket.on('data', (chunk: Buffer) => this.onData(chunk));
    this.socket.on('error', () => this.socket.destroy());
    this.socket.on('close', () => this.onClose());
    this.onData(first);
  }

  /**
   * Stops serving requests; the socket goes on delivering what arrives, which waits here.
   * (Pausing the socket itself stops nothing sooner: a net.Socket still reads, into its own
   * buffer, and gives it back on a later tick through its stream machinery.)
   */
  pause(): void {
    this.held = true;
  }

  resume(): void {
    this.held = false;
    if (this.throttled && !this.current) {
      this.throttled = false;
      this.socket.resume();
    }
    // On the next tick, as a resumed stream would: the read pacer releases many in one loop.
    if (this.buffered) process.nextTick(serveConnection, this);
  }

  /** Whether nothing is being answered or received (what server close and the keep-alive timeout end). */
  get idle(): boolean {
    return this.current === null && this.buffered === 0;
  }

  /** Bytes of a request have come, and the request is not being served yet. */
  get arriving(): boolean {
    return this.current === null && this.buffered > 0;
  }

  /** Ends the connection if its timeout has passed. */
  expire(now: number, opts: LeanServerOptions): void {
    // A held connection's request waits for the read pacer (at most MAX_HOLD_MS), not for its client.
    if (this.current || this.held || this.socket.destroyed) return;
    if (this.buffered === 0) {
      if (now - this.since > opts.keepAliveTimeoutMs) this.socket.destroy();
    } else if (now - this.since > (this.head ? opts.requestTimeoutMs : opts.headersTimeoutMs)) {
      // What Node's server answers a request that took too long to arrive.
      this.socket.end('HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n');
      this.socket.destroySoon();
    }
  }

  write(head: string, asciiHead: boolean, body: string | Buffer, close: boolean): void {
    const s = this.socket;
    if (s.destroyed) return;
    // One string, one system call; a Latin-1 head cannot travel in the body's UTF-8.
    if (typeof body === 'string' && asciiHead) s.write(head + body);
    else {
      s.cork();
      s.write(head, 'latin1');
      s.write(body);
      s.uncork();
    }
    if (close) s.destroySoon();
  }

  /** The current response was written: the next request may be read. */
  requestDone(close: boolean): void {
    this.current = null;
    this.since = performance.now();
    if (close) return;
    // A held connection's socket starts again when the read pacer lets it go (resume).
    if (this.throttled && !this.held) {
      this.throttled = false;
      this.socket.resume();
    }
    // A request sent ahead (pipelined) is served on a later turn, not inside this response's caller.
    if (this.buffered && !this.serving) setImmediate(serveConnection, this);
  }

  private onData(chunk: Buffer): void {
    if (this.lastRequestRead) return;
    if (this.buffered === 0 && this.current === null) this.since = performance.now();
    if (this.firstChunk === null) this.firstChunk = chunk;
    else (this.moreChunks ??= []).push(chunk);
    this.buffered += chunk.length;
    if (this.current || this.held) {
      if (this.buffered > MAX_AHEAD_BYTES) {
        this.throttled = true;
        this.socket.pause();
      }
      return;
    }
    this.serve();
  }

  serve(): void {
    if (this.serving) return;
    this.serving = true;
    try {
      while (this.buffered && !this.current && !this.held && !this.socket.destroyed) {
        if (!this.head) {
          const buf = this.take();
          const head = parseRequestHead(buf, MAX_LEAN_BODY_BYTES);
          if (head === 'incomplete') return;
          if (head === 'unsupported') return this.handOver();
          this.head = head;
        }
        const head = this.head;
        const total = head.headLength + head.bodyLength;
        if (this.buffered < total) return;
        const buf = this.take();
        const body = head.bodyLength ? buf.subarray(head.headLength, total) : EMPTY;
        // After a request that asked to close, nothing more is read: bytes sent behind it (a
        // pipelined request) are dropped unread, as Node's server drops them.
        const rest = buf.length > total && !head.close ? buf.subarray(total) : null;
        if (head.close) this.lastRequestRead = true;
        this.firstChunk = rest;
        this.moreChunks = null;
        this.buffered = rest ? rest.length : 0;
        this.head = null;
        const res = new LeanResponse(this, head.close);
        this.current = res;
        this.server.opts.onRequest(new LeanRequest(head.method, head.target, head.headers, body, this), res);
      }
    } finally {
      this.serving = false;
    }
  }

  /** The bytes received and not yet served, as one buffer. */
  private take(): Buffer {
    if (this.moreChunks !== null) {
      this.firstChunk = Buffer.concat([this.firstChunk!, ...this.moreChunks], this.buffered);
      this.moreChunks = null;
    }
    return this.firstChunk!;
  }

  private handOver(): void {
    const s = this.socket;
    s.removeAllListeners('data');
    s.removeAllListeners('error');
    s.removeAllListeners('close');
    s.pause();
    if (this.buffered) s.unshift(this.take());
    this.firstChunk = null;
    this.moreChunks = null;
    this.buffered = 0;
    this.server.forget(this);
    this.server.opts.handOver(s);
  }

  private onClose(): void {
    this.server.forget(this);
    const res = this.current;
    this.current = null;
    res?.close();
  }
}

/** The lean HTTP/1.1 side of the listener: its connections, their timeouts, and closing. */
export class LeanHttp1 {
  private readonly connections = new Set<LeanConnection>();
  private readonly sweepTimer: NodeJS.Timeout;
  readonly keepAliveLine: string;
  closing = false;

  constructor(readonly opts: LeanServerOptions) {
    this.keepAliveLine = `Keep-Alive: timeout=${Math.floor(opts.keepAliveTimeoutMs / 1000)}\r\n`;
    // One timer for every connection's timeouts, rather than one per socket (thousands are held).
    const every = Math.max(100, Math.min(5000, opts.headersTimeoutMs / 4));
    this.sweepTimer = setInterval(() => this.sweep(), every);
    this.sweepTimer.unref();
  }

  /** Serves the socket, whose first bytes were `first` (Node's server sets no delay on its sockets; so does this). */
  take(socket: net.Socket, first: Buffer): void {
    socket.setNoDelay(true);
    const c = new LeanConnection(this, socket);
    this.connections.add(c);
    c.start(first);
  }

  forget(c: LeanConnection): void {
    this.connections.delete(c);
  }

  /** Stops keeping connections open: idle ones end now, busy ones after their answer. */
  close(): void {
    this.closing = true;
    clearInterval(this.sweepTimer);
    for (const c of this.connections) if (c.idle) c.socket.destroy();
  }

  closeAll(): void {
    for (const c of this.connections) c.socket.destroy();
  }

  /** Connections with a request partly arrived, not yet handed to the handler (a graceful shutdown waits for them). */
  arrivingCount(): number {
    let n = 0;
    for (const c of this.connections) if (c.arriving) n++;
    return n;
  }

  private sweep(): void {
    const now = performance.now();
    for (const c of this.connections) c.expire(now, this.opts);
  }
}

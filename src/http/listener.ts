// One listening port for HTTP/1.1 and cleartext HTTP/2 (prior knowledge): each connection goes to the server its first bytes name.
import http from 'node:http';
import type http2 from 'node:http2';
import net from 'node:net';
import { createRequire } from 'node:module';
import type { HttpRequest, HttpResponse } from './types.js';
import { LeanHttp1 } from './h1-lean.js';

/** What every HTTP/2 connection opens with (RFC 9113, section 3.4). */
const H2_PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');

/**
 * Streams one HTTP/2 connection may have open at once. A held long-poll is a stream, so this is
 * how many queues one client connection (a proxy's, or an app's with several accounts) can poll.
 */
export const H2_MAX_STREAMS = 1000;

export interface Listener {
  server: net.Server;
  /** Ends every open connection of both protocols (held long-polls included). */
  closeAllConnections(): void;
  /** Connections accepted whose request has not reached the handler yet (or not even been sent): a graceful shutdown waits for them. */
  unanswered(): number;
}

export interface ListenerOptions {
  keepAliveTimeoutMs: number;
  /** How long a request's head may take to arrive (then 408), on every HTTP/1.1 path. */
  headersTimeoutMs: number;
  /** How long a whole request, body included, may take to arrive (then 408), on every HTTP/1.1 path. */
  requestTimeoutMs: number;
  /** false: every HTTP/1.1 connection goes to Node's server (PARLEY_LEAN_HTTP=0). */
  leanHttp: boolean;
}

/**
 * Why one port for both: a client (or a proxy) that speaks HTTP/2 holds thousands of long-polls
 * as streams of a few connections, where HTTP/1.1 needs a socket, and a file descriptor, per poll.
 * Old clients keep working unchanged. The first bytes decide, as HTTP/2 with prior knowledge
 * allows; there is no `Upgrade: h2c` dance.
 */
export function createListener(onRequest: (req: HttpRequest, res: HttpResponse) => void, opts: ListenerOptions): Listener {
  // Node checks both timeouts on a sweep every connectionsCheckingInterval: a quarter of the
  // shorter one, so a request is ended within 25 % of its limit (30 s, Node's default, at most).
  const requestTimeout = Math.max(opts.requestTimeoutMs, opts.headersTimeoutMs);
  const h1 = http.createServer(
    {
      keepAliveTimeout: opts.keepAliveTimeoutMs,
      headersTimeout: opts.headersTimeoutMs,
      requestTimeout,
      connectionsCheckingInterval: Math.max(50, Math.min(30_000, Math.floor(opts.headersTimeoutMs / 4))),
    },
    onRequest,
  );
  // Plain HTTP/1.1 requests are served on the socket itself (h1-lean.ts); Node's server takes a
  // connection at its first request of another kind, and keeps it.
  const lean = new LeanHttp1({
    keepAliveTimeoutMs: opts.keepAliveTimeoutMs,
    headersTimeoutMs: opts.headersTimeoutMs,
    requestTimeoutMs: requestTimeout,
    onRequest,
    handOver(socket) {
      h1.emit('connection', socket);
      socket.resume();
    },
  });
  const sessions = new Set<http2.ServerHttp2Session>();
  // Made at the first HTTP/2 connection: Node's HTTP/2 module and its server cost a server that
  // never sees one about 2 MB of memory (docs/performance.md, "HTTP").
  let h2: http2.Http2Server | null = null;
  const h2Server = (): http2.Http2Server => {
    if (h2) return h2;
    const { createServer } = createRequire(import.meta.url)('node:http2') as typeof http2;
    h2 = createServer({ settings: { maxConcurrentStreams: H2_MAX_STREAMS } }, onRequest);
    // An HTTP/2 connection silent for this long is closed, as an idle HTTP/1.1 one is (the caller
    // makes it longer than the heartbeat, which every held long-poll gets).
    h2.setTimeout(opts.keepAliveTimeoutMs);
    h2.on('session', (session) => {
      sessions.add(session);
      session.once('close', () => sessions.delete(session));
    });
    return h2;
  };
  // Connections whose first bytes have not come yet belong to neither server. The listeners below
  // are shared and all removed once a server takes the socket: a held long-poll's connection then
  // keeps nothing of ours (thousands are held at once).
  const undecided = new Set<net.Socket>();
  function forget(this: net.Socket) {
    undecided.delete(this);
  }
  function drop(this: net.Socket) {
    this.destroy();
  }
  const server = net.createServer((socket) => {
    undecided.add(socket);
    socket.once('close', forget);
    // Until a server owns the socket, its errors and its silence are ours to end. (A plain timer:
    // socket.setTimeout(0) would leave its Timer object on the socket for the connection's life.)
    socket.on('error', drop);
    const silence = setTimeout(() => socket.destroy(), opts.headersTimeoutMs).unref();
    let head: Buffer | null = null;
    const route = (chunk: Buffer) => {
      head = head ? Buffer.concat([head, chunk]) : chunk;
      const n = Math.min(head.length, H2_PREFACE.length);
      const isH2 = head.subarray(0, n).equals(H2_PREFACE.subarray(0, n));
      // A few bytes that begin the preface could still begin "PUT" or "POST": wait for the rest.
      if (isH2 && n < H2_PREFACE.length) return;
      socket.off('data', route);
      socket.off('error', drop);
      socket.off('close', forget);
      clearTimeout(silence);
      undecided.delete(socket);
      const first = head!;
      head = null;
      if (isH2) {
        // The HTTP/2 server reads what was already received from the socket's buffer, then from the socket.
        socket.pause();
        socket.unshift(first);
        h2Server().emit('connection', socket);
      } else if (opts.leanHttp) {
        lean.take(socket, first);
      } else {
        socket.pause();
        socket.unshift(first);
        h1.emit('connection', socket);
        socket.resume();
      }
    };
    socket.on('data', route);
  });
  // The HTTP/1.1 server never listens itself; this starts its tracking of connections (header
  // timeouts, closeAllConnections), which Node begins on 'listening'.
  server.once('listening', () => h1.emit('listening'));
  server.once('close', () => {
    lean.close();
    h1.close();
    h2?.close();
  });
  return {
    server,
    unanswered() {
      return undecided.size + lean.arrivingCount();
    },
    closeAllConnections() {
      lean.closeAll();
      h1.closeAllConnections();
      for (const s of sessions) s.destroy();
      for (const socket of undecided) socket.destroy();
    },
  };
}

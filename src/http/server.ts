// Turns HTTP requests (HTTP/1.1 or HTTP/2) into view calls: realm, auth, parameters, envelope and error handling.
import { ServerResponse } from 'node:http';
import { LeanResponse } from './h1-lean.js';
import type { AppContext } from '../context.js';
import { ApiError } from '../core/api-error.js';
import { parseRequestParams } from './body.js';
import { Params } from '../core/params.js';
import { authenticate, resolveRealm } from './auth.js';
import { memoByString } from './string-memo.js';
import { NON_API_ROUTE, type Router } from './router.js';
import { LATER, RawResponse, type ApiRequest, type CloseWatcher, type HttpRequest, type HttpResponse, type Reply, type ViewResult } from './types.js';
import type { Socket } from 'node:net';
import type { PausableReads } from '../events/read-pacer.js';
import type { QueueRegistry } from '../events/registry.js';
import type { Realm, User } from '../store/schema.js';
import type { UploadedFile } from './body.js';

const API_PREFIX = '/api/v1/';
/** Uploaded files are served outside /api/v1 too, at the URLs messages link (as the original does). */
const UPLOADS_PREFIX = '/user_uploads/';
/** Files served as they are, outside the API (the emoji name table clients download). */
const STATIC_PREFIX = '/static/';
/** Request paths that `new URL` would leave as they are: no dot segments, nothing it would percent-encode. */
const PLAIN_PATH = /^\/api\/v1\/[A-Za-z0-9_\-@+.~:,;=!$'()*&%/]*$/;
const DOT_SEGMENT = /\/(?:\.|%2e)/i;

/**
 * Splits a request target into path and query. Common API paths skip `new URL` (measurable on
 * long-polls); anything unusual goes through it, so the result is always what URL would give.
 */
export function splitTarget(target: string): { pathname: string; query: string } {
  const q = target.indexOf('?');
  const path = q < 0 ? target : target.slice(0, q);
  if (PLAIN_PATH.test(path) && !DOT_SEGMENT.test(path) && !target.includes('#')) return { pathname: path, query: q < 0 ? '' : target.slice(q + 1) };
  const url = new URL(target, 'http://x');
  return { pathname: url.pathname, query: url.search.slice(1) };
}

/** What a view receives. */
class Request implements ApiRequest {
  constructor(
    public app: AppContext,
    public realm: Realm,
    public user: User | null,
    public params: Params,
    public pathParams: Record<string, string>,
    public files: UploadedFile[],
    public clientName: string,
    public http: HttpRequest,
    private readonly res: HttpResponse,
    private readonly onUnexpected: (err: unknown) => void,
  ) {}

  replyLater(): Reply {
    return new LaterReply(this.res, this.params.ignored(), this.app.queues, this.onUnexpected);
  }
}

/**
 * An answer sent after the view returned. It keeps the response alone, not the request, its
 * parameters and its head: a held long-poll is one of these, and thousands are held at once.
 */
class LaterReply implements Reply {
  /** holdNextRequest was called: once answered, the connection's next request is held back. */
  private holdNext = false;

  constructor(
    private readonly res: HttpResponse,
    readonly ignored: readonly string[],
    private readonly queues: QueueRegistry,
    private readonly onUnexpected: (err: unknown) => void,
  ) {}

  get aborted(): boolean {
    return isClosed(this.res);
  }

  get pacedReads(): boolean {
    return !isHttp2(this.res);
  }

  onClose(watcher: CloseWatcher): void {
    if (this.res instanceof LeanResponse) this.res.watchClose(watcher);
    else this.res.on('close', () => watcher.closed());
  }

  holdNextRequest(): void {
    this.holdNext = true;
  }

  send(result: ViewResult): void {
    // Taken before the answer goes out (node:http's response lets go of its socket when it finishes), held after it.
    const conn = this.heldConnection();
    respond(this.res, this.ignored, result, this.onUnexpected);
    if (conn) this.queues.holdReads(conn);
  }

  fail(err: unknown): void {
    const conn = this.heldConnection();
    fail(this.res, err, this.onUnexpected);
    if (conn) this.queues.holdReads(conn);
  }

  /**
   * The connection whose next request is to be held after this answer: only when asked to and
   * other answers are still going out (usually nothing else is being answered). The answer is
   * written in this same turn (a lean response at once), before its client can ask again.
   */
  private heldConnection(): PausableReads | null {
    if (!this.holdNext || !this.queues.answering) return null;
    const res = this.res;
    if (res instanceof LeanResponse) return res.connection;
    if (res instanceof ServerResponse && res.socket) return socketReads(res.socket);
    return null;
  }
}

/** node:http's sockets as the read pacer holds them (a wrapper per socket; the lean server's connections are their own). */
const wrappedSockets = new WeakMap<Socket, PausableReads>();

function socketReads(socket: Socket): PausableReads {
  let reads = wrappedSockets.get(socket);
  if (!reads) {
    reads = {
      fifoSlots: [0],
      pause: () => socket.pause(),
      resume: () => socket.resume(),
      get destroyed() {
        return socket.destroyed;
      },
    };
    wrappedSockets.set(socket, reads);
  }
  return reads;
}

function isHttp2(res: HttpResponse): res is Exclude<HttpResponse, LeanResponse | ServerResponse> {
  return !(res instanceof LeanResponse || res instanceof ServerResponse);
}

/** Whether the response's connection (HTTP/1.1) or stream (HTTP/2) has closed. */
function isClosed(res: HttpResponse): boolean {
  return isHttp2(res) ? res.stream.closed : res.closed;
}

function isDestroyed(res: HttpResponse): boolean {
  return isHttp2(res) ? res.stream.destroyed : res.destroyed;
}

function send(res: HttpResponse, status: number, body: string | Buffer, headers: Record<string, string>): void {
  if (res.headersSent || isDestroyed(res)) return;
  if (res instanceof LeanResponse) {
    res.send(status, headers, body);
    return;
  }
  const head = { 'content-length': String(Buffer.byteLength(body)), ...headers };
  // The two response classes have the same methods but signatures TypeScript cannot unite.
  if (res instanceof ServerResponse) res.writeHead(status, head).end(body);
  else res.writeHead(status, head).end(body);
}

/** Shared (never changed): the lean server puts its header lines together once per headers object. */
const JSON_TYPE: Record<string, string> = Object.freeze({ 'content-type': 'application/json' });

function sendJson(res: HttpResponse, status: number, payload: unknown): void {
  send(res, status, JSON.stringify(payload), JSON_TYPE);
}

function sendError(res: HttpResponse, err: ApiError): void {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (err.status === 401) headers['www-authenticate'] = 'Basic realm="parley"';
  send(res, err.status, JSON.stringify(err), headers);
}

/** A client name like the original's: the product token of the User-Agent, else "API". */
function clientNameOf(req: HttpRequest): string {
  const ua = req.headers['user-agent'];
  return ua ? clientNameOfAgent(ua) : 'API';
}

const clientNameOfAgent = memoByString((ua) => {
  const m = /^([^/\s]+)/.exec(ua);
  return m ? m[1].slice(0, 30) : 'API';
});

/** PARLEY_LOG_REQUESTS=1: one line per request on stderr, written when the response finishes. */
function logWhenDone(req: HttpRequest, res: HttpResponse): void {
  const start = performance.now();
  res.once('finish', () => {
    const path = (req.url ?? '/').split('?')[0];
    process.stderr.write(`${new Date().toISOString()} ${req.method} ${path} ${res.statusCode} ${(performance.now() - start).toFixed(1)}ms\n`);
  });
}

/** Writes a view's result: a raw response as it is, else the success envelope (exported for tests). */
export function respond(res: HttpResponse, ignored: readonly string[], result: ViewResult, onUnexpected: (err: unknown) => void): void {
  try {
    writeResult(res, ignored, result);
  } catch (err) {
    // A result that cannot be written (it does not serialize): a 500, as an exception in the view would be.
    fail(res, err, onUnexpected);
  }
}

function writeResult(res: HttpResponse, ignored: readonly string[], result: ViewResult): void {
  if (result instanceof RawResponse) {
    send(res, result.status, result.body, result.headers);
    return;
  }
  const envelope: Record<string, unknown> = { result: 'success', msg: '', ...result };
  if (ignored.length) envelope.ignored_parameters_unsupported = ignored;
  sendJson(res, 200, envelope);
}

/** An API error as its envelope; anything else is logged and answered with a plain 500. */
function fail(res: HttpResponse, err: unknown, onUnexpected: (err: unknown) => void): void {
  if (err instanceof ApiError) {
    sendError(res, err);
    return;
  }
  onUnexpected(err);
  sendJson(res, 500, { result: 'error', msg: 'Internal server error', code: 'BAD_REQUEST' });
}

export function createRequestHandler(app: AppContext, router: Router, onUnexpected: (err: unknown) => void) {
  return async (req: HttpRequest, res: HttpResponse): Promise<void> => {
    if (app.config.logRequests) logWhenDone(req, res);
    try {
      const { pathname, query } = splitTarget(req.url ?? '/');
      const isApi = pathname.startsWith(API_PREFIX);
      if (!isApi && !pathname.startsWith(UPLOADS_PREFIX) && !pathname.startsWith(STATIC_PREFIX)) {
        req.resume();
        throw new ApiError('Not Found', 'BAD_REQUEST', 404);
      }
      let path = isApi ? pathname.slice(API_PREFIX.length) : NON_API_ROUTE + pathname;
      if (path.endsWith('/')) path = path.replace(/\/+$/, '');
      const method = (req.method ?? 'GET').toUpperCase();
      const match = router.match(method, path);
      if (match.kind === 'none') {
        req.resume();
        throw new ApiError('Not Found', 'BAD_REQUEST', 404);
      }
      if (match.kind === 'method') {
        req.resume();
        throw new ApiError('Method Not Allowed', 'BAD_REQUEST', 405, { allowed_methods: match.allowed });
      }
      // Each step is synchronous on its common path (a GET, a cached realm and user): no promise,
      // no microtask turn, on every long-poll.
      const parsed = parseRequestParams(req, query);
      const { params, files } = parsed instanceof Promise ? await parsed : parsed;
      const realmOrPending = resolveRealm(app, req);
      const realm = realmOrPending instanceof Promise ? await realmOrPending : realmOrPending;
      const mode = match.handler.auth ?? 'user';
      const userOrPending = mode === 'none' ? null : authenticate(app, realm, req);
      const user = userOrPending instanceof Promise ? await userOrPending : userOrPending;
      if (mode === 'user' && !user) throw new ApiError('Not logged in: API authentication or user session required', 'UNAUTHORIZED', 401);
      const p = new Params({ raw: params, used: new Set() });
      const answer = match.handler(new Request(app, realm, user, p, match.pathParams, files, clientNameOf(req), req, res, onUnexpected));
      // A view answering later (a held long-poll) keeps its reply, and nothing of this request.
      if (answer === LATER) return;
      return answer.then(
        (result) => respond(res, p.ignored(), result, onUnexpected),
        (err: unknown) => fail(res, err, onUnexpected),
      );
    } catch (err) {
      fail(res, err, onUnexpected);
    }
  };
}

// Turns HTTP requests (HTTP/1.1 or HTTP/2) into view calls: realm, auth, parameters, envelope and error handling.
import { ServerResponse } from 'node:http';
import { LeanRequest, LeanResponse } from './h1-lean.js';
import { RateLimitError } from '../lib/request-rate-limits.js';
import type { AppContext } from '../context.js';
import { ApiError } from '../core/api-error.js';
import { discardFiles, parseRequestParams } from './body.js';
import { RouteBodyLimits } from './body-limits.js';
import { Params } from '../core/params.js';
import { authenticate, resolveRealm } from './auth.js';
import { memoByString } from './string-memo.js';
import { compressJson, noteAcceptedEncoding } from './compression.js';
import { hasJsonText, serializeWithJsonText } from '../core/json-text.js';
import { NON_API_ROUTE, type Router } from './router.js';
import { LATER, RawResponse, type ApiRequest, type CloseWatcher, type HttpRequest, type HttpResponse, type Reply, type ViewResult } from './types.js';
import type { Socket } from 'node:net';
import type { PausableReads } from '../events/read-pacer.js';
import type { QueueRegistry } from '../events/registry.js';
import type { Realm, User } from '../store/schema.js';
import type { UploadedFile } from './body.js';
import { RequestObserver, newRequestId, recordOf, type RequestRecord } from './request-log.js';
import { OPS_PATHS, serveOps } from './ops-endpoints.js';
import type { Metrics } from '../ops/metrics.js';

/** Called with an error no view turned into an API error (answered 500), and the request ID its answer carries. */
export type UnexpectedHandler = (err: unknown, requestId: string) => void;

const API_PREFIX = '/api/v1/';
/** Uploaded files are served outside /api/v1 too, at the URLs messages link (as the original does). */
const UPLOADS_PREFIX = '/user_uploads/';
/** Links to join a call on a hosted service (BigBlueButton), opened by a browser like the original's. */
const CALLS_PREFIX = '/calls/';
/** Files served as they are, outside the API (the emoji name table clients download). */
const STATIC_PREFIX = '/static/';
/** The image proxy and the preview redirect the rendered messages point at (as the original's). */
const PROXY_PREFIX = '/external_content/';
const THUMBNAIL_PATH = '/thumbnail';
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
    private readonly onUnexpected: UnexpectedHandler,
  ) {}

  jsonBody?: string;

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
    private readonly onUnexpected: UnexpectedHandler,
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

/** Every answer goes out here: it is also where the request's log line and latency are taken. */
function send(res: HttpResponse, status: number, body: string | Buffer, headers: Record<string, string>): void {
  if (res.headersSent || isDestroyed(res)) return;
  if (res instanceof LeanResponse) {
    res.send(status, headers, body);
    (res.record as RequestRecord | null)?.finished(status);
    return;
  }
  const head: Record<string, string> = { 'content-length': String(Buffer.byteLength(body)), ...headers };
  // The two response classes have the same methods but signatures TypeScript cannot unite.
  if (res instanceof ServerResponse) {
    // Answered before its body was read (refused unauthenticated, or too large): the connection
    // closes after the answer, so that the rest is never read.
    if (res.req && !res.req.complete) head.connection = 'close';
    res.writeHead(status, head).end(body);
  } else {
    // The HTTP/2 equivalent: once answered, the stream is reset with NO_ERROR (0), which tells the
    // client to stop sending the body (RFC 9113, section 8.1).
    if (res.req.complete) res.writeHead(status, head).end(body);
    else res.writeHead(status, head).end(body, () => res.stream.close(0));
  }
  recordOf(res)?.finished(status);
}

/** Shared (never changed): the lean server puts its header lines together once per headers object. */
const JSON_TYPE: Record<string, string> = Object.freeze({ 'content-type': 'application/json' });

function sendJson(res: HttpResponse, status: number, payload: unknown): void {
  sendJsonText(res, status, JSON.stringify(payload));
}

/** JSON already written: text, or UTF-8 bytes (core/json-text.ts). */
function sendJsonText(res: HttpResponse, status: number, json: string | Buffer): void {
  // Compressed when the client accepts it and the answer is large (src/http/compression.ts).
  const compressed = compressJson(res, json);
  if (compressed) send(res, status, compressed.body, compressed.headers);
  else send(res, status, json, JSON_TYPE);
}

/** The client's address: the socket's peer (behind a proxy, the proxy's). */
export function remoteAddressOf(req: HttpRequest): string {
  return (req instanceof LeanRequest ? req.remoteAddress : req.socket?.remoteAddress) ?? '';
}

/** Headers this response carries besides the view's (the rate-limit ones). */
function setHeaders(res: HttpResponse, headers: Record<string, string>): void {
  for (const name in headers) res.setHeader(name, headers[name]);
}

function sendError(res: HttpResponse, err: ApiError): void {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (err.status === 401) headers['www-authenticate'] = 'Basic realm="parley"';
  if (err instanceof RateLimitError) Object.assign(headers, err.headers);
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

/** Writes a view's result: a raw response as it is, else the success envelope (exported for tests). */
export function respond(res: HttpResponse, ignored: readonly string[], result: ViewResult, onUnexpected: UnexpectedHandler): void {
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
  // Register's state carries fields already written as JSON text (core/json-text.ts).
  if (hasJsonText(result)) sendJsonText(res, 200, serializeWithJsonText(envelope));
  else sendJson(res, 200, envelope);
}

/** An API error as its envelope; anything else is logged and answered with a 500 carrying the request ID. */
function fail(res: HttpResponse, err: unknown, onUnexpected: UnexpectedHandler): void {
  if (err instanceof ApiError) {
    sendError(res, err);
    return;
  }
  // The client was given the request's id (X-Request-Id) and finds it in the body too; the log line carries it.
  const requestId = recordOf(res)?.id ?? newRequestId();
  onUnexpected(err, requestId);
  sendJson(res, 500, { result: 'error', msg: 'Internal server error', code: 'INTERNAL_SERVER_ERROR', request_id: requestId });
}

/** Route labels (log lines, metrics) by route pattern: the path as a client writes it, with its {parameters}. */
const routeLabel = memoByString((pattern) => (pattern.startsWith(NON_API_ROUTE) ? pattern.slice(NON_API_ROUTE.length) : API_PREFIX + pattern).replace(/\{(\w+):\w+\}/g, '{$1}'));

export interface HandlerOptions {
  /** /metrics, when on (PARLEY_METRICS): its request timings are taken for every request. */
  metrics: Metrics | null;
}

export function createRequestHandler(app: AppContext, router: Router, opts: HandlerOptions) {
  const observer = new RequestObserver(app.log, app.config.logRequests, opts.metrics?.timings ?? null);
  const ops = { app, metrics: opts.metrics };
  const bodyLimits = new RouteBodyLimits(app.config);
  // An unexpected error is logged with the id its client was given (X-Request-Id), to find one from the other.
  const onUnexpected: UnexpectedHandler = (err, requestId) => app.log.error({ req_id: requestId, err }, 'unexpected error');
  return async (req: HttpRequest, res: HttpResponse): Promise<void> => {
    const record = observer.begin(req, res);
    noteAcceptedEncoding(req, res);
    try {
      const { pathname, query } = splitTarget(req.url ?? '/');
      const isApi = pathname.startsWith(API_PREFIX);
      if (!isApi && !pathname.startsWith(UPLOADS_PREFIX) && !pathname.startsWith(STATIC_PREFIX) && !pathname.startsWith(CALLS_PREFIX) && !pathname.startsWith(PROXY_PREFIX) && pathname !== THUMBNAIL_PATH) {
        req.resume();
        if (OPS_PATHS.has(pathname)) {
          record.route = pathname;
          respond(res, [], await serveOps(ops, pathname, req, res), onUnexpected);
          return;
        }
        throw new ApiError('Not Found', 'BAD_REQUEST', 404);
      }
      let path = isApi ? pathname.slice(API_PREFIX.length) : NON_API_ROUTE + pathname;
      if (path.endsWith('/')) path = path.replace(/\/+$/, '');
      const method = (req.method ?? 'GET').toUpperCase();
      const match = router.match(method, path);
      if (match.kind === 'found') record.route = routeLabel(match.pattern);
      if (match.kind === 'none') {
        req.resume();
        throw new ApiError('Not Found', 'BAD_REQUEST', 404);
      }
      if (match.kind === 'method') {
        req.resume();
        throw new ApiError('Method Not Allowed', 'BAD_REQUEST', 405, { allowed_methods: match.allowed });
      }
      // Each step is synchronous on its common path (a GET, a cached realm and user): no promise,
      // no microtask turn, on every long-poll. The caller is known before any of the body is read:
      // an anonymous request to a route that needs a user is refused unread.
      const realmOrPending = resolveRealm(app, req);
      const realm = realmOrPending instanceof Promise ? await realmOrPending : realmOrPending;
      const mode = match.handler.auth ?? 'user';
      let user: User | null;
      try {
        const userOrPending = mode === 'none' ? null : authenticate(app, realm, req);
        user = userOrPending instanceof Promise ? await userOrPending : userOrPending;
        if (mode === 'user' && !user) throw new ApiError('Not logged in: API authentication or user session required', 'UNAUTHORIZED', 401);
      } catch (err) {
        // Refused credentials count against the client's address, as unauthenticated requests: guessing keys is limited too.
        const limited = err instanceof ApiError && err.status === 401 ? app.rateLimits.check('api', null, remoteAddressOf(req)) : undefined;
        if (limited) setHeaders(res, (await limited).headers);
        throw err;
      }
      if (user) record.userId = user.id;
      // Counted before the body is read too: a client over its limit sends nothing more that is read.
      const rateClass = match.handler.rateLimit ?? 'api';
      const limited = app.rateLimits.check(rateClass, user ? user.id : null, user && rateClass !== 'authentication' ? '' : remoteAddressOf(req));
      if (limited) setHeaders(res, (await limited).headers);
      const parsed = parseRequestParams(req, query, bodyLimits.of(match.handler));
      const { params, files, jsonBody } = parsed instanceof Promise ? await parsed : parsed;
      const p = new Params({ raw: params, used: new Set() });
      const request = new Request(app, realm, user, p, match.pathParams, files, clientNameOf(req), req, res, onUnexpected);
      if (jsonBody !== undefined) request.jsonBody = jsonBody;
      const answer = match.handler(request);
      // A view answering later (a held long-poll) keeps its reply, and nothing of this request.
      if (answer === LATER) return;
      const done = answer.then(
        (result) => respond(res, p.ignored(), result, onUnexpected),
        (err: unknown) => fail(res, err, onUnexpected),
      );
      if (files.length) void done.finally(() => discardFiles(files));
      return done;
    } catch (err) {
      fail(res, err, onUnexpected);
    }
  };
}

// Each request's id (X-Request-Id, echoed), route pattern and user; its one log line and latency observation when the answer is written.
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { LeanResponse } from './h1-lean.js';
import type { HttpRequest, HttpResponse } from './types.js';
import type { Logger } from '../ops/logger.js';
import type { RequestTimings } from '../ops/request-timings.js';

/** An incoming X-Request-Id is kept when it is this: short, one token, nothing a header or a log line would need escaped. */
const SANE_ID = /^[A-Za-z0-9._:+/=@-]{1,128}$/;
/** Generated ids: a per-process random prefix and a counter (unique across nodes, and far cheaper than a UUID each). */
const ID_PREFIX = randomBytes(6).toString('base64url') + '-';
let idSeq = 0;

/** The route label of requests no route matched (kept to one label: scanners must not grow the metrics). */
export const UNMATCHED = 'unmatched';
const METHODS = new Set(['GET', 'POST', 'PATCH', 'PUT', 'DELETE', 'HEAD', 'OPTIONS']);

export function requestIdOf(req: HttpRequest): string {
  const given = req.headers['x-request-id'];
  if (typeof given === 'string' && SANE_ID.test(given)) return given;
  return newRequestId();
}

/** A fresh id, for a request that brought none (or an answer made outside a request's record). */
export function newRequestId(): string {
  return ID_PREFIX + (++idSeq).toString(36);
}

/**
 * What is known about a request while it is served. One small object per request, kept on its
 * response; a held long-poll keeps it until answered (the line reports the time it was held).
 */
export class RequestRecord {
  /** The route pattern as registered (never the raw path, which carries ids and names). */
  route = UNMATCHED;
  userId: number | null = null;

  constructor(
    readonly id: string,
    readonly method: string,
    readonly start: number,
    private readonly observer: RequestObserver,
  ) {}

  /** The answer with this status was written. */
  finished(status: number): void {
    this.observer.finished(this, status);
  }
}

/** Node's response objects carry the record under this key; the lean one has a field for it. */
const RECORD = Symbol('parley.request');
type Tagged = { [RECORD]?: RequestRecord };

export function recordOf(res: HttpResponse): RequestRecord | undefined {
  if (res instanceof LeanResponse) return (res.record as RequestRecord | null) ?? undefined;
  return (res as Tagged)[RECORD];
}

/** Starts each request's record and reports it when its answer is written: a log line, a latency observation. */
export class RequestObserver {
  /** Null when request lines are off, or below the logger's level: nothing is built for them then. */
  private readonly log: Logger | null;

  constructor(
    log: Logger,
    logRequests: boolean,
    private readonly timings: RequestTimings | null,
  ) {
    this.log = logRequests && log.isLevelEnabled('info') ? log : null;
  }

  /** Gives the request its id, echoed in the X-Request-Id response header by all three servers. */
  begin(req: HttpRequest, res: HttpResponse): RequestRecord {
    const raw = req.method ?? 'GET';
    const record = new RequestRecord(requestIdOf(req), METHODS.has(raw) ? raw : 'OTHER', performance.now(), this);
    if (res instanceof LeanResponse) {
      res.requestId = record.id;
      res.record = record;
    } else {
      res.setHeader('x-request-id', record.id);
      (res as Tagged)[RECORD] = record;
    }
    return record;
  }

  finished(r: RequestRecord, status: number): void {
    const ms = performance.now() - r.start;
    this.timings?.observe(r.route, r.method, status, ms / 1000);
    // Only these fields: no header, query string or body ever reaches a line (they carry keys and passwords).
    this.log?.info({ req_id: r.id, method: r.method, route: r.route, status, ms: Math.round(ms * 100) / 100, user_id: r.userId }, 'request');
  }
}

// The operator endpoints outside the API: GET /healthz (process up), GET /readyz (database, migrations, bus) and GET /metrics (Prometheus).
import { createHash, timingSafeEqual } from 'node:crypto';
import { sql } from 'kysely';
import { LeanResponse } from './h1-lean.js';
import { ApiError } from './errors.js';
import { RawResponse, type HttpRequest, type HttpResponse } from './types.js';
import type { AppContext } from '../context.js';
import type { Metrics } from '../ops/metrics.js';

export const OPS_PATHS: ReadonlySet<string> = new Set(['/healthz', '/readyz', '/metrics']);

/** How long a readiness check may take before it counts as failed (a probe must not hang). */
const CHECK_TIMEOUT_MS = 2000;
const JSON_TYPE = { 'content-type': 'application/json', 'cache-control': 'no-store' };

export interface OpsContext {
  app: AppContext;
  /** Null when /metrics is off (PARLEY_METRICS unset): it answers 404 then, as an unknown path. */
  metrics: Metrics | null;
}

/** Answers one of OPS_PATHS. */
export async function serveOps(ctx: OpsContext, path: string, req: HttpRequest, res: HttpResponse): Promise<RawResponse> {
  if (path === '/metrics' && !ctx.metrics) throw new ApiError('Not Found', 'BAD_REQUEST', 404);
  if (req.method !== 'GET') throw new ApiError('Method Not Allowed', 'BAD_REQUEST', 405, { allowed_methods: ['GET'] });
  if (path === '/healthz') return new RawResponse(200, JSON.stringify({ status: 'ok' }), JSON_TYPE);
  if (path === '/readyz') return readiness(ctx.app);
  return metricsAnswer(ctx.app, ctx.metrics!, req, res);
}

type CheckResult = 'ok' | string;

/** Each check's result ("ok" or why not); 503 naming the failed ones unless all pass. */
async function readiness(app: AppContext): Promise<RawResponse> {
  const checks: Record<string, CheckResult> = {};
  const run = async (name: string, check: () => Promise<CheckResult>) => {
    try {
      checks[name] = await withTimeout(check());
    } catch (err) {
      // The reason goes to the log; the probe's answer names the check only (it is unauthenticated).
      app.log.warn({ check: name, err }, 'readiness check failed');
      checks[name] = 'failed';
    }
  };
  await run('database', async () => {
    await sql`SELECT 1`.execute(app.store.db);
    return 'ok';
  });
  await run('migrations', async () => {
    const pending = await app.store.pendingMigrations();
    return pending.length ? `pending: ${pending.join(', ')}` : 'ok';
  });
  if (app.config.busUrl && app.config.busUrl !== 'local') {
    await run('bus', async () => {
      await app.bus.ping();
      return 'ok';
    });
  }
  const failed = Object.keys(checks).filter((k) => checks[k] !== 'ok');
  const body = failed.length ? { status: 'unavailable', failed, checks } : { status: 'ready', checks };
  return new RawResponse(failed.length ? 503 : 200, JSON.stringify(body), JSON_TYPE);
}

function withTimeout<T>(p: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer in ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

/**
 * Loopback callers read the metrics freely; others need the bearer token (PARLEY_METRICS_TOKEN).
 * A request that came through a proxy (Forwarded or X-Forwarded-For) is not a loopback caller even
 * when the proxy runs on this machine: otherwise a public proxy would open /metrics to everyone.
 */
async function metricsAnswer(app: AppContext, metrics: Metrics, req: HttpRequest, res: HttpResponse): Promise<RawResponse> {
  const proxied = req.headers.forwarded !== undefined || req.headers['x-forwarded-for'] !== undefined;
  if (proxied || !isLoopback(remoteAddressOf(req, res))) {
    const token = app.config.metricsToken;
    if (!token) throw new ApiError('/metrics answers loopback callers only (set PARLEY_METRICS_TOKEN to allow others)', 'BAD_REQUEST', 403);
    if (!bearerMatches(req.headers.authorization, token)) {
      return new RawResponse(401, JSON.stringify(new ApiError('A valid bearer token is required', 'UNAUTHORIZED', 401)), { 'content-type': 'application/json', 'www-authenticate': 'Bearer' });
    }
  }
  return new RawResponse(200, await metrics.text(), { 'content-type': metrics.contentType, 'cache-control': 'no-store' });
}

function bearerMatches(header: string | string[] | undefined, token: string): boolean {
  if (typeof header !== 'string') return false;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!m) return false;
  // Compared as digests: equal lengths, and no early exit that would time the token out.
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(m[1]), digest(token));
}

function remoteAddressOf(req: HttpRequest, res: HttpResponse): string | undefined {
  if (res instanceof LeanResponse) return res.connection.socket.remoteAddress;
  return 'socket' in req ? req.socket?.remoteAddress : undefined;
}

function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  return address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.');
}

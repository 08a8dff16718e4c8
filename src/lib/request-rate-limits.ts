// Request rate limits like the original's: per user for the API, per IP for unauthenticated requests, stricter for authentication; in memory, on Redis or on PostgreSQL.
import { createHash } from 'node:crypto';
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { Redis } from 'ioredis';
import pg from 'pg';
import { ApiError } from '../core/api-error.js';

/** `points` requests per `secs` seconds; null: no limit. */
export type RateRule = { points: number; secs: number } | null;

export interface RateLimitConfig {
  /** "memory" (this process), "redis://host:port" or "database" (the PostgreSQL database the nodes share). */
  store: string;
  /** Authenticated API requests, per user. */
  apiPerUser: RateRule;
  /** Requests without credentials, per client IP address. */
  unauthenticatedPerIp: RateRule;
  /** Requests to the login endpoints (fetch_api_key, jwt/fetch_api_key), per client IP address. */
  authenticationPerIp: RateRule;
}

/** Which limit a route's requests count against. */
export type RateClass = 'api' | 'authentication' | 'none';

/** Parses "points/seconds" ("200/60"); "0" or "off" means no limit. */
export function parseRateRule(text: string, name: string): RateRule {
  const t = text.trim();
  if (t === '0' || t === 'off') return null;
  const m = /^(\d+)\/(\d+)$/.exec(t);
  if (!m || Number(m[1]) < 1 || Number(m[2]) < 1) throw new Error(`${name} must be "requests/seconds" (e.g. 200/60) or "off", got "${text}"`);
  return { points: Number(m[1]), secs: Number(m[2]) };
}

/** Thrown when a limit is used up: 429 RATE_LIMIT_HIT with retry-after, as the original answers. */
export class RateLimitError extends ApiError {
  constructor(
    retryAfterSecs: number,
    readonly headers: Record<string, string>,
  ) {
    super('API usage exceeded rate limit', 'RATE_LIMIT_HIT', 429, { 'retry-after': retryAfterSecs });
  }
}

/** What a checked request learns: the headers its answer carries. */
export interface RateState {
  headers: Record<string, string>;
}

interface Limiter {
  rule: { points: number; secs: number };
  limiter: RateLimiterAbstract;
}

/** The X-RateLimit-* headers of a request that consumed `res` (Reset: the UNIX time the window ends, as the original). */
function headersOf(rule: { points: number }, res: RateLimiterRes): Record<string, string> {
  return {
    'x-ratelimit-limit': String(rule.points),
    'x-ratelimit-remaining': String(Math.max(0, res.remainingPoints)),
    'x-ratelimit-reset': String(Math.ceil((Date.now() + res.msBeforeNext) / 1000)),
  };
}

/** The limiters of one server, and the clients their shared store needs. */
export class RequestRateLimits {
  private constructor(
    private readonly api: Limiter | null,
    private readonly unauthenticated: Limiter | null,
    private readonly authentication: Limiter | null,
    private readonly closeStore: () => Promise<void>,
  ) {}

  /**
   * Opens the limiters on the configured store. `deployment` names the deployment (its database):
   * nodes of one deployment share their counts, other deployments on the same Redis do not.
   */
  static async open(config: RateLimitConfig, databaseUrl: string, deployment: string): Promise<RequestRateLimits> {
    const prefix = `parley-rl-${createHash('sha256').update(deployment).digest('hex').slice(0, 12)}`;
    const rules: [string, RateRule][] = [
      ['api', config.apiPerUser],
      ['anon', config.unauthenticatedPerIp],
      ['auth', config.authenticationPerIp],
    ];
    // While the shared store is unreachable, each node counts on its own rather than not at all.
    const insurance = (name: string, rule: { points: number; secs: number }) => new RateLimiterMemory({ keyPrefix: `${prefix}-${name}`, points: rule.points, duration: rule.secs });
    let make: (name: string, rule: { points: number; secs: number }) => Promise<RateLimiterAbstract>;
    let closeStore = async () => {};
    if (config.store === 'memory') {
      make = async (name, rule) => new RateLimiterMemory({ keyPrefix: `${prefix}-${name}`, points: rule.points, duration: rule.secs });
    } else if (config.store.startsWith('redis://') || config.store.startsWith('rediss://')) {
      const redis = new Redis(config.store, { enableOfflineQueue: true, maxRetriesPerRequest: 2, lazyConnect: true });
      await redis.connect();
      closeStore = async () => void (await redis.quit());
      make = async (name, rule) =>
        new RateLimiterRedis({ storeClient: redis, keyPrefix: `${prefix}-${name}`, points: rule.points, duration: rule.secs, insuranceLimiter: insurance(name, rule) });
    } else if (config.store === 'database') {
      if (!databaseUrl.startsWith('postgres')) throw new Error('PARLEY_RATE_LIMIT_STORE=database needs PostgreSQL (PARLEY_DATABASE_URL); use "memory" for one node');
      const pool = new pg.Pool({ connectionString: databaseUrl, max: 4 });
      closeStore = () => pool.end();
      make = (name, rule) =>
        new Promise((resolve, reject) => {
          const limiter: RateLimiterPostgres = new RateLimiterPostgres(
            {
              storeClient: pool,
              tableName: 'parley_rate_limits',
              keyPrefix: `${prefix}-${name}`,
              points: rule.points,
              duration: rule.secs,
              clearExpiredByTimeout: true,
              insuranceLimiter: insurance(name, rule),
            },
            (err?: unknown) => (err ? reject(err instanceof Error ? err : new Error(String(err))) : resolve(limiter)),
          );
        });
    } else {
      throw new Error(`PARLEY_RATE_LIMIT_STORE must be "memory", "database" or a redis:// URL, got "${config.store}"`);
    }
    const made: (Limiter | null)[] = [];
    for (const [name, rule] of rules) made.push(rule ? { rule, limiter: await make(name, rule) } : null);
    return new RequestRateLimits(made[0], made[1], made[2], closeStore);
  }

  /**
   * Counts one request: by user when it is authenticated, else by IP; a login route also by IP
   * against its stricter limit. Resolves with the headers to send, or rejects with RateLimitError.
   * Undefined when no limit applies (nothing to wait for).
   */
  check(kind: RateClass, userId: number | null, ip: string): Promise<RateState> | undefined {
    if (kind === 'none') return undefined;
    const limiter = kind === 'authentication' ? this.authentication : userId !== null ? this.api : this.unauthenticated;
    if (!limiter) return undefined;
    const key = kind === 'authentication' || userId === null ? ip : String(userId);
    return limiter.limiter.consume(key).then(
      (res) => ({ headers: headersOf(limiter.rule, res) }),
      (res: unknown) => {
        // The store failed (Redis or PostgreSQL unreachable): the request goes on rather than every request failing.
        if (!(res instanceof RateLimiterRes)) return { headers: {} };
        const retryAfter = Math.max(0.001, res.msBeforeNext / 1000);
        throw new RateLimitError(retryAfter, { ...headersOf(limiter.rule, res), 'retry-after': String(Math.ceil(retryAfter)) });
      },
    );
  }

  close(): Promise<void> {
    return this.closeStore();
  }
}

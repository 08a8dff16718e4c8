// In-process sliding-window rate limits (per node), e.g. for password attempts.
import { ApiError } from '../core/api-error.js';

export class RateLimiter {
  private readonly hits = new Map<string, number[]>();

  constructor(
    private readonly max: number,
    private readonly windowSecs: number,
    private readonly now: () => number,
  ) {}

  /** Throws RATE_LIMIT_HIT (429) when `key` already used its allowance in the window. */
  check(key: string): void {
    const t = this.now();
    const recent = (this.hits.get(key) ?? []).filter((x) => x > t - this.windowSecs);
    if (recent.length) this.hits.set(key, recent);
    else this.hits.delete(key);
    if (recent.length >= this.max) {
      throw new ApiError('API usage exceeded rate limit', 'RATE_LIMIT_HIT', 429, { 'retry-after': recent[0] + this.windowSecs - t });
    }
  }

  record(key: string): void {
    const list = this.hits.get(key) ?? [];
    list.push(this.now());
    this.hits.set(key, list);
    // Bound memory: forget the oldest keys when too many distinct ones accumulate.
    if (this.hits.size > 100_000) this.hits.delete(this.hits.keys().next().value as string);
  }
}

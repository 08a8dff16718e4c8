// Runs autocannon against a URL for a bounded time (loopback only), as fast as it answers, and reduces its result to a few figures (fixed-rate load: paced-load.ts).
import autocannon from 'autocannon';

export interface LoadOptions {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  connections: number;
  seconds: number;
}

export interface LoadResult {
  rps: number;
  p50_ms: number;
  p99_ms: number;
  ok: number;
  non2xx: number;
  errors: number;
}

/** Bench traffic goes to this machine only. */
export function assertLoopback(url: string): void {
  if (!/^http:\/\/(127\.0\.0\.1|localhost)[:/]/.test(url)) throw new Error(`refusing to load a non-loopback URL: ${url}`);
}

export async function runLoad(o: LoadOptions): Promise<LoadResult> {
  assertLoopback(o.url);
  const r = await autocannon({
    url: o.url,
    method: o.method ?? 'GET',
    headers: o.headers,
    body: o.body,
    connections: o.connections,
    duration: o.seconds,
    timeout: 30,
  });
  const ok = r['2xx'];
  return {
    rps: Math.round(ok / o.seconds),
    p50_ms: r.latency.p50,
    p99_ms: r.latency.p99,
    ok,
    non2xx: r.non2xx,
    errors: r.errors + r.timeouts,
  };
}

// Open-loop load at a fixed rate: requests fall due at even intervals and each one's latency runs from when it was due.
import { performance } from 'node:perf_hooks';
import { LeanConnection } from './lean-http.js';
import { assertLoopback, type LoadResult } from './load.js';
import { percentile, round } from './stats.js';

export interface PacedOptions {
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  connections: number;
  seconds: number;
  /** Requests per second, spread evenly over the run. */
  rate: number;
}

/**
 * Why not autocannon's overallRate: it gives each connection a budget per second, which the
 * connection spends back to back as fast as the server answers and then waits for the next
 * second. At 500/s over 10 connections that is a burst at full speed for part of every second, so
 * its latencies were those of a saturated server, not of one taking 500 requests a second.
 *
 * Here request k falls due at start + k / rate. It goes out on a free connection when due; if all
 * connections are busy it waits for one, and that wait counts in its latency (a slow server cannot
 * hide behind the requests it delayed: no coordinated omission).
 */
export async function runPaced(o: PacedOptions): Promise<LoadResult> {
  assertLoopback(o.url);
  const u = new URL(o.url);
  const target = u.pathname + u.search;
  const total = Math.round(o.rate * o.seconds);
  if (total < 1) throw new Error(`a paced run needs at least one request (rate ${o.rate}, ${o.seconds} s)`);
  const free = Array.from({ length: o.connections }, () => new LeanConnection(o.url));
  const interval = 1000 / o.rate;
  const latencies: number[] = [];
  let ok = 0;
  let non2xx = 0;
  let errors = 0;
  let next = 0;
  let done = 0;
  const start = performance.now() + 20;
  const dueAt = (k: number) => start + k * interval;

  return new Promise<LoadResult>((resolve) => {
    let timer: NodeJS.Timeout | null = null;
    const finish = () => {
      if (timer) clearTimeout(timer);
      // Every request has settled, so every live connection is free (a failed one was replaced).
      for (const c of free) c.destroy();
      resolve({ rps: Math.round(ok / o.seconds), p50_ms: round(percentile(latencies, 50)), p99_ms: round(percentile(latencies, 99)), ok, non2xx, errors });
    };
    const send = (conn: LeanConnection, k: number) => {
      conn.request(o.method, target, o.headers, o.body).then(
        (r) => {
          latencies.push(performance.now() - dueAt(k));
          if (r.status >= 200 && r.status < 300) ok++;
          else non2xx++;
          settle(conn);
        },
        () => {
          errors++;
          // A failed connection is replaced, so the run keeps its connection count.
          settle(new LeanConnection(o.url));
        },
      );
    };
    const settle = (conn: LeanConnection) => {
      free.push(conn);
      if (++done === total) finish();
      else dispatch();
    };
    const dispatch = () => {
      const now = performance.now();
      while (next < total && dueAt(next) <= now && free.length) send(free.pop()!, next++);
      if (timer) clearTimeout(timer);
      timer = next < total && free.length ? setTimeout(dispatch, Math.max(0, dueAt(next) - performance.now())) : null;
    };
    timer = setTimeout(dispatch, 20);
  });
}

// Request counts and latency histograms by route pattern, method and status, kept in plain numbers and read by prom-client at scrape time.
import type { Metric } from 'prom-client';

/** Upper bounds in seconds; long-polls are held for up to a heartbeat (50 s by default), hence the tail. */
export const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

/** One route × method × status: its count, total seconds, and a count per bucket (the last: beyond every bound). */
class Series {
  count = 0;
  sum = 0;
  readonly buckets = new Float64Array(LATENCY_BUCKETS.length + 1);
  constructor(
    readonly route: string,
    readonly method: string,
    readonly status: number,
  ) {}
}

interface ExportedValue {
  labels: Record<string, string | number>;
  value: number;
  metricName?: string;
}

/**
 * Why not prom-client's Histogram: its observe() validates and hashes a labels object on every
 * call (about 1 µs on this machine, measured; a request log line costs a few), and every
 * long-poll answer is a request. Here an observation is a Map lookup on the route pattern (an
 * interned string), a scan of the few statuses seen on it, and three additions. prom-client still
 * formats the exposition: both metrics below are handed to its registry.
 */
export class RequestTimings {
  private readonly byRoute = new Map<string, Series[]>();

  observe(route: string, method: string, status: number, seconds: number): void {
    let list = this.byRoute.get(route);
    if (list === undefined) this.byRoute.set(route, (list = []));
    let s: Series | undefined;
    for (let i = 0; i < list.length; i++) {
      const c = list[i];
      if (c.status === status && c.method === method) {
        s = c;
        break;
      }
    }
    if (s === undefined) list.push((s = new Series(route, method, status)));
    s.count++;
    s.sum += seconds;
    let b = 0;
    while (b < LATENCY_BUCKETS.length && seconds > LATENCY_BUCKETS[b]) b++;
    s.buckets[b]++;
  }

  private *series(): Generator<Series> {
    for (const list of this.byRoute.values()) yield* list;
  }

  /** parley_http_requests_total and parley_http_request_duration_seconds, as prom-client metrics. */
  metrics(): Metric[] {
    const counter = {
      name: 'parley_http_requests_total',
      help: 'HTTP requests answered, by route pattern, method and status',
      type: 'counter',
      aggregator: 'sum',
      get: async () => {
        const values: ExportedValue[] = [];
        for (const s of this.series()) values.push({ labels: { route: s.route, method: s.method, status: s.status }, value: s.count });
        return { name: counter.name, help: counter.help, type: counter.type, aggregator: counter.aggregator, values };
      },
    };
    const histogram = {
      name: 'parley_http_request_duration_seconds',
      help: 'Time from a request’s arrival to its answer being written, by route pattern, method and status (held long-polls included)',
      type: 'histogram',
      aggregator: 'sum',
      get: async () => {
        const values: ExportedValue[] = [];
        for (const s of this.series()) {
          const labels = { route: s.route, method: s.method, status: s.status };
          let cumulative = 0;
          for (let b = 0; b < LATENCY_BUCKETS.length; b++) {
            cumulative += s.buckets[b];
            values.push({ labels: { ...labels, le: LATENCY_BUCKETS[b] }, value: cumulative, metricName: `${histogram.name}_bucket` });
          }
          values.push({ labels: { ...labels, le: '+Inf' }, value: s.count, metricName: `${histogram.name}_bucket` });
          values.push({ labels, value: s.sum, metricName: `${histogram.name}_sum` });
          values.push({ labels, value: s.count, metricName: `${histogram.name}_count` });
        }
        return { name: histogram.name, help: histogram.help, type: histogram.type, aggregator: histogram.aggregator, values };
      },
    };
    // The registry reads name, type and get() only (prom-client's documented Metric shape is a class union).
    return [counter, histogram] as unknown as Metric[];
  }
}

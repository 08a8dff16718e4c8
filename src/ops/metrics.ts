// The /metrics registry (prom-client): request timings, event-queue figures, send commits, and Node's default process metrics.
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import { RequestTimings } from './request-timings.js';
import type { OpsCounters } from './counters.js';

/** What the registry reads at scrape time. */
export interface MetricSources {
  counters: OpsCounters;
  queues: { readonly size: number; readonly heldPolls: number; readonly eventsDelivered: number };
}

export class Metrics {
  readonly registry = new Registry();
  readonly timings = new RequestTimings();

  constructor(sources: MetricSources) {
    const registers = [this.registry];
    for (const m of this.timings.metrics()) this.registry.registerMetric(m);
    new Gauge({
      name: 'parley_event_queues',
      help: 'Event queues registered on this node',
      registers,
      collect() {
        this.set(sources.queues.size);
      },
    });
    new Gauge({
      name: 'parley_held_long_polls',
      help: 'GET /events long-polls being held open, waiting for events',
      registers,
      collect() {
        this.set(sources.queues.heldPolls);
      },
    });
    monotonic('parley_events_delivered_total', 'Events handed to long-poll answers', () => sources.queues.eventsDelivered, registers);
    monotonic('parley_send_commits_total', 'Message sends committed to the database', () => sources.counters.sendCommits, registers);
    // Event-loop delay (nodejs_eventloop_lag_*), memory (process_resident_memory_bytes, nodejs_heap_*), GC, handles.
    collectDefaultMetrics({ register: this.registry });
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }
}

/** A counter that reports a running total kept elsewhere. */
function monotonic(name: string, help: string, read: () => number, registers: Registry[]): void {
  let reported = 0;
  new Counter({
    name,
    help,
    registers,
    collect() {
      const now = read();
      if (now > reported) this.inc(now - reported);
      reported = now;
    },
  });
}

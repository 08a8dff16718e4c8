// Opt-in event-loop stall monitor (PARLEY_LOOP_MONITOR=1): on SIGUSR2, prints one line of loop-delay figures and memory on stderr and resets them.
import { monitorEventLoopDelay, performance, PerformanceObserver, type IntervalHistogram } from 'node:perf_hooks';

/** Sampling interval of the delay timer; a stall shows as a delay of about its length plus this. */
const RESOLUTION_MS = 10;

let histogram: IntervalHistogram | null = null;

const ms = (ns: number) => ns / 1e6;
const round2 = (x: number) => Math.round(x * 100) / 100;

/** The figures since the last reset: the longest stall, and delay percentiles beyond the sampling interval. */
export function loopFigures(h: IntervalHistogram): Record<string, number> {
  const beyond = (ns: number) => round2(Math.max(0, ms(ns) - RESOLUTION_MS));
  return { max_stall_ms: beyond(h.max), p99_stall_ms: beyond(h.percentile(99)), mean_delay_ms: beyond(h.mean), samples: h.count };
}

/** Starts sampling when PARLEY_LOOP_MONITOR=1 (once per process); otherwise does nothing. */
export function startLoopMonitor(env: Record<string, string | undefined> = process.env): void {
  if (env.PARLEY_LOOP_MONITOR !== '1' || histogram) return;
  const h = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  histogram = h;
  h.enable();
  // Garbage-collection pauses, to tell a stall of our code from one of the collector's.
  let maxGcMs = 0;
  let gcMsTotal = 0;
  let countFrom = 0;
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      if (e.startTime < countFrom) continue;
      maxGcMs = Math.max(maxGcMs, e.duration);
      gcMsTotal += e.duration;
    }
  }).observe({ entryTypes: ['gc'] });
  // With --expose-gc, memory is reported after a full collection. Its pause is not counted as a stall:
  // the reset below makes the histogram skip the delay of its next sample.
  const gc = (globalThis as { gc?: () => void }).gc;
  // Signal listeners do not keep the process alive, and the sampling timer is unreferenced.
  process.on('SIGUSR2', () => {
    const figures = { ...loopFigures(h), max_gc_pause_ms: round2(maxGcMs), gc_ms_total: round2(gcMsTotal) };
    gc?.();
    const mem = process.memoryUsage();
    process.stderr.write(`parley-loop-monitor ${JSON.stringify({ ...figures, rss_mb: round2(mem.rss / 1048576), heap_used_mb: round2(mem.heapUsed / 1048576), after_gc: gc ? 1 : 0 })}\n`);
    h.reset();
    // Start afresh; the forced collection above, reported to the observer later, is not counted.
    maxGcMs = 0;
    gcMsTotal = 0;
    countFrom = performance.now();
  });
}

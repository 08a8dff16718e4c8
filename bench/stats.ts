// Percentiles and rounding for latency samples.

export function percentile(values: number[], p: number): number {
  if (!values.length) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i];
}

export const round = (x: number, digits = 2): number => (Number.isFinite(x) ? Math.round(x * 10 ** digits) / 10 ** digits : x);

export interface Summary {
  n: number;
  p50: number;
  p99: number;
  max: number;
}

export function summarize(values: number[]): Summary {
  return { n: values.length, p50: round(percentile(values, 50)), p99: round(percentile(values, 99)), max: round(values.length ? values.reduce((a, b) => (b > a ? b : a), -Infinity) : NaN) };
}

/** Runs fn n times one after another (after a few warm-up calls) and returns each call's milliseconds. */
export async function timeSequential(n: number, warmup: number, fn: (i: number) => Promise<number>): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await fn(-1 - i);
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push(await fn(i));
  return out;
}

/** Small statistics for the bench: quantiles by the nearest-rank method. */

/** The `q` quantile (0..1) of `values` by nearest rank; NaN when empty. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(q * sorted.length)));
  return sorted[rank - 1] as number;
}

export interface Summary {
  readonly n: number;
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  readonly max: number;
  readonly mean: number;
}

export function summarize(values: readonly number[]): Summary {
  const n = values.length;
  const mean = n === 0 ? NaN : values.reduce((a, b) => a + b, 0) / n;
  return {
    n,
    p50: quantile(values, 0.5),
    p90: quantile(values, 0.9),
    p99: quantile(values, 0.99),
    max: n === 0 ? NaN : Math.max(...values),
    mean,
  };
}

/** A figure over rounds: the median, and the smallest and largest round. */
export interface Spread {
  readonly median: number;
  readonly min: number;
  readonly max: number;
}

/** The median (nearest rank), smallest and largest of `values`, to 3 decimals. */
export function spread(values: readonly number[]): Spread {
  return {
    median: round(quantile(values, 0.5), 3),
    min: round(Math.min(...values), 3),
    max: round(Math.max(...values), 3),
  };
}

/** Rounds for the JSON report: `digits` decimals. */
export function round(n: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

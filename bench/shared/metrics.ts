/**
 * Prometheus text as the bench reads it (the dev server's, the worker's SDK metrics): sums of a
 * metric's samples, and the server's persistence requests per workflow over an interval.
 */
import { round, summarize } from './stats';

/** The samples of metric `name` in a Prometheus text: each one's label text and value. */
function* metricSamples(text: string, name: string): Generator<{ labels: string; value: number }> {
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const m = /^([a-zA-Z_:][\w:]*)(\{([^}]*)\})?\s+(\S+)/.exec(line);
    if (m && m[1] === name) yield { labels: m[3] ?? '', value: Number(m[4]) };
  }
}

/** Parses Prometheus text: the sum of a metric's samples whose labels include `match`. */
export function metricSum(text: string, name: string, match: Record<string, string> = {}): number {
  let sum = 0;
  for (const { labels, value } of metricSamples(text, name)) {
    if (Object.entries(match).every(([k, v]) => labels.includes(`${k}="${v}"`))) sum += value;
  }
  return sum;
}

/**
 * The samples of metric `name` in a Prometheus text, summed by the value of their label `by`
 * (samples without it are left out): e.g. `persistence_requests` by `operation`.
 */
export function metricSumsBy(text: string, name: string, by: string): Map<string, number> {
  const sums = new Map<string, number>();
  const label = new RegExp(`(?:^|,)${by}="([^"]*)"`);
  for (const { labels, value } of metricSamples(text, name)) {
    const key = label.exec(labels)?.[1];
    if (key !== undefined) sums.set(key, (sums.get(key) ?? 0) + value);
  }
  return sums;
}

export async function scrape(url: string | undefined): Promise<string> {
  if (!url) return '';
  try {
    const res = await fetch(url);
    return await res.text();
  } catch {
    return '';
  }
}

export interface ServerCounts {
  /** Saved state changes: executions created or updated. */
  readonly stateChanges: number;
  /** Every persistence request, by `<store>:<operation>`. */
  readonly requests: ReadonlyMap<string, number>;
  /** Seconds the server's persistence requests took, summed by `<store>:<operation>`. */
  readonly seconds: ReadonlyMap<string, number>;
}

/**
 * The server's persistence requests so far and the time they took (its own metrics, namespace
 * `default`): take it at both edges of an interval, the difference is the interval's.
 */
export async function serverCounts(metricsUrl: string): Promise<ServerCounts> {
  const text = await scrape(metricsUrl);
  const requests = new Map<string, number>();
  const seconds = new Map<string, number>();
  for (const [store, metric] of [
    ['persistence', 'persistence'],
    ['visibility', 'visibility_persistence'],
  ] as const) {
    for (const [op, n] of metricSumsBy(text, `${metric}_requests`, 'operation'))
      requests.set(`${store}:${op}`, n);
    for (const [op, n] of metricSumsBy(text, `${metric}_latency_sum`, 'operation'))
      seconds.set(`${store}:${op}`, n);
  }
  const stateChanges = [
    'CreateWorkflowExecution',
    'UpdateWorkflowExecution',
    'ConflictResolveWorkflowExecution',
  ].reduce(
    (n, operation) =>
      n + metricSum(text, 'persistence_requests', { namespace: 'default', operation }),
    0,
  );
  return { stateChanges, requests, seconds };
}

/** Requests per workflow over an interval: `(after − before) ÷ workflows`, by operation. */
export function requestsPerWorkflow(
  before: ReadonlyMap<string, number>,
  after: ReadonlyMap<string, number>,
  workflows: number,
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [op, n] of after) out[op] = (n - (before.get(op) ?? 0)) / Math.max(1, workflows);
  return out;
}

/** The sum over every operation of a {@link requestsPerWorkflow}-shaped record. */
export const sumOf = (byOperation: Record<string, number>): number =>
  Object.values(byOperation).reduce((a, v) => a + v, 0);

/** Each operation's median over rounds, those of at least 0.05 a workflow, largest first. */
export function medianRequests(rounds: readonly Record<string, number>[]): Record<string, number> {
  const ops = new Set(rounds.flatMap((r) => Object.keys(r)));
  const medians = [...ops].map((op) => [op, summarize(rounds.map((r) => r[op] ?? 0)).p50] as const);
  return Object.fromEntries(
    medians
      .filter(([, m]) => m >= 0.05)
      .sort((a, b) => b[1] - a[1])
      .map(([op, m]) => [op, round(m, 2)]),
  );
}

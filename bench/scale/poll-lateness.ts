/**
 * Poll lateness in the `scale` part: each poll's lateness as the worker reports it, counted by
 * bound and per window of time, and the settle window after a build (its own polls separated from
 * those of the backlog draining after it).
 */
import type { WorkerHandle } from '../shared/children';
import type { BenchSettings } from '../shared/settings';
import { round, sleep, summarize } from '../shared/stats';

/** Counts of `values` at or below each bound, and above the last. */
export function histogram(
  values: readonly number[],
  bounds: readonly number[],
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const b of bounds) out[`≤${b}`] = 0;
  out[`>${bounds[bounds.length - 1]}`] = 0;
  for (const v of values) {
    const b = bounds.find((x) => v <= x);
    const key = b === undefined ? `>${bounds[bounds.length - 1]}` : `≤${b}`;
    out[key] = (out[key] ?? 0) + 1;
  }
  return out;
}

/** Per `bucketMs` since `start`: how many polls started, and how many of them over 1 s late. */
export function latePollsOverTime(
  lateness: readonly number[],
  times: readonly number[],
  start: number,
  bucketMs: number,
): [number, number][] {
  const out: [number, number][] = [];
  lateness.forEach((late, i) => {
    const b = Math.max(0, Math.floor(((times[i] ?? start) - start) / bucketMs));
    while (out.length <= b) out.push([0, 0]);
    const bucket = out[b] as [number, number];
    bucket[0] += 1;
    if (late > 1_000) bucket[1] += 1;
  });
  return out;
}

/**
 * After a build: its own polls (each booking's first) once the last ones have run, then the
 * settle window's (`settleMs`, one poll cap by default), in which the build's backlog drains.
 */
export async function settleAfterBuild(
  s: BenchSettings['scale'],
  worker: WorkerHandle,
  /** The window's length, ms. */
  windowMs = s.settleMs,
) {
  // Let the last bookings' first polls run before separating the build from what follows.
  await sleep(Math.min(3_000, s.pollInitialMs / 2));
  const buildLateness = await worker.takeLateness();
  await worker.takeLatenessTimes();
  const startEpoch = Date.now();
  await sleep(windowMs);
  const lateness = await worker.takeLateness();
  const times = await worker.takeLatenessTimes();
  return {
    buildLateness,
    settle: {
      seconds: round(windowMs / 1000),
      polls: lateness.length,
      pollLatenessP99Ms: round(summarize(lateness).p99),
      pollLatenessP50Ms: round(summarize(lateness).p50),
      latePollsBy10s: latePollsOverTime(lateness, times, startEpoch, 10_000),
    },
  };
}

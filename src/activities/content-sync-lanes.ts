/** How a content-sync activity (content-sync.ts) runs its detail fetches: lanes, limits, beats. */
import { setMaxListeners } from 'node:events';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { Context } from '@temporalio/activity';
import { forEachLimited } from '../catalogue/limiter';
import {
  DEFAULT_DETAIL_CONCURRENCY,
  DEFAULT_DETAILS_PER_SECOND,
  type DetailFetchLimits,
} from '../catalogue/sync-contract';

/** Well under the 30 s heartbeat timeout of CONTENT_SYNC_ACTIVITY. */
export const HEARTBEAT_INTERVAL_MS = 5_000;

/**
 * Heartbeats every `intervalMs` while `fn` runs, besides the heartbeats `fn` sends itself: a
 * low rate cap can keep every lane waiting longer than the heartbeat timeout.
 */
export async function keepBeating<T>(
  intervalMs: number,
  details: () => unknown,
  fn: () => Promise<T>,
): Promise<T> {
  const ctx = Context.current();
  const timer = setInterval(() => ctx.heartbeat(details()), intervalMs);
  try {
    return await fn();
  } finally {
    clearInterval(timer);
  }
}

/**
 * Runs an activity body so that cancellation wins over the error it caused: an aborted call fails
 * ABORTED, not retryable, but a worker shutting down must hand the page to another; the SDK's
 * `CancelledFailure` is reported retryable on shutdown (a cancellation when the server asked).
 */
export async function cancellable<T>(fn: () => Promise<T>): Promise<T> {
  const signal = Context.current().cancellationSignal;
  try {
    return await fn();
  } catch (err) {
    if (signal.aborted && signal.reason instanceof CancelledFailure) throw signal.reason;
    throw err;
  }
}

export function limitsOf(input: DetailFetchLimits, signal: AbortSignal) {
  const concurrency = input.detailConcurrency ?? DEFAULT_DETAIL_CONCURRENCY;
  // Each lane listens on the activity's signal twice at most (the limiter's wait, the client's
  // call): expected, not the leak Node warns about past 10 listeners.
  setMaxListeners(Math.max(10, 2 * concurrency + 2), signal);
  return {
    concurrency,
    perSecond: input.detailsPerSecond ?? DEFAULT_DETAILS_PER_SECOND,
    signal,
  };
}

/** Retryable detail failures one attempt tolerates before it stops: the supplier may be down. */
const MAX_DEFERRED_FAILURES = 5;

/**
 * {@link forEachLimited} for detail fetches. A retryable failure of one detail does not stop the
 * others: the attempt stores what it can, then fails with that error, and the retry fetches only
 * the rest (a sporadic 503 costs one retry per page). Non-retryable failures, rate limiting (its
 * `Retry-After` must be honoured), cancellation and a run of failures stop at once.
 */
export async function forEachDetail<T>(
  items: readonly T[],
  limits: ReturnType<typeof limitsOf>,
  fn: (item: T) => Promise<void>,
): Promise<void> {
  let deferred: ApplicationFailure | undefined;
  let failures = 0;
  await forEachLimited(items, limits, async (item) => {
    try {
      await fn(item);
    } catch (err) {
      const tolerable =
        err instanceof ApplicationFailure &&
        !err.nonRetryable &&
        err.type !== 'RATE_LIMITED' &&
        !limits.signal.aborted &&
        failures < MAX_DEFERRED_FAILURES - 1;
      if (!tolerable) throw err;
      failures += 1;
      deferred ??= err;
    }
  });
  if (deferred !== undefined) throw deferred;
}

/**
 * A small limiter for detail fetches inside one activity: at most `concurrency` calls in flight
 * and at most `perSecond` started per second (starts are spaced evenly, so there are no bursts
 * at second boundaries). Stops starting new calls at the first failure or abort.
 */

export interface LimitOptions {
  /** Calls in flight at once (at least 1). */
  readonly concurrency: number;
  /** Calls started per second; `0` (or less) means no rate cap. */
  readonly perSecond: number;
  /** Stops starting new calls; waiting calls reject with the signal's reason. @default none */
  readonly signal?: AbortSignal;
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted === true) {
      reject(signal.reason as Error);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason as Error);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Runs `fn` on every item under the limits. Resolves when all succeeded; otherwise lets the calls
 * in flight settle (so none outlives the activity) and rejects with the first error.
 */
export async function forEachLimited<T>(
  items: readonly T[],
  options: LimitOptions,
  fn: (item: T) => Promise<void>,
): Promise<void> {
  const concurrency = Math.max(1, Math.floor(options.concurrency));
  const intervalMs = options.perSecond > 0 ? 1000 / options.perSecond : 0;
  const { signal } = options;
  let next = 0;
  let nextStartAt = 0;
  let failed = false;
  let firstError: unknown;

  async function lane(): Promise<void> {
    while (!failed && next < items.length) {
      const item = items[next++] as T;
      if (intervalMs > 0) {
        // Reserve a start slot before waiting, so lanes never pick the same one.
        const now = performance.now();
        const at = Math.max(now, nextStartAt);
        nextStartAt = at + intervalMs;
        if (at > now) await sleep(at - now, signal);
      }
      if (signal?.aborted === true) throw signal.reason;
      if (failed) return;
      await fn(item);
    }
  }

  const lanes = Array.from({ length: Math.min(concurrency, items.length) }, () =>
    lane().catch((err: unknown) => {
      if (!failed) {
        failed = true;
        firstError = err;
      }
    }),
  );
  await Promise.all(lanes);
  if (failed) throw firstError;
}

/**
 * The workflows' one timed wait: the SDK's `condition(fn, ms)` with the same commands at the same
 * points (a timer at once, cancelled when `fn` turns true first), 11 promises where it makes 17.
 * A timer's summary is its name in the UI: fixed words, never a guest's data.
 */
import { CancellationScope, condition, sleep } from '@temporalio/workflow';

/** A timer and what it waits for: its summary in the Temporal UI ("Approval timeout: …"). */
export interface Timer {
  readonly ms: number;
  readonly summary: string;
}

/** True when `fn` turned true, false when the timer fired first (no timer: waits for `fn`). */
export function waitUntil(fn: () => boolean, timer: Timer | undefined): Promise<boolean> {
  if (timer === undefined) return condition(fn).then(() => true);
  const scope = new CancellationScope();
  let fired = false;
  scope
    .run(() => sleep(timer.ms, { summary: timer.summary }))
    .then(
      () => (fired = true),
      () => undefined, // cancelled below: `fn` turned true first
    );
  return condition(() => fired || fn()).then(() => {
    if (fired) return false;
    scope.cancel();
    return true;
  });
}

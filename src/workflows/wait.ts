/**
 * The workflows' one timed wait: until `fn` is true or the timer fires, as the SDK's
 * `condition(fn, ms)`, with the same commands at the same points (a timer started at once;
 * cancelled when `fn` turns true first, as the activation's conditions are evaluated) for fewer
 * promises: the SDK's races a timer against the condition in a cancellable scope of its own,
 * 17 promises a wait; this one, 11 (bench: `promises`). Each promise created in workflow code
 * costs a captured stack, and a guard waits once per point in time of its order.
 *
 * Every timer carries a summary, which the Temporal UI shows as its name (else its sequence
 * number): what it waits for, in fixed words, never a guest's data.
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

/**
 * The workflows' one timed wait: until `fn` is true or `ms` pass, as the SDK's
 * `condition(fn, ms)`, with the same commands at the same points (a timer started at once;
 * cancelled when `fn` turns true first, as the activation's conditions are evaluated) for fewer
 * promises: the SDK's races a timer against the condition in a cancellable scope of its own,
 * 17 promises a wait; this one, 11 (bench: `promises`). Each promise created in workflow code
 * costs a captured stack, and a guard waits once per point in time of its order.
 */
import { CancellationScope, condition, sleep } from '@temporalio/workflow';

/** Resolves true when `fn` turned true, false when `ms` passed first (no `ms`: no timer). */
export function waitUntil(fn: () => boolean, ms: number | undefined): Promise<boolean> {
  if (ms === undefined) return condition(fn).then(() => true);
  const timer = new CancellationScope();
  let fired = false;
  timer
    .run(() => sleep(ms))
    .then(
      () => (fired = true),
      () => undefined, // cancelled below: `fn` turned true first
    );
  return condition(() => fired || fn()).then(() => {
    if (fired) return false;
    timer.cancel();
    return true;
  });
}

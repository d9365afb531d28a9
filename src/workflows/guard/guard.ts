/**
 * The guard of a CONFIRMED order, until check-out, in the order's own workflow
 * (../booking/book-room.ts) from the activation that decided CONFIRMED:
 *
 * - reads the booking once (status, stay dates, `cancel_policy` / `penalty_date`): the
 *   free-cancellation deadline is the earliest of the supplier's and the order system's;
 * - reconfirms before check-in (`guard.reconfirmBefore`, default 72 h and 24 h): a read that is not
 *   CONFIRMED flags the booking (phase, `Reconfirmation = 'FLAGGED'`, a metric, the reason);
 * - takes cancel-by-order until check-in: the `cancel` update and a Temporal cancellation of the
 *   workflow go through one path, `decideCancellation` then `runCancellation` (rule 4); after free
 *   cancellation ends only with `acceptPenalty: true`;
 * - cancels by itself before the deadline when `guard.autoCancelBeforePenalty` is set and the
 *   order system did not send `keep`;
 * - ends at check-out (or once cancelled) with its final truth.
 *
 * A handful of supplier calls per booking however long it lives; one timer per point in time;
 * `continueAsNew` when the server suggests it. State in guard-run.ts, handlers in
 * guard-messages.ts, steps in guard-steps.ts, decisions in guard-decisions.ts.
 */
import { allHandlersFinished, condition } from '@temporalio/workflow';
import type { GuardInput, GuardParams, GuardResult } from '../../shared/guard-contract';
import { GuardPhase } from '../../shared/guard-values';
import { watch } from './guard-steps';
import type { GuardRun } from './guard-run';
import type { Carried } from './guard-state';
import { checkGuardInput, orFail } from '../input-checks';

/** The guard's input, parsed (defaults applied); a bad one fails the workflow, named. */
export function checkedGuardInput(input: GuardInput): GuardParams {
  return orFail(checkGuardInput(input));
}

/** A cancellation from Temporal, taken as the `cancel` update's request. */
export function cancelledFromTemporal(run: GuardRun): void {
  run.pending = { by: 'temporal', acceptPenalty: false, reason: 'cancelled from Temporal' };
}

/**
 * The guard's life, to check-out or the order's cancellation, and its result. `continueWith`
 * continues the workflow as new. Runs in a non-cancellable scope, which the caller opens (the
 * order's workflow one scope for its booking and guard): a cancellation from Temporal is a
 * request the guard takes (cancelledFromTemporal), never a cancelled step.
 */
export async function guardToTheEnd(
  run: GuardRun,
  input: GuardInput,
  continueWith?: (next: GuardInput) => Promise<never>,
): Promise<GuardResult> {
  await watch(run, input, continueWith);
  // Let running update handlers return their answer before the workflow closes.
  await condition(allHandlersFinished);
  const final = run.state();
  const { known } = run;
  return {
    orderId: run.orderId,
    bookingId: run.bookingId,
    phase: known.phase,
    truth: final.truth,
    reason: reasonFor(known),
    state: final,
    ...(known.lastError !== undefined
      ? { error: { code: known.lastError.code, message: known.lastError.message } }
      : {}),
  };
}

function reasonFor(known: Carried): string {
  switch (known.phase) {
    case GuardPhase.CANCELLED:
      return known.cancellation?.outcome === 'NOT_FOUND'
        ? 'cancelled: the supplier no longer knows the booking'
        : `cancelled (${known.cancellation?.by ?? 'on request'}${known.cancellation?.reason ? `: ${known.cancellation.reason}` : ''})${known.cancellation?.acceptPenalty ? ', penalty accepted' : ''}`;
    case GuardPhase.CANCELLED_BY_SUPPLIER:
      return known.flag?.message ?? 'the supplier cancelled the booking';
    default:
      return known.flag
        ? `the stay is over; last flag ${known.flag.reason}: ${known.flag.message}`
        : 'the stay is over; the booking stood to the end';
  }
}

/**
 * The guard of a CONFIRMED order until check-out, in the order's own workflow
 * (docs/life-of-a-booking.md). State: guard-run.ts; handlers: guard-messages.ts; steps:
 * guard-steps.ts; decisions: guard-decisions.ts.
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
 * The guard's life and its result. The caller opens the non-cancellable scope: a cancellation
 * from Temporal is a request the guard takes (cancelledFromTemporal), never a cancelled step.
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
    ...(known.lastError && {
      error: { code: known.lastError.code, message: known.lastError.message },
    }),
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

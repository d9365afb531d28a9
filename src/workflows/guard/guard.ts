/**
 * `guardBooking`, id `guard-<orderId>`: a CONFIRMED booking's life until check-out. `bookRoom`
 * starts it (an abandoned child) when the booking is confirmed and returns its own result at once;
 * the guard then holds the order:
 *
 * - reads the booking once (status, stay dates, `cancel_policy` / `penalty_date`): the
 *   free-cancellation deadline is the earliest of the supplier's and the order system's;
 * - reconfirms before check-in (`guard.reconfirmBefore`, default 72 h and 24 h): a read that is not
 *   CONFIRMED flags the booking (phase, `Reconfirmation = 'FLAGGED'`, a metric, the reason);
 * - takes cancel-by-order until check-in: the `cancel` update and a Temporal cancellation of this
 *   workflow go through one path, `decideCancellation` then `runCancellation` (rule 4); after free
 *   cancellation ends only with `acceptPenalty: true`;
 * - cancels by itself before the deadline when `guard.autoCancelBeforePenalty` is set and the
 *   order system did not send `keep`;
 * - closes at check-out (or once cancelled) with its final truth.
 *
 * A handful of supplier calls per booking however long it lives; one timer per point in time;
 * `continueAsNew` when the server suggests it.
 */
import {
  ApplicationFailure,
  CancellationScope,
  allHandlersFinished,
  condition,
} from '@temporalio/workflow';
import type {
  GuardBookingInput,
  GuardBookingParams,
  GuardBookingResult,
} from '../../shared/guard-contract';
import { GuardPhase } from '../../shared/guard-values';
import { registerGuardHandlers } from './guard-messages';
import { watch } from './guard-steps';
import { GuardRun, type Carried } from './guard-run';
import { checkGuardBookingInput, issueText } from '../input-checks';

export async function guardBooking(input: GuardBookingInput): Promise<GuardBookingResult> {
  const run = new GuardRun(checkedGuardInput(input));
  registerGuardHandlers(run);
  // A cancellation of this workflow from Temporal (UI, CLI, handle.cancel()) is a cancel request
  // like the update's: same decision, same cleanup. The body runs non-cancellable, so the request
  // is decided rather than cutting a supplier call or a wait short (rule 8).
  CancellationScope.current().cancelRequested.catch(() => cancelledFromTemporal(run));
  return guardToTheEnd(run, input);
}

/** The guard's input, parsed (defaults applied); a bad one fails the workflow, named. */
export function checkedGuardInput(input: GuardBookingInput): GuardBookingParams {
  const parsed = checkGuardBookingInput(input);
  if (!parsed.success) {
    throw ApplicationFailure.create({
      type: 'INVALID_INPUT',
      message: issueText(parsed.issues),
      nonRetryable: true,
    });
  }
  return parsed.data;
}

/** A cancellation from Temporal, taken as the `cancel` update's request. */
export function cancelledFromTemporal(run: GuardRun): void {
  run.pending = { by: 'temporal', acceptPenalty: false, reason: 'cancelled from Temporal' };
}

/**
 * The guard's life, to check-out or the order's cancellation, and its result (guardBooking's, or
 * bookRoomAndGuard's once its booking is CONFIRMED). `continueWith` continues the workflow as new.
 */
export async function guardToTheEnd(
  run: GuardRun,
  input: GuardBookingInput,
  continueWith?: (next: GuardBookingInput) => Promise<never>,
): Promise<GuardBookingResult> {
  await CancellationScope.nonCancellable(async () => {
    await watch(run, input, continueWith);
    // Let running update handlers return their answer before the workflow closes.
    await condition(allHandlersFinished);
  });
  const final = run.state();
  const { s } = run;
  return {
    orderId: run.orderId,
    bookingId: run.bookingId,
    phase: s.phase,
    truth: final.truth,
    reason: reasonFor(s),
    state: final,
    ...(s.lastError !== undefined
      ? { error: { code: s.lastError.code, message: s.lastError.message } }
      : {}),
  };
}

function reasonFor(s: Carried): string {
  switch (s.phase) {
    case GuardPhase.CANCELLED:
      return s.cancellation?.outcome === 'NOT_FOUND'
        ? 'cancelled: the supplier no longer knows the booking'
        : `cancelled (${s.cancellation?.by ?? 'on request'}${s.cancellation?.reason ? `: ${s.cancellation.reason}` : ''})${s.cancellation?.acceptPenalty ? ', penalty accepted' : ''}`;
    case GuardPhase.CANCELLED_BY_SUPPLIER:
      return s.flag?.message ?? 'the supplier cancelled the booking';
    default:
      return s.flag
        ? `the stay is over; last flag ${s.flag.reason}: ${s.flag.message}`
        : 'the stay is over; the booking stood to the end';
  }
}

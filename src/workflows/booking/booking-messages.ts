/**
 * The order's query and updates until its decision (then the guard's: ../guard/guard-messages.ts);
 * the validators say why an update does not fit the booking's phase.
 */
import {
  ApplicationFailure,
  CancellationScope,
  condition,
  patched,
  setHandler,
} from '@temporalio/workflow';
import type {
  ApprovePriceChange,
  BookRoomResult,
  CancelRequest,
} from '../../shared/booking-contract';
import type { OrderState } from '../../shared/guard-contract';
import { BookingPhase } from '../../shared/booking-values';
import {
  approvePriceChangeUpdate,
  bookingStateQuery,
  cancelUpdate,
  outcomeUpdate,
  resolveReconciliationUpdate,
} from '../../shared/booking-messages';
import type { BookingRun } from './booking-run';
import { verifyBooking } from './earlier-runs';
import { Patch } from '../../shared/compatibility';
import { failureFacts } from '../failure-facts';
import {
  checkApprovePriceChange,
  checkCancelRequest,
  checkResolveReconciliation,
  issueText,
} from '../input-checks';

export function registerBookingHandlers(run: BookingRun): void {
  setHandler(bookingStateQuery, () => run.state());
  // The caller's one call for the decision (sent with the start; asking again is harmless).
  setHandler(outcomeUpdate, () => decision(run), { validator: noArgument });
  setHandler(approvePriceChangeUpdate, (request) => approve(run, request), {
    validator: (request) => validateApproval(run, request),
  });
  setHandler(cancelUpdate, (request) => cancel(run, request), {
    validator: (request) => validateCancel(run, request),
  });
  setHandler(resolveReconciliationUpdate, (raw) => resolve(run, raw), {
    validator: (request) => validateResolution(run, request),
  });
}

/**
 * `outcome` takes no argument (a `null` or `{}` is let by): an accepted update's arguments are
 * written in the order's history, so any other is refused before it can grow it.
 */
export function noArgument(...args: unknown[]): void {
  const empty = (a: unknown) =>
    a === undefined || a === null || (typeof a === 'object' && Object.keys(a).length === 0);
  if (!args.every(empty)) throw new Error('outcome takes no argument');
}

function decision(run: BookingRun): Promise<BookRoomResult> {
  return condition(() => run.decided !== undefined).then(() => run.decided!);
}

/** Handlers run in the root scope: a cancellation from Temporal must not break them either. */
function approve(run: BookingRun, request: ApprovePriceChange): Promise<OrderState> {
  return CancellationScope.nonCancellable(async () => {
    run.approval = request.approve;
    await condition(() => run.phase !== BookingPhase.AWAITING_APPROVAL);
    return run.state();
  });
}

function validateApproval(run: BookingRun, request: ApprovePriceChange): void {
  const parsed = checkApprovePriceChange(request);
  if (!parsed.success) throw new Error(`approvePriceChange: ${issueText(parsed.issues)}`);
  if (run.phase !== BookingPhase.AWAITING_APPROVAL || run.approval !== undefined) {
    throw new Error(`Nothing awaits approval: the booking is ${run.phase}`);
  }
}

/**
 * Taken at once where the run knows the order; a cancel sent with the start waits until the run
 * has read the order's earlier runs, then is carried out or refused with the reason (runs
 * recorded before one decision per order id answered it at once).
 */
function cancel(
  run: BookingRun,
  request: CancelRequest | null | undefined,
): OrderState | Promise<OrderState> {
  run.requestCancel(request?.reason ?? undefined, request?.acceptPenalty === true); // null is absent (rule 7)
  if (run.cancelAnswer !== undefined || !patched(Patch.ONE_DECISION_PER_ORDER)) return answer(run);
  return condition(() => run.cancelAnswer !== undefined).then(() => answer(run));
}

function answer(run: BookingRun): OrderState {
  const a = run.cancelAnswer;
  if (a && 'refused' in a) throw ApplicationFailure.nonRetryable(a.refused.message, a.refused.code);
  return run.state();
}

function validateCancel(run: BookingRun, request: CancelRequest | null | undefined): void {
  const parsed = checkCancelRequest(request ?? {});
  if (!parsed.success) throw new Error(`cancel: ${issueText(parsed.issues)}`);
  if (run.isDecided) throw new Error(`The booking has already ended: ${run.phase}`);
}

/**
 * Rule 1: an operator says what the supplier holds. A booking id is checked against the supplier
 * (it must carry this order's id) before the run takes it as its booking.
 */
function resolve(run: BookingRun, raw: unknown): Promise<OrderState> {
  return CancellationScope.nonCancellable(async () => {
    const checked = checkResolveReconciliation(raw); // null fields are absent (rule 7)
    if (!checked.success) throw new Error(`resolveReconciliation: ${issueText(checked.issues)}`);
    const request = checked.data;
    run.resolving = true;
    try {
      if ('noBooking' in request) {
        run.resolution = { noBooking: true };
      } else {
        let snapshot;
        try {
          snapshot = await verifyBooking(run, request.bookingId);
        } catch (err) {
          const f = failureFacts(err);
          const why = `Booking ${request.bookingId} was not accepted: ${f.message}`;
          throw ApplicationFailure.nonRetryable(why, f.code);
        }
        run.resolution = { bookingId: request.bookingId, snapshot };
      }
    } finally {
      run.resolving = false;
    }
    await condition(() => run.phase !== BookingPhase.NEEDS_RECONCILIATION);
    return run.state();
  });
}

function validateResolution(run: BookingRun, request: unknown): void {
  if (!checkResolveReconciliation(request).success)
    throw new Error(`resolveReconciliation: give { bookingId } or { noBooking: true }`);
  if (run.phase !== BookingPhase.NEEDS_RECONCILIATION) {
    throw new Error(`Nothing to reconcile: the booking is ${run.phase}`);
  }
  if (run.resolving || run.resolution !== undefined)
    throw new Error('A resolution is already being applied');
}

/**
 * Rule 4 before the decision: the supplier booking is cancelled as a `cancelBooking` child (so one
 * never confirmed shows in its view); the decision follows what the supplier confirmed.
 */
import { executeChild } from '@temporalio/workflow';
import type { BookRoomParams } from '../../shared/booking-contract';
import { CancellationOutcome, cancellationWorkflowId } from '../../shared/booking-values';
import { DEFAULT_CANCELLATION_DEADLINE, DEFAULT_POLLING } from '../../config/defaults';
import { SupplierStatusKey } from '../../shared/search-attributes';
import { BookingPhase } from '../../shared/booking-values';
import { cancelBooking } from '../cancellation/cancel-booking';
import { runCancellation, type CancellationResult } from '../cancellation/cancellation';
import type { BookingRun } from './booking-run';
import { Decisions, type Decision } from './decisions';
import { outcomeAfterCancellation } from './supplier-outcome';

/** What a cancellation reads of the order's input (its defaults when absent). */
type CancelTerms = Pick<BookRoomParams, 'orderId'> &
  Partial<Pick<BookRoomParams, 'cancellationDeadline' | 'polling'>>;

export async function cancelSupplierBooking(
  run: BookingRun,
  p: CancelTerms,
  id: number,
  why: string,
): Promise<Decision> {
  run.enter(BookingPhase.CANCELLING);
  return afterCancellation(run, p, await cancelAsChild(run, p, id), why);
}

export async function cancelAsChild(
  run: BookingRun,
  p: CancelTerms,
  id: number,
): Promise<CancellationResult> {
  const deadline = p.cancellationDeadline ?? DEFAULT_CANCELLATION_DEADLINE;
  const polling = p.polling ?? DEFAULT_POLLING;
  try {
    return await executeChild(cancelBooking, {
      workflowId: cancellationWorkflowId(id, run.supplier),
      args: [
        {
          bookingId: id,
          orderId: p.orderId,
          deadline,
          polling,
          ...(run.cancelReason ? { reason: run.cancelReason } : {}),
          ...(run.supplier !== undefined ? { supplier: run.supplier } : {}),
        },
      ],
    });
  } catch (err) {
    // An operator's cancelBooking of this booking is running: cancel alongside it (harmless).
    if (!(err instanceof Error && err.name === 'WorkflowExecutionAlreadyStartedError')) throw err;
    return runCancellation(id, deadline, polling, run.supplier);
  }
}

/** The booking's decision after its cancellation ran (by any route). */
export function afterCancellation(
  run: BookingRun,
  p: CancelTerms,
  result: CancellationResult,
  why: string,
): Decision {
  const outcome = outcomeAfterCancellation(result.outcome, run.supplierStatus);
  if (result.outcome === CancellationOutcome.STILL_ACTIVE) {
    run.noteError({ code: 'CANCELLATION_NOT_CONFIRMED', message: result.reason ?? 'STILL_ACTIVE' });
    return Decisions.afterCancellation(
      outcome,
      `${why}, but the supplier did not confirm the cancellation within ${String(p.cancellationDeadline ?? DEFAULT_CANCELLATION_DEADLINE)}: an operator is needed`,
      { outcome: result.outcome },
    );
  }
  run.supplierStatus = 'CANCELLED';
  run.searchAttributes.write([{ key: SupplierStatusKey, value: 'CANCELLED' }]);
  return Decisions.afterCancellation(outcome, why, {
    outcome: result.outcome,
    ...(run.cancelReason ? { reason: run.cancelReason } : {}),
  });
}

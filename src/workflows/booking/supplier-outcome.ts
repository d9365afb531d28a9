/**
 * The booking's final outcome from the supplier's booking status, pure. Pending statuses are not
 * final (rule 3); a status the seed does not list is not proof of anything either.
 */
import { BookingOutcome, CancellationOutcome } from '../../shared/booking-values';
import { supplierStatusKind } from '../../shared/supplier-status';

export type StatusReading =
  | { readonly kind: 'final'; readonly outcome: BookingOutcome; readonly reason?: string }
  | { readonly kind: 'pending' }
  /** Not a status we know: keep polling, as for any reading that proves nothing. */
  | { readonly kind: 'unknown'; readonly status: string };

/** What the supplier's status says about the booking. */
export function readStatus(status: string): StatusReading {
  const kind = supplierStatusKind(status);
  if (kind !== 'final') return kind === 'pending' ? { kind } : { kind, status };
  switch (status) {
    case 'CONFIRMED':
      return { kind: 'final', outcome: BookingOutcome.CONFIRMED };
    case 'NOT_CONFIRMED':
      return {
        kind: 'final',
        outcome: BookingOutcome.NOT_CONFIRMED,
        reason: 'the supplier did not confirm the booking',
      };
    case 'CANCELLED':
      return {
        kind: 'final',
        outcome: BookingOutcome.CANCELLED,
        reason: 'the supplier cancelled the booking',
      };
    default:
      return { kind: 'unknown', status };
  }
}

/** Whether a supplier booking in `status` still needs a cancellation when one is asked for. */
export function needsCancelling(status: string | undefined): boolean {
  return status !== 'CANCELLED' && status !== 'NOT_CONFIRMED';
}

/**
 * The outcome when a cancellation was asked for (or a deadline passed) and the supplier's
 * answer to it is `cancellation` (undefined when the cancel could not be sent at all). A
 * cancelled booking is `CANCELLED`; one the supplier did not cancel keeps the outcome of its last
 * known status, `NOT_CONFIRMED` while it was still pending.
 */
export function outcomeAfterCancellation(
  cancellation: CancellationOutcome | undefined,
  lastStatus: string | undefined,
): BookingOutcome {
  if (cancellation === CancellationOutcome.CANCELLED) return BookingOutcome.CANCELLED;
  if (cancellation === CancellationOutcome.NOT_FOUND) return BookingOutcome.CANCELLED;
  if (lastStatus === 'CONFIRMED') return BookingOutcome.CONFIRMED;
  if (lastStatus === 'CANCELLED') return BookingOutcome.CANCELLED;
  return BookingOutcome.NOT_CONFIRMED;
}

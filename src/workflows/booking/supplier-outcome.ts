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

/** The final statuses and what each decides. */
const FINAL: Readonly<Record<string, { outcome: BookingOutcome; reason?: string }>> = {
  CONFIRMED: { outcome: BookingOutcome.CONFIRMED },
  NOT_CONFIRMED: {
    outcome: BookingOutcome.NOT_CONFIRMED,
    reason: 'the supplier did not confirm the booking',
  },
  CANCELLED: { outcome: BookingOutcome.CANCELLED, reason: 'the supplier cancelled the booking' },
};

/** What the supplier's status says about the booking. */
export function readStatus(status: string): StatusReading {
  const kind = supplierStatusKind(status);
  if (kind !== 'final') return kind === 'pending' ? { kind } : { kind, status };
  const final = Object.hasOwn(FINAL, status) ? FINAL[status] : undefined;
  return final ? { kind, ...final } : { kind: 'unknown', status };
}

/** Whether a supplier booking in `status` still needs a cancellation when one is asked for. */
export function needsCancelling(status: string | undefined): boolean {
  return status !== 'CANCELLED' && status !== 'NOT_CONFIRMED';
}

/**
 * The outcome once a cancellation ran (`cancellation` undefined: it could not be sent): a booking
 * the supplier did not cancel keeps its last status's outcome, `NOT_CONFIRMED` while pending.
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

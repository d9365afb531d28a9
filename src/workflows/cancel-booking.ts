import {
  ApplicationFailure,
  upsertSearchAttributes,
  setCurrentDetails,
} from '@temporalio/workflow';
import {
  CancelBookingInputSchema,
  toFieldIssues,
  type CancelBookingInput,
  type CancelBookingResult,
} from '../shared/booking-contract';
import { BookingOutcomeKey, OrderIdKey, SupplierBookingIdKey } from '../shared/search-attributes';
import { DEFAULT_POLLING, runCancellation } from './cancellation';

/**
 * `cancelBooking`, id `cancel-<bookingId>`: cancels a supplier booking by its id. Outcome
 * `CANCELLED`, `NOT_FOUND`, or `STILL_ACTIVE` when the supplier has not confirmed the cancellation
 * by the deadline (an operator is needed). Running it twice is harmless.
 */
export async function cancelBooking(input: CancelBookingInput): Promise<CancelBookingResult> {
  const parsed = CancelBookingInputSchema.safeParse(input);
  if (!parsed.success) {
    throw ApplicationFailure.create({
      type: 'INVALID_INPUT',
      message: toFieldIssues(parsed.error)
        .map((i) => `${i.field}: ${i.message}`)
        .join('; '),
      nonRetryable: true,
    });
  }
  const { bookingId, orderId, deadline, polling } = parsed.data;
  upsertSearchAttributes([
    { key: SupplierBookingIdKey, value: bookingId },
    ...(orderId ? [{ key: OrderIdKey, value: orderId }] : []),
  ]);
  setCurrentDetails(`Cancelling supplier booking **${bookingId}** (deadline ${String(deadline)})`);
  const { outcome, reason } = await runCancellation(
    bookingId,
    deadline,
    polling ?? DEFAULT_POLLING,
  );
  upsertSearchAttributes([{ key: BookingOutcomeKey, value: outcome }]);
  setCurrentDetails(`Supplier booking **${bookingId}**: ${outcome}`);
  return { bookingId, outcome, ...(reason !== undefined ? { reason } : {}) };
}

import { upsertSearchAttributes, setCurrentDetails } from '@temporalio/workflow';
import type { CancelBookingInput, CancelBookingResult } from '../../shared/booking-contract';
import {
  BookingOutcomeKey,
  OrderIdKey,
  SupplierBookingIdKey,
} from '../../shared/search-attributes';
import { runCancellation } from './cancellation';
import { checkCancelBookingInput, orFail } from '../input-checks';

/**
 * `cancelBooking`, id `cancel-<bookingId>`: cancels a supplier booking by its id (rule 4:
 * cancellation.ts). Running it twice is harmless.
 */
export async function cancelBooking(input: CancelBookingInput): Promise<CancelBookingResult> {
  const { bookingId, orderId, deadline, polling, supplier } = orFail(
    checkCancelBookingInput(input),
  );
  upsertSearchAttributes([
    { key: SupplierBookingIdKey, value: bookingId },
    ...(orderId ? [{ key: OrderIdKey, value: orderId }] : []),
  ]);
  setCurrentDetails(`Cancelling supplier booking **${bookingId}** (deadline ${String(deadline)})`);
  const { outcome, reason } = await runCancellation(bookingId, deadline, polling, supplier);
  upsertSearchAttributes([{ key: BookingOutcomeKey, value: outcome }]);
  setCurrentDetails(`Supplier booking **${bookingId}**: ${outcome}`);
  return { bookingId, outcome, ...(reason !== undefined ? { reason } : {}) };
}

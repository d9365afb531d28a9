/**
 * Cancels an order whatever state its booking is in. While `bookRoom` runs, its `cancel` update
 * does it (the workflow cancels at the supplier if it booked). Once `bookRoom` has ended (CONFIRMED,
 * typically) it takes no more updates, so its supplier booking is cancelled by id with
 * `cancelBooking`.
 */
import type { WorkflowHandle } from '@temporalio/client';
import type { BookRoomResult, BookingClient, BookingState, CancelBookingInput } from '../client';
import { cancellationWorkflowId } from '../client';

export type OrderCancellation =
  /** The running booking accepted the request; its result will say how it ended. */
  | { readonly kind: 'requested'; readonly state: BookingState }
  /** The booking had ended with a supplier booking: `cancelBooking` was started for it. */
  | {
      readonly kind: 'supplier-cancellation';
      readonly bookingId: number;
      readonly workflowId: string;
      readonly handle: WorkflowHandle;
      readonly booking: BookRoomResult;
    }
  /** The booking had ended without a supplier booking to cancel (or already cancelled). */
  | { readonly kind: 'nothing-to-cancel'; readonly booking: BookRoomResult };

export interface CancelOrderOptions {
  readonly reason?: string;
  /** For `cancelBooking` (a confirmed booking): how to poll a 202 and how long to wait. */
  readonly polling?: CancelBookingInput['polling'];
  readonly deadline?: CancelBookingInput['deadline'];
}

async function isRunning(bookings: BookingClient, orderId: string): Promise<boolean> {
  return (await bookings.handle(orderId).describe()).status.name === 'RUNNING';
}

/** Cancels `orderId`'s booking; see {@link OrderCancellation} for what happened. */
export async function cancelOrder(
  bookings: BookingClient,
  orderId: string,
  options: CancelOrderOptions = {},
): Promise<OrderCancellation> {
  if (await isRunning(bookings, orderId)) {
    try {
      return { kind: 'requested', state: await bookings.cancel(orderId, options.reason) };
    } catch (err) {
      // It may have ended between the two calls; then it is handled as ended, below.
      if (await isRunning(bookings, orderId)) throw err;
    }
  }
  const booking = await bookings.result(orderId);
  // Any ended booking that made a supplier booking not known to be cancelled: a FAILED one (its
  // status unreadable) may still be live. Cancelling twice is harmless, so err on cancelling.
  if (booking.outcome === 'CANCELLED' || booking.bookingId === undefined) {
    return { kind: 'nothing-to-cancel', booking };
  }
  const handle = await bookings.startCancellation({
    bookingId: booking.bookingId,
    orderId: booking.orderId,
    ...(options.reason !== undefined ? { reason: options.reason } : {}),
    ...(options.polling !== undefined ? { polling: options.polling } : {}),
    ...(options.deadline !== undefined ? { deadline: options.deadline } : {}),
  });
  return {
    kind: 'supplier-cancellation',
    bookingId: booking.bookingId,
    workflowId: cancellationWorkflowId(booking.bookingId),
    handle,
    booking,
  };
}

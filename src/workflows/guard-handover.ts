/**
 * `bookRoom` → `guardBooking`: when a booking is CONFIRMED, `bookRoom` starts the order's guard
 * (id `guard-<orderId>`) as an abandoned child, so the guard outlives `bookRoom`, whose own result
 * still returns when the booking is decided. Starting it is the one hook in bookRoom (patched).
 */
import { ParentClosePolicy, WorkflowIdReusePolicy, log, startChild } from '@temporalio/workflow';
import type { BookRoomParams, SupplierPrice } from '../shared/booking-contract';
import type { GuardBookingInput } from '../shared/guard-contract';
import { GUARD_BOOKING_WORKFLOW, GuardPhase, guardWorkflowId } from '../shared/guard-values';
import { BookingPhaseKey, OrderIdKey, SupplierBookingIdKey } from '../shared/search-attributes';

/** The `patched()` id of the hand-over: histories recorded before it close without a guard. */
export const GUARD_AFTER_CONFIRMED_PATCH = 'guard-after-confirmed';

/**
 * Starts the order's guard. Never fails the booking: a guard that cannot be started (one already
 * exists for this order) is logged, and the booking's outcome stands.
 */
export async function handOverToGuard(
  p: Pick<BookRoomParams, 'orderId' | 'checkIn' | 'guard' | 'cancellationDeadline' | 'polling'>,
  bookingId: number,
  price: SupplierPrice | undefined,
  /** bookRoom's cancellation did not complete (`STILL_ACTIVE`): the guard takes it over. */
  cancellationPending = false,
  /** Order events are on: the guard announces its changes, after bookRoom's last sequence. */
  events?: { readonly lastSequence: number },
): Promise<void> {
  if (p.guard?.enabled === false) return;
  const input: GuardBookingInput = {
    orderId: p.orderId,
    bookingId,
    cancellationDeadline: p.cancellationDeadline,
    ...(p.checkIn !== undefined ? { checkIn: p.checkIn } : {}),
    ...(p.guard !== undefined ? { guard: p.guard } : {}),
    ...(p.polling !== undefined ? { polling: p.polling } : {}),
    ...(price !== undefined ? { price: { ...price } } : {}),
    ...(cancellationPending ? { cancellationPending: true } : {}),
    ...(events ? { orderEvents: { lastSequence: events.lastSequence } } : {}),
  };
  try {
    await startChild(GUARD_BOOKING_WORKFLOW, {
      workflowId: guardWorkflowId(p.orderId),
      args: [input],
      parentClosePolicy: ParentClosePolicy.ABANDON,
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      typedSearchAttributes: [
        { key: OrderIdKey, value: p.orderId },
        { key: SupplierBookingIdKey, value: bookingId },
        { key: BookingPhaseKey, value: GuardPhase.CONFIRMED },
      ],
    });
  } catch (err) {
    log.warn('The guard of a confirmed order could not be started', {
      orderId: p.orderId,
      bookingId,
      error: err instanceof Error ? err.message : String(err),
    });
  }
}

/**
 * Booking activities: one supplier call (or one poll) each; the reads and waits are in
 * booking-polls.ts. They return ids, statuses and prices, never the guest data the supplier echoes.
 */
import { Context } from '@temporalio/activity';
import { isHotelApiError } from '../hotel-api/errors';
import type { Polling, SupplierPrice } from '../shared/booking-contract';
import { BOOKING_CALL_MARK, BOOKING_NOT_SENT } from '../shared/booking-call-mark';
import { finalFailure, supplierCall, toApplicationFailure } from './failures';
import {
  awaitCancellation,
  awaitFinalBookingStatus,
  cancelBooking,
  snapshot,
  type AwaitFinalStatusInput,
  type BookingSnapshot,
  type SupplierReads,
} from './booking-polls';

export type { BookingSnapshot } from './booking-polls';

export interface BookingActivityDeps extends SupplierReads {
  /** How often a long booking call heartbeats, so a dead worker is noticed quickly. @default 5000 */
  readonly heartbeatIntervalMs?: number;
}

/**
 * Records, acknowledged by Temporal, that the booking call is about to go out (the context's own
 * heartbeat is batched, unacknowledged). When Temporal does not answer nothing is sent: the
 * failure says so (`BOOKING_NOT_SENT`, not ambiguous) and the workflow sends again.
 */
export async function markBookingCall(ctx: Context): Promise<void> {
  try {
    await ctx.client.activity.heartbeat(ctx.info.taskToken, BOOKING_CALL_MARK);
  } catch (err) {
    throw finalFailure(
      BOOKING_NOT_SENT,
      `Temporal did not record the booking call's start, so it was not sent: ${err instanceof Error ? err.message : String(err)}`,
      { retryable: true, ambiguous: false },
    );
  }
}

export interface PriceCheckResult {
  readonly status: 'AVAILABLE' | 'NOT AVAILABLE' | 'PRICE CHANGE' | 'POLICY CHANGE';
  readonly price: SupplierPrice | null;
  /** The `booking_id` token to book with. */
  readonly token: string | null;
}

export interface CreateBookingInput {
  readonly orderId: string;
  readonly token: string;
  readonly rooms: readonly { firstName: string; lastName: string; notes?: string | undefined }[];
  readonly contact: { phonePrefix: string; phone: string; email?: string | undefined };
  readonly customFields?: Readonly<Record<string, string>> | undefined;
  /** The field the starter validated the order id against; else the worker's `orderIdField`. */
  readonly orderIdField?: string | undefined;
}

/** The `POST /booking` body for a booking input: the order id travels in `orderIdField`. */
export function supplierBookingBody(input: CreateBookingInput, orderIdField: string) {
  return {
    room_detail: input.rooms.map((room) => ({
      lead_first_name: room.firstName,
      lead_last_name: room.lastName,
      notes: room.notes ?? null,
    })),
    phone_number_prefix: input.contact.phonePrefix,
    phone_number: input.contact.phone,
    email: input.contact.email ?? null,
    custom_fields: { ...input.customFields, [orderIdField]: input.orderId },
  };
}

/** `POST /booking` with the order id in its field; marked: after {@link markBookingCall}. */
async function sendBooking(
  deps: BookingActivityDeps,
  input: CreateBookingInput,
  marked: boolean,
): Promise<{ bookingId: number; status: string }> {
  const field = input.orderIdField ?? deps.orderIdField;
  if (input.customFields && field in input.customFields) {
    const message = `customFields.${field} is reserved for the order id`;
    throw finalFailure('INVALID_REQUEST', message, { retryable: false, ambiguous: false });
  }
  const ctx = Context.current();
  if (marked) await markBookingCall(ctx);
  // Heartbeats let Temporal notice a dead worker within the heartbeat timeout, not the 150 s
  // start-to-close timeout; the workflow then reconciles instead of waiting.
  const details = marked ? BOOKING_CALL_MARK : undefined;
  const beat = setInterval(() => ctx.heartbeat(details), deps.heartbeatIntervalMs ?? 5_000);
  try {
    const request = { optionId: input.token, body: supplierBookingBody(input, field) };
    const r = await deps.hotelApi.createBooking(request, { signal: ctx.cancellationSignal });
    // For the operator who reconciles a call whose answer never reached the workflow: the
    // order and the supplier's id, in the worker's log (ids only, no guest data).
    ctx.log.info(
      `booking call returned: order ${input.orderId} → supplier booking ${r.booking_id} (${r.status})`,
      { orderId: input.orderId, supplierBookingId: r.booking_id, supplierStatus: r.status },
    );
    return { bookingId: r.booking_id, status: r.status };
  } catch (err) {
    ctx.log.warn(`booking call failed: order ${input.orderId}, no supplier booking id`, {
      orderId: input.orderId,
      code: isHotelApiError(err) ? err.code : 'UNKNOWN',
    });
    throw toApplicationFailure(err);
  } finally {
    clearInterval(beat);
  }
}

/** Checks that an operator's booking id carries this order's id; else `ORDER_MISMATCH`, final. */
async function verifyBookingForOrder(
  deps: BookingActivityDeps,
  input: { bookingId: number; orderId: string; orderIdField?: string },
): Promise<BookingSnapshot> {
  const field = input.orderIdField ?? deps.orderIdField;
  const snap = await supplierCall(() => snapshot(deps, input.bookingId, field));
  if (snap.orderId !== input.orderId) {
    throw finalFailure(
      'ORDER_MISMATCH',
      `Supplier booking ${input.bookingId} does not carry order ${input.orderId} in ${field}`,
    );
  }
  return snap;
}

export function createBookingActivities(deps: BookingActivityDeps) {
  return {
    /** `GET /price-check`. Retried by Temporal on retryable failures. */
    async priceCheck({ optionId }: { optionId: string }): Promise<PriceCheckResult> {
      const signal = Context.current().cancellationSignal;
      const r = await supplierCall(() => deps.hotelApi.priceCheck({ optionId }, { signal }));
      return { status: r.status, price: r.price ?? null, token: r.booking_id ?? null };
    },
    /**
     * `POST /booking`, at most once per activity (the retry policy has `maximumAttempts: 1`): a
     * failure that does not prove the request never arrived is the workflow's to reconcile. Runs
     * of earlier versions schedule this one; this version schedules {@link createBookingMarked}.
     */
    createBooking: (input: CreateBookingInput) => sendBooking(deps, input, false),
    /**
     * `POST /booking` once {@link markBookingCall} has recorded that it goes out (what that proves:
     * shared/booking-call-mark.ts); every later heartbeat carries the mark, so it is never lost.
     */
    createBookingMarked: (input: CreateBookingInput) => sendBooking(deps, input, true),
    /** `GET /retrieve`, reduced to what the workflow needs. */
    retrieveBooking: (input: { bookingId: number }) =>
      supplierCall(() => snapshot(deps, input.bookingId)),
    verifyBookingForOrder: (input: { bookingId: number; orderId: string; orderIdField?: string }) =>
      verifyBookingForOrder(deps, input),
    awaitFinalBookingStatus: (input: AwaitFinalStatusInput) => awaitFinalBookingStatus(deps, input),
    cancelBooking: (input: { bookingId: number }) => cancelBooking(deps, input),
    awaitCancellation: (input: { bookingId: number; polling: Polling }) =>
      awaitCancellation(deps, input),
  };
}

export type BookingActivities = ReturnType<typeof createBookingActivities>;

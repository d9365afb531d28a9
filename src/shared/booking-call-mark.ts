/**
 * The mark a booking call's activity has Temporal record before `POST /booking` leaves
 * (activities/booking.ts `createBookingMarked`), and what the workflow reads from it
 * (workflows/failure-facts.ts `bookingCallFacts`): a timeout whose last heartbeat lacks it proves
 * the call never left.
 */

/** The heartbeat details: recorded, and acknowledged, before the request is sent. */
export const BOOKING_CALL_MARK = 'booking-call-sending';

/** The failure code of a booking call that provably never left; it is sent again. */
export const BOOKING_NOT_SENT = 'BOOKING_NOT_SENT';

export function carriesBookingCallMark(details: unknown): boolean {
  return details === BOOKING_CALL_MARK;
}

/**
 * The guard's one supplier read: `GET /retrieve`, reduced to the booking's status, stay dates and
 * cancellation terms (no personal data). A 404 is an answer here ("the supplier does not know the
 * booking"), not a failure: the guard flags it for an operator.
 */
import { Context } from '@temporalio/activity';
import type { HotelApiClient } from '../hotel-api';
import { HotelApiError } from '../hotel-api/errors';
import { toApplicationFailure } from './failures';

export interface BookingTerms {
  readonly found: true;
  readonly status: string;
  readonly checkIn: string | null;
  readonly checkOut: string | null;
  /** The supplier's `cancel_policy`: whether the booking can be cancelled free of charge. */
  readonly refundable: boolean | null;
  /** The supplier's `penalty_date` when it is a string (the seed types it "any"). */
  readonly penaltyDate: string | null;
}

/** The stay and cancellation terms of a retrieved booking (no personal data). */
export type StayTerms = Omit<BookingTerms, 'found' | 'status'>;

export function termsOf(r: {
  readonly check_in?: string | null;
  readonly check_out?: string | null;
  readonly cancel_policy?: boolean | null;
  readonly penalty_date?: unknown;
}): StayTerms {
  return {
    checkIn: r.check_in ?? null,
    checkOut: r.check_out ?? null,
    refundable: r.cancel_policy ?? null,
    penaltyDate: typeof r.penalty_date === 'string' ? r.penalty_date : null,
  };
}

export function createGuardActivities(deps: { readonly hotelApi: HotelApiClient }) {
  return {
    /** Reads a booking's status and terms; `{ found: false }` when the supplier answers 404. */
    async readBookingTerms(input: {
      bookingId: number;
    }): Promise<BookingTerms | { readonly found: false }> {
      try {
        const r = await deps.hotelApi.retrieveBooking(
          { bookingId: input.bookingId },
          { signal: Context.current().cancellationSignal },
        );
        return { found: true, status: r.status, ...termsOf(r) };
      } catch (err) {
        if (err instanceof HotelApiError && err.code === 'NOT_FOUND') return { found: false };
        throw toApplicationFailure(err);
      }
    },
  };
}

export type GuardActivities = ReturnType<typeof createGuardActivities>;

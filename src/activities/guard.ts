/**
 * The guard's one supplier read: `GET /retrieve`, reduced to the booking's status, stay dates and
 * cancellation terms (no personal data). A 404 is an answer here ("the supplier does not know the
 * booking"), not a failure: the guard flags it for an operator.
 */
import { Context } from '@temporalio/activity';
import type { HotelApiClient, RetrieveResponse } from '../hotel-api';
import { supplierRead } from './failures';

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

export function termsOf(
  r: Pick<RetrieveResponse, 'check_in' | 'check_out' | 'cancel_policy' | 'penalty_date'>,
): StayTerms {
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
    readBookingTerms: (input: {
      bookingId: number;
    }): Promise<BookingTerms | { readonly found: false }> =>
      supplierRead(
        async () => {
          const signal = Context.current().cancellationSignal;
          const r = await deps.hotelApi.retrieveBooking({ bookingId: input.bookingId }, { signal });
          return { found: true, status: r.status, ...termsOf(r) } as const;
        },
        () => ({ found: false }) as const,
      ),
  };
}

export type GuardActivities = ReturnType<typeof createGuardActivities>;

/**
 * Verdicts on the test booking's retrieve: the order id round-trips in its custom field, and the
 * stay terms the guard reads (src/activities/guard.ts readBookingTerms) are there and readable.
 * Pure.
 */
import type { RetrieveResponse } from '../hotel-api/retrieve';
import { parseInstant } from '../workflows/guard-decisions';
import type { CheckResult } from './check-result';
import { fail, ok, warn } from './check-result';

/** `book-custom-field`: the order id sent in `field` comes back from retrieve. */
export function customFieldVerdict(input: {
  readonly field: string;
  readonly sent: string;
  readonly retrieved: unknown;
}): CheckResult {
  const { field, sent, retrieved } = input;
  const value =
    typeof retrieved === 'object' && retrieved !== null && !Array.isArray(retrieved)
      ? (retrieved as Record<string, unknown>)[field]
      : undefined;
  if (value === sent) {
    return ok('book-custom-field', `${field} came back from retrieve as sent (${sent})`);
  }
  const got =
    value !== undefined
      ? `${field} = ${JSON.stringify(value).slice(0, 60)}`
      : `custom_fields = ${JSON.stringify(retrieved ?? null).slice(0, 80)}`;
  return fail(
    'book-custom-field',
    `sent ${field} = ${sent}; retrieve shows ${got}`,
    'supplier bookings cannot be traced back to their order: after a lost booking answer, reconciliation cannot find the booking by its order id. Try another BOOKING_ORDER_ID_FIELD',
  );
}

const show = (v: unknown) => JSON.stringify(v ?? null).slice(0, 60);

/** `book-stay-terms`: check-in, check-out, cancel policy and penalty date, as the guard reads them. */
export function stayTermsVerdict(input: {
  readonly retrieved: Pick<RetrieveResponse, 'check_in' | 'check_out' | 'cancel_policy' | 'penalty_date'>;
  /** The stay searched for, when known (`YYYY-MM-DD`). */
  readonly checkin?: string;
  readonly checkout?: string;
}): CheckResult {
  const r = input.retrieved;
  const problems: string[] = [];
  const breaks: string[] = [];
  const checkIn = parseInstant(r.check_in);
  const checkOut = parseInstant(r.check_out);
  if (checkIn === undefined || checkOut === undefined) {
    problems.push(`check_in ${show(r.check_in)} / check_out ${show(r.check_out)} unreadable`);
    breaks.push('the guard cannot tell when the stay starts: no reconfirmation before check-in, cancellations after it not refused');
  }
  if (r.cancel_policy === true && parseInstant(r.penalty_date) === undefined) {
    problems.push(`penalty_date ${show(r.penalty_date)} unreadable for a refundable booking`);
    breaks.push('the guard cannot tell when free cancellation ends: a late cancellation is charged without anyone accepting the penalty');
  }
  const evidence = `check_in ${show(r.check_in)}, check_out ${show(r.check_out)}, cancel_policy ${show(r.cancel_policy)}, penalty_date ${show(r.penalty_date)}`;
  if (problems.length > 0) return fail('book-stay-terms', `${problems.join('; ')} (${evidence})`, breaks.join('; '));
  if (typeof r.cancel_policy !== 'boolean') {
    return warn(
      'book-stay-terms',
      `cancel_policy is not a boolean (${evidence})`,
      'the guard cannot tell a refundable booking from a non-refundable one and relies on the order system',
    );
  }
  const day = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString().slice(0, 10));
  const wrongDays = [
    input.checkin !== undefined && day(checkIn) !== input.checkin ? `check-in ${day(checkIn)} (searched ${input.checkin})` : undefined,
    input.checkout !== undefined && day(checkOut) !== input.checkout ? `check-out ${day(checkOut)} (searched ${input.checkout})` : undefined,
  ].filter((s) => s !== undefined);
  if (wrongDays.length > 0) {
    return warn(
      'book-stay-terms',
      `${wrongDays.join(', ')} (${evidence})`,
      'the guard schedules reconfirmation and refuses late cancellations by these dates; check the time zone the supplier writes them in',
    );
  }
  return ok('book-stay-terms', `the guard can read the terms: ${evidence}`);
}

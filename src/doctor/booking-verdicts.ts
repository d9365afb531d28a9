/** Verdicts on the opt-in test booking, step by step. Pure. */
import { type CreateBookingResponse, BookingStatus } from '../hotel-api/booking';
import type { CancelResult } from '../hotel-api/cancel';
import type { PriceCheckResponse } from '../hotel-api/price-check';
import type { RetrieveResponse } from '../hotel-api/retrieve';
import { parseInstant } from '../shared/dates';
import type { ReadOutcome } from './answer-verdicts';
import { type CheckResult, resultsOf } from './check-result';
import { isRecord } from './unknown-fields';

/** `book-custom-field`: the order id sent in `field` comes back from retrieve. */
export function customFieldVerdict(input: {
  readonly field: string;
  readonly sent: string;
  readonly retrieved: unknown;
}): CheckResult {
  const { ok, fail } = resultsOf('book-custom-field');
  const { field, sent, retrieved } = input;
  const value = isRecord(retrieved) ? retrieved[field] : undefined;
  if (value === sent) {
    return ok(`${field} came back from retrieve as sent (${sent})`);
  }
  const got =
    value !== undefined
      ? `${field} = ${JSON.stringify(value).slice(0, 60)}`
      : `custom_fields = ${JSON.stringify(retrieved ?? null).slice(0, 80)}`;
  return fail(
    `sent ${field} = ${sent}; retrieve shows ${got}`,
    'supplier bookings cannot be traced back to their order: after a lost booking answer, reconciliation cannot find the booking by its order id. Try another BOOKING_ORDER_ID_FIELD',
  );
}

const show = (v: unknown) => JSON.stringify(v ?? null).slice(0, 60);

/** `book-stay-terms`: check-in, check-out, cancel policy and penalty date, as the guard reads them. */
export function stayTermsVerdict(input: {
  readonly retrieved: Pick<
    RetrieveResponse,
    'check_in' | 'check_out' | 'cancel_policy' | 'penalty_date'
  >;
  /** The stay searched for, when known (`YYYY-MM-DD`). */
  readonly checkin?: string;
  readonly checkout?: string;
}): CheckResult {
  const { ok, warn, fail } = resultsOf('book-stay-terms');
  const r = input.retrieved;
  const problems: string[] = [];
  const breaks: string[] = [];
  const checkIn = parseInstant(r.check_in);
  const checkOut = parseInstant(r.check_out);
  if (checkIn === undefined || checkOut === undefined) {
    problems.push(`check_in ${show(r.check_in)} / check_out ${show(r.check_out)} unreadable`);
    breaks.push(
      'the guard cannot tell when the stay starts: no reconfirmation before check-in, cancellations after it not refused',
    );
  }
  if (r.cancel_policy === true && parseInstant(r.penalty_date) === undefined) {
    problems.push(`penalty_date ${show(r.penalty_date)} unreadable for a refundable booking`);
    breaks.push(
      'the guard cannot tell when free cancellation ends: a late cancellation is charged without anyone accepting the penalty',
    );
  }
  const evidence = `check_in ${show(r.check_in)}, check_out ${show(r.check_out)}, cancel_policy ${show(r.cancel_policy)}, penalty_date ${show(r.penalty_date)}`;
  if (problems.length > 0) return fail(`${problems.join('; ')} (${evidence})`, breaks.join('; '));
  if (typeof r.cancel_policy !== 'boolean') {
    return warn(
      `cancel_policy is not a boolean (${evidence})`,
      'the guard cannot tell a refundable booking from a non-refundable one and relies on the order system',
    );
  }
  const wrong = (what: string, ms: number | undefined, searched: string | undefined) => {
    const day = ms === undefined ? undefined : new Date(ms).toISOString().slice(0, 10);
    return searched === undefined || day === searched
      ? []
      : [`${what} ${day} (searched ${searched})`];
  };
  const wrongDays = [
    ...wrong('check-in', checkIn, input.checkin),
    ...wrong('check-out', checkOut, input.checkout),
  ];
  if (wrongDays.length > 0) {
    return warn(
      `${wrongDays.join(', ')} (${evidence})`,
      'the guard schedules reconfirmation and refuses late cancellations by these dates; check the time zone the supplier writes them in',
    );
  }
  return ok(`the guard can read the terms: ${evidence}`);
}

/** What the supplier's price check of the option to book came to. */
export function bookPriceCheckVerdict(outcome: ReadOutcome<PriceCheckResponse>): {
  result: CheckResult;
  token?: string;
} {
  const { ok, warn, fail } = resultsOf('book-price-check');
  if (!outcome.ok) {
    const { code, message } = outcome.error;
    const breaks = 'no option can be price-checked, so none can be booked';
    return { result: fail(`${code}: ${message}`, breaks) };
  }
  const v = outcome.value;
  const price = v.price === null ? '' : ` at ${v.price.net} ${v.price.currency}`;
  if (v.booking_id === null) {
    const breaks =
      'nothing in the product if the option sold out; run again with another option or dates';
    const evidence = `${v.status}${price} without a booking_id: nothing to book`;
    return { result: warn(evidence, breaks) };
  }
  return { result: ok(`${v.status}${price}, booking_id given`), token: v.booking_id };
}

/** The booking call: a 201 with a known status and a numeric id. */
export function bookCreateVerdict(input: {
  readonly outcome: ReadOutcome<CreateBookingResponse>;
  readonly orderId: string;
}): CheckResult {
  const { ok, fail } = resultsOf('book-create');
  const { outcome, orderId } = input;
  if (outcome.ok) {
    return ok(
      `booking ${outcome.value.booking_id} made with status ${outcome.value.status} (order ${orderId})`,
    );
  }
  const e = outcome.error;
  return fail(
    `${e.code}${e.statusCode === undefined ? '' : ` (${e.statusCode})`}: ${e.message}${e.ambiguous ? `; a booking may exist at the supplier under order ${orderId}` : ''}`,
    e.ambiguous
      ? 'every booking with this answer waits for an operator (NEEDS_RECONCILIATION)'
      : 'bookings fail',
  );
}

/** The retrieve of the booking just made: readable, with a status the workflows know. */
export function bookRetrieveVerdict(input: {
  readonly outcome: ReadOutcome<RetrieveResponse>;
  readonly bookingId: number;
}): CheckResult {
  const { ok, fail } = resultsOf('book-retrieve');
  const { outcome, bookingId } = input;
  if (!outcome.ok) {
    return fail(
      `retrieve of booking ${bookingId}: ${outcome.error.code}: ${outcome.error.message}`,
      'bookings answered PROCESSING are never confirmed, and the guard cannot reconfirm',
    );
  }
  const status = outcome.value.status;
  if (!(BookingStatus.options as readonly string[]).includes(status)) {
    return fail(
      `retrieve of booking ${bookingId} shows status ${JSON.stringify(status)}, not one of ${BookingStatus.options.join(', ')}`,
      'the booking workflow cannot tell whether the booking is confirmed',
    );
  }
  return ok(`retrieve of booking ${bookingId} shows status ${status}`);
}

/** How the cancellation of the test booking ended. */
export interface CancelSeen {
  readonly bookingId: number;
  readonly answer: ReadOutcome<CancelResult>;
  /** Statuses retrieve showed while a 202 was followed, in order. */
  readonly polled: readonly string[];
}

/** `book-cancel`: cancelled (204), or a 202 followed to CANCELLED by retrieve. */
export function bookCancelVerdict(seen: CancelSeen): { result: CheckResult; cancelled: boolean } {
  const { ok, fail } = resultsOf('book-cancel');
  const { answer, bookingId, polled } = seen;
  const verdict = (result: CheckResult) => ({ result, cancelled: result.verdict === 'ok' });
  if (!answer.ok) {
    const { code, message } = answer.error;
    const breaks = 'bookings cannot be cancelled through the product';
    return verdict(fail(`cancel of booking ${bookingId}: ${code}: ${message}`, breaks));
  }
  if (answer.value.outcome === 'CANCELLED') {
    return verdict(ok(`booking ${bookingId} cancelled (204)`));
  }
  const path = `202 (${answer.value.status}${answer.value.message === null ? '' : `: ${answer.value.message}`}), then retrieve showed ${polled.length === 0 ? 'nothing' : polled.join(' → ')}`;
  if (polled.at(-1) === 'CANCELLED') {
    return verdict(ok(`booking ${bookingId} cancelled: ${path}`));
  }
  return verdict(
    fail(
      `booking ${bookingId} not seen CANCELLED: ${path}`,
      'cancellations stay unconfirmed: the cancel workflow keeps polling and operators must check by hand',
    ),
  );
}

/**
 * The opt-in test booking (`doctor --book`): the real path once, through the product's client,
 * with an obvious test guest. A booking not seen cancelled is reported (`leftBehind`), never silently.
 */
import type { BookingRequestBody, CustomFieldName } from '../hotel-api/booking';
import {
  bookCancelVerdict,
  bookCreateVerdict,
  bookPriceCheckVerdict,
  bookRetrieveVerdict,
  customFieldVerdict,
  stayTermsVerdict,
} from './booking-verdicts';
import type { CheckResult } from './check-result';
import { type SupplierSession, attempt } from './supplier-session';

/** The guest of every test booking: nobody's personal data. */
export const TEST_GUEST = {
  firstName: 'Test',
  lastName: 'Doctor-Do-Not-Honour',
  phonePrefix: '+00',
  phone: '0000000000',
} as const;

export interface TestBooking {
  /** The room option to book (an availability room `id`). */
  readonly optionId: string;
  /** Rooms in the option (one `room_detail` entry each). */
  readonly rooms: number;
  /** The order id written into the custom field. */
  readonly orderId: string;
  /** The custom field that carries it (BOOKING_ORDER_ID_FIELD). */
  readonly orderIdField: CustomFieldName;
  /** The stay searched for, when known, to compare with retrieve. */
  readonly checkin?: string;
  readonly checkout?: string;
  /** Retrieves while a 202 cancel is followed, and the pause between them. */
  readonly cancelPolls?: number;
  readonly cancelPollMs?: number;
}

/** A booking the doctor made and could not see cancelled. */
export interface LeftBehind {
  /** `undefined` when the booking answer was lost: only the order id can find it. */
  readonly bookingId?: number;
  readonly orderId: string;
  readonly reason: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function requestBody(b: TestBooking): BookingRequestBody {
  return {
    room_detail: Array.from({ length: b.rooms }, () => ({
      lead_first_name: TEST_GUEST.firstName,
      lead_last_name: TEST_GUEST.lastName,
      notes: 'Test booking made by hotel-booking doctor; it is cancelled at once.',
    })),
    phone_number_prefix: TEST_GUEST.phonePrefix,
    phone_number: TEST_GUEST.phone,
    email: null,
    custom_fields: { [b.orderIdField]: b.orderId },
  };
}

/** Cancels and, after a 202, retrieves until CANCELLED or the polls run out. */
async function cancelAndFollow(session: SupplierSession, b: TestBooking, bookingId: number) {
  const answer = await attempt(() => session.client.cancelBooking({ bookingId }));
  const polled: string[] = [];
  if (answer.ok && answer.value.outcome === 'PENDING') {
    for (let i = 0; i < (b.cancelPolls ?? 10); i++) {
      await sleep(b.cancelPollMs ?? 1_000);
      const r = await attempt(() => session.client.retrieveBooking({ bookingId }));
      polled.push(r.ok ? r.value.status : r.error.code);
      if (r.ok && r.value.status === 'CANCELLED') break;
    }
  }
  return bookCancelVerdict({ bookingId, answer, polled });
}

/** Runs the test booking and reports each step; the booking is cancelled whatever happens. */
export async function runTestBooking(
  session: SupplierSession,
  b: TestBooking,
): Promise<{ results: CheckResult[]; leftBehind?: LeftBehind }> {
  const client = session.client;
  const price = bookPriceCheckVerdict(
    await attempt(() => client.priceCheck({ optionId: b.optionId })),
  );
  if (price.token === undefined) return { results: [price.result] };
  const token = price.token;
  const made = await attempt(() => client.createBooking({ optionId: token, body: requestBody(b) }));
  const created = bookCreateVerdict({ outcome: made, orderId: b.orderId });
  if (!made.ok) {
    // Ambiguous: a booking may exist, which only the order id can find.
    const leftBehind = { orderId: b.orderId, reason: `the booking answer was ${made.error.code}` };
    return { results: [price.result, created], ...(made.error.ambiguous ? { leftBehind } : {}) };
  }
  const bookingId = made.value.booking_id;
  const retrieved = await attempt(() => client.retrieveBooking({ bookingId }));
  const results = [price.result, created, bookRetrieveVerdict({ outcome: retrieved, bookingId })];
  if (retrieved.ok) {
    results.push(
      customFieldVerdict({
        field: b.orderIdField,
        sent: b.orderId,
        retrieved: retrieved.value.custom_fields,
      }),
      stayTermsVerdict({ retrieved: retrieved.value, checkin: b.checkin, checkout: b.checkout }),
    );
  }
  const cancel = await cancelAndFollow(session, b, bookingId);
  results.push(cancel.result);
  if (cancel.cancelled) return { results };
  return { results, leftBehind: { bookingId, orderId: b.orderId, reason: cancel.result.evidence } };
}

/**
 * The bookings the bench makes: a `bookRoom` input for a simulator scenario, and the same supplier
 * calls made directly with the hotel API client (the overhead baseline).
 */
import type { BookRoomInput } from '../../src/shared/booking-contract';
import type { HotelApiClient } from '../../src/hotel-api';
import { scenarioOptionId, type ScenarioName } from '../../tools/simulator';

let counter = 0;
const RUN = Date.now().toString(36);

/** A fresh, valid order id (no personal data: it becomes part of a workflow id). */
export function benchOrderId(tag: string): string {
  counter += 1;
  return `bench-${tag}-${RUN}-${counter}`;
}

const GUEST = { firstName: 'Ada', lastName: 'Lovelace' } as const;
const CONTACT = { phonePrefix: '+39', phone: '3331234567', email: 'ada@example.com' } as const;

/** What the input's `guard` is when the bench runs without guards (`BENCH_GUARD=0`). */
export const NO_GUARD = { guard: { enabled: false } } as const;

/** A `bookRoom` input for `scenario` (the option id carries it; no availability call needed). */
export function benchBookingInput(
  scenario: ScenarioName,
  extra: Partial<BookRoomInput> & { param?: number } = {},
): BookRoomInput {
  const { param, ...rest } = extra;
  return {
    orderId: benchOrderId(scenario),
    optionId: scenarioOptionId(scenario, param !== undefined ? { param } : {}),
    rooms: [{ ...GUEST }],
    contact: { ...CONTACT },
    ...rest,
  };
}

/**
 * What `bookRoom` asks of the supplier for an option that confirms at once, called directly:
 * `GET /price-check`, then `POST /booking` with the same body the activity sends.
 */
export async function directBooking(api: HotelApiClient, input: BookRoomInput): Promise<void> {
  const pc = await api.priceCheck({ optionId: input.optionId });
  if (!pc.booking_id) throw new Error(`price check ${pc.status} without a booking_id`);
  const r = await api.createBooking({
    optionId: pc.booking_id,
    body: {
      room_detail: input.rooms.map((room) => ({
        lead_first_name: room.firstName,
        lead_last_name: room.lastName,
        notes: room.notes ?? null,
      })),
      phone_number_prefix: input.contact.phonePrefix,
      phone_number: input.contact.phone,
      email: input.contact.email ?? null,
      custom_fields: { custom_field_10: input.orderId },
    },
  });
  if (r.status !== 'CONFIRMED') throw new Error(`direct booking ended ${r.status}`);
}

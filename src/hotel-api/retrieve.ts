/** `GET /retrieve`: reads a booking by its numeric id. */
import { z } from 'zod';
import { endpointSpec, json200, prepared, type PreparedRequest } from './endpoint';
import { PositiveId, validateRequest } from './validation';

export const RETRIEVE_BOOKING = endpointSpec('GET', '/retrieve', 'read');

export const RetrieveQuery = z.strictObject({ booking_id: PositiveId });

export interface RetrieveParams {
  readonly bookingId: number;
}

/**
 * The schemas require only what the workflows read (`booking_id`, `status`, and the price when
 * present): a supplier that echoes `null` for a field we sent as null (`email`, a room's
 * `special_requests`), or drops one we never read, must not fail every poll of a live booking.
 * The seed's other fields are typed loosely, `null` and absent accepted.
 */
export const RetrievePrice = z.looseObject({
  total_amount: z.string(),
  currency: z.string(),
  payment_status: z.string().nullish(),
});

export const RetrieveRoom = z.looseObject({
  room_id: z.number().int().nullish(),
  /** The lead guest's first name. */
  lead_name: z.string().nullish(),
  lead_last_name: z.string().nullish(),
  special_requests: z.string().nullish(),
  room_name: z.string().nullish(),
  bed_type: z.string().nullish(),
  treatments: z
    .array(z.looseObject({ id: z.string().nullish(), name: z.unknown() }))
    .nullish()
    .transform((v) => v ?? []),
  number_of_adults: z.number().int().nullish(),
  child_ages: z.array(z.number().int()).nullish(),
});

/**
 * The 200 answer. `status` stays a string: the seed lists booking statuses but not which the
 * retrieve answer uses, and callers compare against `BookingStatus` themselves.
 */
export const RetrieveResponse = z.looseObject({
  booking_id: PositiveId,
  status: z.string(),
  guest_contact_number: z.string().nullish(),
  email: z.string().nullish(),
  check_in: z.string().nullish(),
  check_out: z.string().nullish(),
  cancel_policy: z.boolean().nullish(),
  penalty_date: z.unknown().optional(),
  price: RetrievePrice.nullish(),
  package: z.boolean().nullish(),
  created_at: z.string().nullish(),
  custom_fields: z.unknown().optional(),
  rooms: z
    .array(RetrieveRoom)
    .nullish()
    .transform((v) => v ?? []),
});
export type RetrieveResponse = z.infer<typeof RetrieveResponse>;

const RESPONSES = json200(RetrieveResponse);

export function prepareRetrieve(params: RetrieveParams): PreparedRequest<RetrieveResponse> {
  const q = validateRequest(RetrieveQuery, { booking_id: params.bookingId }, RETRIEVE_BOOKING);
  return prepared(RETRIEVE_BOOKING, [['booking_id', String(q.booking_id)]], RESPONSES, {
    // An answer about another booking would have the workflow poll, confirm or cancel the wrong one.
    verify: (r) =>
      r.booking_id === q.booking_id
        ? undefined
        : `is about booking ${r.booking_id}, not booking ${q.booking_id}`,
  });
}

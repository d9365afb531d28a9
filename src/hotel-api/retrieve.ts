/** `GET /retrieve`: reads a booking by its numeric id. */
import { z } from 'zod';
import type { EndpointSpec, PreparedRequest } from './endpoint';
import { PositiveId, validateRequest } from './validation';

export const RETRIEVE_BOOKING = {
  method: 'GET',
  endpoint: '/retrieve',
  timeout: 'read',
} as const satisfies EndpointSpec;

export const RetrieveQuery = z.strictObject({ booking_id: PositiveId });
export type RetrieveQuery = z.infer<typeof RetrieveQuery>;

export interface RetrieveParams {
  readonly bookingId: number;
}

export const RetrievePrice = z.looseObject({
  total_amount: z.string(),
  currency: z.string(),
  payment_status: z.string(),
});
export type RetrievePrice = z.infer<typeof RetrievePrice>;

export const RetrieveTreatment = z.looseObject({ id: z.string(), name: z.unknown() });
export type RetrieveTreatment = z.infer<typeof RetrieveTreatment>;

export const RetrieveRoom = z.looseObject({
  room_id: z.number().int(),
  /** The lead guest's first name. */
  lead_name: z.string(),
  lead_last_name: z.string(),
  special_requests: z.string(),
  room_name: z.string(),
  bed_type: z.string(),
  treatments: z.array(RetrieveTreatment).default([]),
  number_of_adults: z.number().int(),
  child_ages: z.array(z.number().int()),
});
export type RetrieveRoom = z.infer<typeof RetrieveRoom>;

/**
 * The 200 answer. `status` stays a string: the seed lists booking statuses but not which the
 * retrieve answer uses, and callers compare against `BookingStatus` themselves.
 */
export const RetrieveResponse = z.looseObject({
  booking_id: z.number().int(),
  status: z.string(),
  guest_contact_number: z.string(),
  email: z.string(),
  check_in: z.string(),
  check_out: z.string(),
  cancel_policy: z.boolean(),
  /** Required but untyped by the seed (zod still demands the key). */
  penalty_date: z.unknown(),
  price: RetrievePrice,
  package: z.boolean(),
  created_at: z.string(),
  custom_fields: z.unknown().optional(),
  rooms: z.array(RetrieveRoom).default([]),
});
export type RetrieveResponse = z.infer<typeof RetrieveResponse>;

/** Success statuses and how to read them; built once, not per call. */
const RESPONSES: PreparedRequest<RetrieveResponse>['responses'] = {
  200: { json: RetrieveResponse },
};

/** Validates and builds the request; throws INVALID_REQUEST naming the field. */
export function prepareRetrieve(params: RetrieveParams): PreparedRequest<RetrieveResponse> {
  const q = validateRequest(RetrieveQuery, { booking_id: params.bookingId }, RETRIEVE_BOOKING);
  return {
    ...RETRIEVE_BOOKING,
    path: RETRIEVE_BOOKING.endpoint,
    query: [['booking_id', String(q.booking_id)]],
    responses: RESPONSES,
  };
}

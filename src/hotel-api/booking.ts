/**
 * `POST /booking`: creates a booking. Not idempotent and without an idempotency key, which is
 * why its failures are classified so carefully (see errors.ts).
 */
import { z } from 'zod';
import { endpointSpec, prepared, type PreparedRequest } from './endpoint';
import { NonEmptyString, PositiveId, validateRequest } from './validation';
import { CUSTOM_FIELD_NAMES } from '../shared/booking-values';

export const CREATE_BOOKING = endpointSpec('POST', '/booking', 'booking');

export const CreateBookingQuery = z.strictObject({ option_id: NonEmptyString });

/** The ten custom field names the supplier accepts, `custom_field_1`..`custom_field_10`. */
export type CustomFieldName = `custom_field_${1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9 | 10}`;

const customFieldShape = Object.fromEntries(
  CUSTOM_FIELD_NAMES.map((name) => [name, z.string().optional()]),
) as Record<CustomFieldName, z.ZodOptional<z.ZodString>>;

/**
 * Up to 10 string fields named `custom_field_1`..`custom_field_10`; any other name is rejected.
 * (The seed also allows a bare field name as a string; it carries no value, so we never send it.)
 */
export const CustomFields = z.strictObject(customFieldShape);

export const RoomRequest = z.strictObject({
  lead_first_name: NonEmptyString,
  lead_last_name: NonEmptyString,
  /** Special requests for the room. */
  notes: z.string().nullable().optional(),
});

/** The booking body as sent; unknown keys are rejected so a typo never silently drops data. */
export const BookingRequestBody = z.strictObject({
  room_detail: z.array(RoomRequest).min(1, 'needs at least one room'),
  phone_number_prefix: NonEmptyString,
  phone_number: NonEmptyString,
  // RFC 5321 caps a path at 254 characters; the supplier rejects longer addresses.
  email: z
    .email('must be an e-mail address')
    .max(254, 'at most 254 characters')
    .nullable()
    .optional(),
  custom_fields: CustomFields.optional(),
});
export type BookingRequestBody = z.infer<typeof BookingRequestBody>;

export interface CreateBookingParams {
  /** The `booking_id` returned by the price check. */
  readonly optionId: string;
  readonly body: BookingRequestBody;
}

/** Booking statuses (the seed's States and transitions). */
export const BookingStatus = z.enum([
  'PROCESSING',
  'WAITING_CONFIRMATION',
  'CONFIRMED',
  'NOT_CONFIRMED',
  'PENDING',
  'CANCELLED',
]);

/**
 * The 201 answer. The status is strict: an unknown value is a CONTRACT error, which for a
 * booking means reconciliation rather than a guess. So is an id that no booking can have (0, a
 * negative or an unsafe number): taken as the booking, it would name none the supplier holds.
 */
export const CreateBookingResponse = z.looseObject({
  status: BookingStatus,
  booking_id: PositiveId,
});
export type CreateBookingResponse = z.infer<typeof CreateBookingResponse>;

// 201 is documented; a 200 with the same body is just as unambiguous a success, and rejecting it
// would push a made booking into reconciliation.
const RESPONSES: PreparedRequest<CreateBookingResponse>['responses'] = {
  201: { json: CreateBookingResponse },
  200: { json: CreateBookingResponse },
};

export function prepareCreateBooking(
  params: CreateBookingParams,
): PreparedRequest<CreateBookingResponse> {
  const q = validateRequest(CreateBookingQuery, { option_id: params.optionId }, CREATE_BOOKING);
  const body = validateRequest(BookingRequestBody, params.body, CREATE_BOOKING);
  return prepared(CREATE_BOOKING, [['option_id', q.option_id]], RESPONSES, { body });
}

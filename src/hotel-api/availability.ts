/** `GET /properties/availability`: rooms per property for dates and occupancy. */
import { z } from 'zod';
import { endpointSpec, json200, type PreparedRequest } from './endpoint';
import { IsoDate, Occupancy, PositiveId, validateRequest } from './validation';

export const AVAILABILITY = endpointSpec('GET', '/properties/availability', 'search');

/** The supplier's limit of property ids per search. */
export const MAX_PROPERTY_IDS = 200;

/** The query as sent; arrays travel as repeated keys (`property_id=1&property_id=2`). */
export const AvailabilityQuery = z
  .strictObject({
    checkin: IsoDate,
    checkout: IsoDate,
    property_id: z
      .array(PositiveId)
      .min(1, 'needs at least one property id')
      .max(MAX_PROPERTY_IDS, `at most ${MAX_PROPERTY_IDS} property ids per search`),
    occupancy: z.array(Occupancy).min(1, 'needs at least one room'),
  })
  .superRefine((q, ctx) => {
    // Both are valid YYYY-MM-DD here, so string order is date order.
    if (q.checkout <= q.checkin) {
      ctx.addIssue({ code: 'custom', path: ['checkout'], message: 'must be after checkin' });
    }
  });
export type AvailabilityQuery = z.infer<typeof AvailabilityQuery>;

/** What callers pass to `HotelApiClient.availability`. */
export interface AvailabilityParams {
  /** `YYYY-MM-DD`. */
  readonly checkin: string;
  /** `YYYY-MM-DD`, after `checkin`. */
  readonly checkout: string;
  /** 1 to 200 property ids. */
  readonly propertyIds: readonly number[];
  /** One string per room: `2` or `2-5,7` (adults, then child ages 0–17). */
  readonly occupancy: readonly string[];
}

/** A rate's price; the four amounts are required decimal strings, the currency optional. */
export const Price = z.looseObject({
  without_tax: z.string(),
  taxes: z.string(),
  sales_taxes: z.string(),
  net: z.string(),
  currency: z.string().optional(),
});
export type Price = z.infer<typeof Price>;

export const BedGroup = z.looseObject({ id: z.string(), description: z.string() });
export type BedGroup = z.infer<typeof BedGroup>;

export const RoomOccupancy = z.looseObject({
  adults: z.number().int(),
  children: z.array(z.number().int()).default([]),
});
export type RoomOccupancy = z.infer<typeof RoomOccupancy>;

export const Treatment = z.looseObject({ id: z.string(), name: z.string() });
export type Treatment = z.infer<typeof Treatment>;

/** One bookable room option; its `id` is the `option_id` of the price check. */
export const Room = z.looseObject({
  id: z.string(),
  number_of_rooms: z.number().int(),
  occupancy_of_rooms: z.array(RoomOccupancy),
  room_name: z.string(),
  status: z.string(),
  refundable: z.boolean(),
  /** Only for refundable rates: the latest free-cancellation time, ISO 8601. */
  cancel_penalties: z.unknown().optional(),
  package: z.boolean(),
  corporate: z.boolean(),
  bed_groups: z.array(BedGroup).default([]),
  price: Price,
  treatments: z.array(Treatment).default([]),
});
export type Room = z.infer<typeof Room>;

export const AvailabilityProperty = z.looseObject({
  property_id: z.string(),
  status: z.string(),
  rooms: z.array(Room).default([]),
});
export type AvailabilityProperty = z.infer<typeof AvailabilityProperty>;

export const AvailabilityResponse = z.looseObject({
  properties: z.array(AvailabilityProperty).default([]),
  /** Ids of requested properties that were not found. */
  warnings: z.array(z.string()).default([]),
});
export type AvailabilityResponse = z.infer<typeof AvailabilityResponse>;

const RESPONSES = json200(AvailabilityResponse);

/** Validates and builds the availability request; throws INVALID_REQUEST naming the field. */
export function prepareAvailability(
  params: AvailabilityParams,
): PreparedRequest<AvailabilityResponse> {
  const q = validateRequest(
    AvailabilityQuery,
    {
      checkin: params.checkin,
      checkout: params.checkout,
      property_id: params.propertyIds,
      occupancy: params.occupancy,
    },
    AVAILABILITY,
  );
  return {
    ...AVAILABILITY,
    path: AVAILABILITY.endpoint,
    query: [
      ['checkin', q.checkin],
      ['checkout', q.checkout],
      ...q.property_id.map((id) => ['property_id', String(id)] as const),
      ...q.occupancy.map((o) => ['occupancy', o] as const),
    ],
    responses: RESPONSES,
  };
}

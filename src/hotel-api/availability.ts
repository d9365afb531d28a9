/** `GET /properties/availability`: rooms per property for dates and occupancy. */
import { z } from 'zod';
import { endpointSpec, json200, prepared, type PreparedRequest } from './endpoint';
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

export const RoomOccupancy = z.looseObject({
  adults: z.number().int(),
  children: z.array(z.number().int()).default([]),
});

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
  bed_groups: z.array(z.looseObject({ id: z.string(), description: z.string() })).default([]),
  price: Price,
  treatments: z.array(z.looseObject({ id: z.string(), name: z.string() })).default([]),
});
export type Room = z.infer<typeof Room>;

export const AvailabilityProperty = z.looseObject({
  property_id: z.string(),
  status: z.string(),
  rooms: z.array(Room).default([]),
});

export const AvailabilityResponse = z.looseObject({
  properties: z.array(AvailabilityProperty).default([]),
  /** Ids of requested properties that were not found. */
  warnings: z.array(z.string()).default([]),
});
export type AvailabilityResponse = z.infer<typeof AvailabilityResponse>;

const RESPONSES = json200(AvailabilityResponse);

export function prepareAvailability(
  params: AvailabilityParams,
): PreparedRequest<AvailabilityResponse> {
  const { checkin, checkout, propertyIds, occupancy } = params;
  const query = { checkin, checkout, property_id: propertyIds, occupancy };
  const q = validateRequest(AvailabilityQuery, query, AVAILABILITY);
  return prepared(
    AVAILABILITY,
    [
      ['checkin', q.checkin],
      ['checkout', q.checkout],
      ...q.property_id.map((id) => ['property_id', String(id)] as const),
      ...q.occupancy.map((o) => ['occupancy', o] as const),
    ],
    RESPONSES,
  );
}

/** `GET /price-check`: re-prices a room option before booking. */
import { z } from 'zod';
import { Price } from './availability';
import { endpointSpec, json200, type PreparedRequest } from './endpoint';
import { NonEmptyString, validateRequest } from './validation';

export const PRICE_CHECK = endpointSpec('GET', '/price-check', 'read');

export const PriceCheckQuery = z.strictObject({ option_id: NonEmptyString });
export type PriceCheckQuery = z.infer<typeof PriceCheckQuery>;

export interface PriceCheckParams {
  /** A room `id` from availability. */
  readonly optionId: string;
}

export const PriceCheckStatus = z.enum([
  'AVAILABLE',
  'NOT AVAILABLE',
  'PRICE CHANGE',
  'POLICY CHANGE',
]);
export type PriceCheckStatus = z.infer<typeof PriceCheckStatus>;

/**
 * The price-check price. The seed lists all five fields as strings without singling any out (in
 * availability only `currency` is optional); the currency is required here because price-change
 * decisions compare it with the expected price.
 */
export const PriceCheckPrice = Price.extend({ currency: z.string() });
export type PriceCheckPrice = z.infer<typeof PriceCheckPrice>;

export const PriceCheckResponse = z.looseObject({
  status: PriceCheckStatus,
  /** The new price when it changed, otherwise null. */
  price: PriceCheckPrice.nullable().default(null),
  /** The value to send as `option_id` of POST /booking. */
  booking_id: z.string().nullable().default(null),
});
export type PriceCheckResponse = z.infer<typeof PriceCheckResponse>;

const RESPONSES = json200(PriceCheckResponse);

/** Validates and builds the request; throws INVALID_REQUEST naming the field. */
export function preparePriceCheck(params: PriceCheckParams): PreparedRequest<PriceCheckResponse> {
  const q = validateRequest(PriceCheckQuery, { option_id: params.optionId }, PRICE_CHECK);
  return {
    ...PRICE_CHECK,
    path: PRICE_CHECK.endpoint,
    query: [['option_id', q.option_id]],
    responses: RESPONSES,
  };
}

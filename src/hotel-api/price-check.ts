/** `GET /price-check`: re-prices a room option before booking. */
import { z } from 'zod';
import { Price } from './availability';
import { endpointSpec, json200, prepared, type PreparedRequest } from './endpoint';
import { NonEmptyString, validateRequest } from './validation';

export const PRICE_CHECK = endpointSpec('GET', '/price-check', 'read');

export const PriceCheckQuery = z.strictObject({ option_id: NonEmptyString });

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

/**
 * The price-check price. The seed lists all five fields as strings without singling any out (in
 * availability only `currency` is optional); the currency is required here because price-change
 * decisions compare it with the expected price.
 */
export const PriceCheckPrice = Price.extend({ currency: z.string() });

export const PriceCheckResponse = z.looseObject({
  status: PriceCheckStatus,
  /** The new price when it changed, otherwise null. */
  price: PriceCheckPrice.nullable().default(null),
  /** The value to send as `option_id` of POST /booking. */
  booking_id: z.string().nullable().default(null),
});
export type PriceCheckResponse = z.infer<typeof PriceCheckResponse>;

const RESPONSES = json200(PriceCheckResponse);

export function preparePriceCheck(params: PriceCheckParams): PreparedRequest<PriceCheckResponse> {
  const q = validateRequest(PriceCheckQuery, { option_id: params.optionId }, PRICE_CHECK);
  return prepared(PRICE_CHECK, [['option_id', q.option_id]], RESPONSES);
}

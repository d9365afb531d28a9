/**
 * The price of a booking, in the contract: what the order system expects (`expectedPrice`, a zod
 * schema), what the supplier's price check offers, and the decision a change waits on. Below both
 * contract modules (booking-contract.ts re-exports it; guard-contract.ts reads the booking's state
 * through booking-state.ts), so neither imports the other for it.
 */
import { z } from 'zod';
import { matching } from './absent';
import { CURRENCY_RE, DECIMAL_RE } from './booking-values';

export const PriceSchema = z.strictObject({
  net: matching(DECIMAL_RE, "a decimal amount as a string, e.g. '120.50'").describe(
    "the net amount as a decimal string, e.g. '120.50'",
  ),
  currency: matching(CURRENCY_RE, "an ISO 4217 code such as 'EUR'").describe(
    "the ISO 4217 currency code, e.g. 'EUR'",
  ),
});
export type Price = z.infer<typeof PriceSchema>;

/** The supplier's full price record, as the price check returns it. */
export interface SupplierPrice {
  readonly net: string;
  /** The seed does not mark it required: a price without one is never auto-accepted. */
  readonly currency?: string | undefined;
  readonly taxes?: string;
  readonly sales_taxes?: string;
  readonly without_tax?: string;
}

export interface PriceDecision {
  readonly status: 'PRICE CHANGE' | 'POLICY CHANGE' | 'AVAILABLE';
  readonly expected?: Price;
  readonly offered?: SupplierPrice;
  readonly increasePercent?: number;
  readonly deadline: string;
}

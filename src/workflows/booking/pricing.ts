/** Price arithmetic for the price-change decision. Pure, exact to the cent. */
import type { Price, SupplierPrice } from '../../shared/booking-contract';

function cents(amount: string): number | undefined {
  const n = Number(amount);
  return Number.isFinite(n) ? Math.round(n * 100) : undefined;
}

/** How much `offered` is above `reference`, in percent; undefined when they cannot be compared. */
export function increasePercent(
  reference: Price | SupplierPrice | undefined,
  offered: SupplierPrice | null | undefined,
): number | undefined {
  if (!reference || !offered || reference.currency !== offered.currency) return undefined;
  const before = cents(reference.net);
  const after = cents(offered.net);
  if (before === undefined || after === undefined || before <= 0) return undefined;
  return ((after - before) / before) * 100;
}

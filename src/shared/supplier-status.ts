/**
 * How to read a supplier booking status (seed, "States and transitions"), pure: the one place
 * that says which statuses are final. Activities (when to stop polling) and workflows (the
 * outcome) both read it.
 */
import { PENDING_SUPPLIER_STATUSES } from './booking-values';

/** The statuses after which the booking does not change on its own. */
export const FINAL_SUPPLIER_STATUSES: readonly string[] = [
  'CONFIRMED',
  'NOT_CONFIRMED',
  'CANCELLED',
];

/**
 * `final`: the booking is decided; `pending`: the supplier is still working on it; `unknown`: a
 * status the seed does not list, which proves nothing, so it is polled like a pending one.
 */
export function supplierStatusKind(status: string): 'final' | 'pending' | 'unknown' {
  if (FINAL_SUPPLIER_STATUSES.includes(status)) return 'final';
  if (PENDING_SUPPLIER_STATUSES.includes(status)) return 'pending';
  return 'unknown';
}

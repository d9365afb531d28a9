/**
 * The booking's state as the `bookingState` query answers it while `bookRoom` decides, and its
 * last error. Types only, below both contract modules: guard-contract.ts builds the order's state
 * on it, booking-contract.ts re-exports it.
 */
import type { BookingOutcome, BookingPhase } from './booking-values';
import type { PriceDecision, SupplierPrice } from './price';

export interface BookingError {
  /** The hotel API client's code (e.g. `AUTH_INVALID`) or one of the workflow's own. */
  readonly code: string;
  readonly message: string;
}

export interface BookingState {
  readonly orderId: string;
  readonly phase: BookingPhase;
  readonly supplierStatus?: string;
  readonly bookingId?: number;
  readonly price?: SupplierPrice;
  readonly lastError?: BookingError & { readonly at: string };
  /** What is waiting for `approvePriceChange`, while `AWAITING_APPROVAL`. */
  readonly pendingDecision?: PriceDecision;
  readonly cancelRequested: boolean;
  readonly outcome?: BookingOutcome;
}

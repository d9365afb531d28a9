/** Types below the guard's run (guard-run.ts) and home (guard-home.ts), which both use them. */
import type { BookingTerms } from '../../activities/guard';
import type { BookingError } from '../../shared/booking-contract';
import type { CancellationTerms, GuardFlag, OrderState } from '../../shared/guard-contract';
import type { GuardPhase } from '../../shared/guard-values';
import type { BookingRead } from './guard-decisions';

/** What a read of the booking's terms says. */
export type TermsRead = BookingRead & { readonly terms?: BookingTerms };

/** Everything the guard knows, carried across `continueAsNew`. */
export interface Carried {
  phase: GuardPhase;
  supplierStatus?: string;
  checkIn?: string;
  checkOut?: string;
  checkInAt?: number;
  checkOutAt?: number;
  terms: CancellationTerms;
  reconfirmAt: number[];
  reconfirmations: { at: string; status: string }[];
  flag?: GuardFlag;
  autoCancel?: { at?: string; kept: boolean; done: boolean };
  cancellation?: OrderState['cancellation'];
  refusal?: { at: string; message: string };
  lastError?: BookingError & { at: string };
  /** When `order.free_cancellation_ending` was announced (order events on). */
  endingAnnouncedAt?: number;
  /** The last order event's sequence (order events on). */
  lastEventSequence?: number;
}

/** Where a guard lives, what its home gives it, and what it carries across `continueAsNew`. */
import type { BookingTerms } from '../../activities/guard';
import type { BookingError } from '../../shared/booking-contract';
import type {
  CancellationTerms,
  GuardBookingParams,
  GuardFlag,
  OrderState,
} from '../../shared/guard-contract';
import type { GuardPhase } from '../../shared/guard-values';
import { OrderEventOutbox } from '../order-events/order-event-outbox';
import type { SearchAttributes } from '../search-attribute-writer';
import type { BookingRead } from './guard-decisions';
import type { GuardRun } from './guard-run';

/**
 * Where a guard lives: in its order's workflow (../booking/book-room.ts), with the booking's
 * writer and outbox, or in a workflow of its own (earlier versions). The home owns how the
 * booking's terms are first read when the booking's last read did not hold them.
 */
export interface GuardHome {
  readonly searchAttributes: SearchAttributes;
  readonly events: OrderEventOutbox | undefined;
  readTerms(run: GuardRun): Promise<TermsRead>;
  /** Called as the guard ends, before its last writes go out. */
  closing?(run: GuardRun): void;
}

/** What a read of the booking's terms says. */
export type TermsRead = BookingRead & { readonly terms?: BookingTerms };

/** The outbox of a guard that starts from its input (continued as new, or in a workflow of its own). */
export function guardOutbox(params: GuardBookingParams): OrderEventOutbox | undefined {
  if (!params.orderEvents) return undefined;
  const carried = params.carried as Pick<Carried, 'lastEventSequence'> | undefined;
  return new OrderEventOutbox(
    params.orderId,
    carried?.lastEventSequence ?? params.orderEvents.lastSequence,
  );
}

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

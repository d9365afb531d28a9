/**
 * The public contract of a booking's life after CONFIRMED: the order's guard (in its `bookRoom`
 * workflow; earlier versions ran it as `guardBooking`, id `guard-<orderId>`), its input policy (`guard` in the `bookRoom` input), its phases and
 * the order's one current truth (`OrderState`). Pure (zod and types only).
 * Names are stable: add fields freely, never rename.
 */
import { z } from 'zod';
import type {
  BookingError,
  BookingOutcome,
  BookingPhase,
  BookingState,
  CancellationOutcome,
} from './booking-contract';
import {
  DEFAULT_AUTO_CANCEL_MARGIN,
  DEFAULT_AUTO_CANCEL_NOTICE,
  DEFAULT_CANCELLATION_DEADLINE,
  DEFAULT_POLLING,
  DEFAULT_RECONFIRM_BEFORE,
} from '../config/defaults';
import { absent, matching } from './absent';
import { durationToMs } from './duration';
import { ORDER_ID_RE } from './booking-values';
import type { GuardPhase } from './guard-values';

export * from './guard-values';

/** A positive duration (`'30s'`, `'15m'`, `'48h'`, or ms), named `what` in the message. */
export const positiveDuration = (what: string) =>
  z.union([z.string(), z.number()]).refine((v) => {
    const ms = durationToMs(v);
    return ms !== undefined && ms > 0;
  }, `${what} must be a positive duration such as '30s', '15m', '48h' or a number of ms`);

const instant = (what: string) =>
  z.iso.datetime({
    offset: true,
    message: `${what}: an ISO 8601 instant, e.g. 2027-03-10T14:00:00Z`,
  });

/**
 * What the order system tells the guard (`bookRoom` input field `guard`). Every field is optional;
 * the supplier's retrieve (`check_in`, `check_out`, `cancel_policy`, `penalty_date`) fills in the
 * rest.
 */
export const GuardPolicySchema = z.strictObject({
  /**
   * `false`: the order is not guarded after CONFIRMED (no guard is started; bookRoom's result is
   * the last word). For callers that guard bookings themselves. @default true
   */
  enabled: absent(z.boolean().default(true)),
  /**
   * The room's `cancel_penalties` from availability (the price check does not return it). The
   * guard uses the EARLIEST of this and the supplier's `penalty_date`: a deadline read late never
   * makes a cancellation cost money.
   */
  freeCancellationUntil: absent(instant('freeCancellationUntil').optional()),
  /** When the guest may check in, as an instant (the hotel's local time). @default check-in date 00:00 UTC */
  checkInAt: absent(instant('checkInAt').optional()),
  /** When the stay ends, as an instant. @default the day after the check-out date, 00:00 UTC */
  checkOutAt: absent(instant('checkOutAt').optional()),
  /** Reconfirm the booking with the supplier this long before check-in. @default ['72h', '24h'] */
  reconfirmBefore: absent(
    z
      .array(positiveDuration('reconfirmBefore'))
      .max(6, 'at most 6 reconfirmation points')
      .default([...DEFAULT_RECONFIRM_BEFORE]),
  ),
  /**
   * A provisional order: cancel it automatically `autoCancelMargin` before free cancellation ends,
   * unless the order system sends the `keep` update first. @default false
   */
  autoCancelBeforePenalty: absent(z.boolean().default(false)),
  /** How long before the free-cancellation deadline the automatic cancellation runs. @default '6h' */
  autoCancelMargin: absent(
    positiveDuration('autoCancelMargin').default(DEFAULT_AUTO_CANCEL_MARGIN),
  ),
  /**
   * With order events on: the automatic cancellation runs no sooner than this after it was
   * announced (`order.free_cancellation_ending`), so the order system can send `keep` (but before
   * free cancellation ends, a minute's margin, when the deadline allows). @default '15m'
   */
  autoCancelNotice: absent(
    positiveDuration('autoCancelNotice').default(DEFAULT_AUTO_CANCEL_NOTICE),
  ),
});
export type GuardPolicyInput = z.input<typeof GuardPolicySchema>;
export type GuardPolicy = z.output<typeof GuardPolicySchema>;

/** Why a booking was flagged. */
export type FlagReason =
  'SUPPLIER_CANCELLED' | 'NOT_FOUND' | 'NOT_CONFIRMED' | 'UNREADABLE' | 'CANCELLATION_UNCONFIRMED';

/**
 * The order's one truth, whichever workflow holds it: `PENDING` while `bookRoom` decides; then
 * its outcome, or (after CONFIRMED) the guard's.
 */
export type OrderTruth =
  | 'PENDING'
  | 'CONFIRMED'
  | 'CANCELLATION_PENDING'
  | 'CANCELLED'
  | 'CANCELLED_BY_SUPPLIER'
  | 'NEEDS_ATTENTION'
  | 'STAY_COMPLETED'
  | Exclude<BookingOutcome, 'CONFIRMED' | 'CANCELLED'>;

export interface GuardFlag {
  readonly reason: FlagReason;
  readonly message: string;
  readonly at: string;
}

/** What the guard knows of the cancellation terms. */
export interface CancellationTerms {
  /** ISO instant; absent when unknown (then every cancellation needs `acceptPenalty`). */
  readonly freeCancellationUntil?: string;
  /** Where the deadline came from. */
  readonly source?: 'supplier' | 'order' | 'supplier+order';
  /** The supplier's `cancel_policy`: false for a non-refundable rate. */
  readonly refundable?: boolean;
}

/** The order's current state (`BookingClient.state`, CLI `status`, query `bookingState`). */
export interface OrderState extends Omit<BookingState, 'phase'> {
  readonly phase: BookingPhase | GuardPhase;
  readonly truth: OrderTruth;
  /** The part of the order's workflow that holds it: the booking, or (`guardBooking`) its guard. */
  readonly holder: 'bookRoom' | 'guardBooking';
  readonly workflowId: string;
  /** Whether that workflow is still running. */
  readonly open: boolean;
  readonly checkIn?: string;
  readonly checkInAt?: string;
  readonly checkOutAt?: string;
  readonly terms?: CancellationTerms;
  /** The next reconfirmation, ISO instant, while any is left. */
  readonly nextReconfirmationAt?: string;
  readonly reconfirmations?: readonly { readonly at: string; readonly status: string }[];
  readonly flag?: GuardFlag;
  /** `autoCancelBeforePenalty`: when it runs, or that the order system kept the booking. */
  readonly autoCancel?: { readonly at?: string; readonly kept: boolean; readonly done: boolean };
  readonly cancellation?: {
    readonly requestedAt: string;
    readonly by: 'update' | 'temporal' | 'auto';
    readonly reason?: string;
    readonly acceptPenalty: boolean;
    readonly outcome?: CancellationOutcome;
  };
  /** The last cancellation request that was refused, and why (e.g. the penalty). */
  readonly refusal?: { readonly at: string; readonly message: string };
}

/** What `bookRoom` hands over, and what `continueAsNew` carries. */
export const GuardBookingInputSchema = z.strictObject({
  orderId: matching(ORDER_ID_RE, 'an order id'),
  bookingId: z.number().int().positive('a positive supplier booking id'),
  /** The check-in date of the `bookRoom` input (YYYY-MM-DD), until the supplier's is read. */
  checkIn: z.iso.date('a date YYYY-MM-DD').optional(),
  guard: GuardPolicySchema.optional(),
  /** How long a cancellation may wait for the supplier (rule 4). @default '2h' */
  cancellationDeadline: positiveDuration('cancellationDeadline').default(
    DEFAULT_CANCELLATION_DEADLINE,
  ),
  polling: z
    .strictObject({
      initialInterval: positiveDuration('initialInterval').default(DEFAULT_POLLING.initialInterval),
      maximumInterval: positiveDuration('maximumInterval').default(DEFAULT_POLLING.maximumInterval),
      backoffCoefficient: z.number().min(1).max(10).default(DEFAULT_POLLING.backoffCoefficient),
    })
    .optional(),
  /**
   * `bookRoom` asked the supplier to cancel and the supplier had not confirmed it when bookRoom
   * ended CONFIRMED: the guard starts in `CANCELLATION_PENDING`, and a later read of CANCELLED is
   * ours, not the supplier's.
   */
  cancellationPending: z.boolean().optional(),
  /**
   * Order events are on (docs/order-events.md): the guard announces its changes, with sequences
   * after `lastSequence`, the booking's last. Set by the hand-over.
   */
  orderEvents: z.strictObject({ lastSequence: z.number().int().min(0) }).optional(),
  /**
   * A guard of an earlier version (its own workflow, `guard-<orderId>`) started by `bookRoom` in
   * the workflow task that decided CONFIRMED: it writes only what it learns and reads the terms
   * as a local activity (src/workflows/earlier-versions/guard-booking.ts). Unused in the order's
   * own workflow.
   */
  startedInOneTask: z.boolean().optional(),
  /**
   * The booking's status and terms as bookRoom's last supplier read held them (the poll that read
   * it CONFIRMED): the guard starts from them instead of reading the booking again.
   */
  terms: z
    .strictObject({
      status: z.string(),
      checkIn: z.string().nullable(),
      checkOut: z.string().nullable(),
      refundable: z.boolean().nullable(),
      penaltyDate: z.string().nullable(),
    })
    .optional(),
  /** The price `bookRoom` booked at, for the state. */
  price: z.looseObject({ net: z.string(), currency: z.string().optional() }).optional(),
  /** Carried across `continueAsNew`; never set by callers. */
  carried: z.record(z.string(), z.unknown()).optional(),
});
export type GuardBookingInput = z.input<typeof GuardBookingInputSchema>;
export type GuardBookingParams = z.output<typeof GuardBookingInputSchema>;

export interface GuardBookingResult {
  readonly orderId: string;
  readonly bookingId: number;
  /** The final phase: `CANCELLED`, `CANCELLED_BY_SUPPLIER` or `CHECKED_OUT`. */
  readonly phase: GuardPhase;
  readonly truth: OrderTruth;
  readonly reason: string;
  readonly state: OrderState;
  readonly error?: BookingError;
}

/**
 * The `cancel` update's argument, in every phase of the order (booking-contract.ts names it
 * `CancelRequestSchema`; defined here, where the contract modules' imports point).
 */
export const GuardCancelRequestSchema = z.strictObject({
  reason: absent(z.string().max(500).optional()),
  /**
   * Cancel even though free cancellation has ended (or is unknown): the penalty is accepted.
   * Before the decision nothing is at stake and it is ignored. @default false
   */
  acceptPenalty: absent(z.boolean().optional()),
});
export type GuardCancelRequest = z.infer<typeof GuardCancelRequestSchema>;

export const KeepRequestSchema = z.strictObject({ reason: absent(z.string().max(500).optional()) });
export type KeepRequest = z.infer<typeof KeepRequestSchema>;

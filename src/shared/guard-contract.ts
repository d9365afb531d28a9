/**
 * The public contract of a booking's life after CONFIRMED: the order's guard (in its `bookRoom`
 * workflow; earlier versions ran it as `guardBooking`, id `guard-<orderId>`), its input policy (`guard` in the `bookRoom` input), its phases and
 * the order's one current truth (`OrderState`). Pure (zod and types only).
 * Names are stable: add fields freely, never rename.
 */
import { z } from 'zod';
import { SUPPLIER_ACCOUNT_ID } from './supplier-accounts';
import type { BookingError, BookingState } from './booking-state';
import {
  DEFAULT_AUTO_CANCEL_MARGIN,
  DEFAULT_AUTO_CANCEL_NOTICE,
  DEFAULT_CANCELLATION_DEADLINE,
  DEFAULT_POLLING,
  DEFAULT_RECONFIRM_BEFORE,
} from '../config/defaults';
import { absent, matching } from './absent';
import { durationPattern } from './contract-patterns';
import { durationToMs } from './duration';
import {
  ORDER_ID_RE,
  type BookingOutcome,
  type BookingPhase,
  type CancellationOutcome,
} from './booking-values';
import type { GuardPhase } from './guard-values';

export * from './guard-values';

/**
 * A positive duration (`'30s'`, `'15m'`, `'48h'`, or ms), named `what` in the message. Decided by
 * `durationToMs`; the JSON Schema says the same with a pattern (contract-patterns.ts): a string
 * that rounds to 0 ms is refused.
 */
export const positiveDuration = (what: string) =>
  z
    .union([
      z.string().meta({ pattern: durationPattern() }),
      z.number().meta({ exclusiveMinimum: 0 }),
    ])
    .refine((v) => {
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
  /** For callers that guard bookings themselves. */
  enabled: absent(
    z
      .boolean()
      .default(true)
      .describe(
        'false: the order is not guarded after CONFIRMED (the workflow ends at the decision; its result is the last word)',
      ),
  ),
  /**
   * The guard uses the EARLIEST of this and the supplier's `penalty_date`: a deadline read late
   * never makes a cancellation cost money.
   */
  freeCancellationUntil: absent(
    instant('freeCancellationUntil')
      .optional()
      .describe(
        "when free cancellation ends (ISO 8601 instant with offset): the room's cancel_penalties from availability; the guard uses the earliest of this and the supplier's penalty_date",
      ),
  ),
  checkInAt: absent(
    instant('checkInAt')
      .optional()
      .describe(
        'when the guest may check in (ISO 8601 instant with offset, the hotel local time); unset: the check-in date at 00:00 UTC',
      ),
  ),
  checkOutAt: absent(
    instant('checkOutAt')
      .optional()
      .describe(
        'when the stay ends (ISO 8601 instant with offset); unset: the day after the check-out date, 00:00 UTC',
      ),
  ),
  reconfirmBefore: absent(
    z
      .array(positiveDuration('reconfirmBefore').describe('a duration before check-in'))
      .max(6, 'at most 6 reconfirmation points')
      .default([...DEFAULT_RECONFIRM_BEFORE])
      .describe(
        'reconfirm the booking with the supplier this long before check-in: at most 6 durations',
      ),
  ),
  autoCancelBeforePenalty: absent(
    z
      .boolean()
      .default(false)
      .describe(
        'a provisional order: cancel it automatically autoCancelMargin before free cancellation ends, unless the order system sends the keep update first',
      ),
  ),
  autoCancelMargin: absent(
    positiveDuration('autoCancelMargin')
      .default(DEFAULT_AUTO_CANCEL_MARGIN)
      .describe(
        'how long before the free-cancellation deadline the automatic cancellation runs (a duration)',
      ),
  ),
  autoCancelNotice: absent(
    positiveDuration('autoCancelNotice')
      .default(DEFAULT_AUTO_CANCEL_NOTICE)
      .describe(
        'with order events on: the automatic cancellation runs no sooner than this after order.free_cancellation_ending announced it, so the order system can send keep (a duration)',
      ),
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
  /** The part of the order's workflow that holds it: the booking, or (once CONFIRMED) the guard. */
  readonly holder: 'booking' | 'guard';
  readonly workflowId: string;
  /** Whether that workflow is still running. */
  readonly open: boolean;
  /** The supplier account the order goes to, when its input named one. */
  readonly supplier?: string;
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
export const GuardInputSchema = z.strictObject({
  orderId: matching(ORDER_ID_RE, 'an order id').describe("the order's id"),
  bookingId: z
    .number()
    .int()
    .positive('a positive supplier booking id')
    .describe('the confirmed supplier booking the guard looks after'),
  checkIn: z.iso
    .date('a date YYYY-MM-DD')
    .optional()
    .describe("the bookRoom input's check-in date (YYYY-MM-DD), until the supplier's is read"),
  guard: GuardPolicySchema.optional().describe("the bookRoom input's guard policy"),
  supplier: matching(SUPPLIER_ACCOUNT_ID, 'an account id')
    .optional()
    .describe(
      "the bookRoom input's supplier account: every read and cancel of the guard goes to it",
    ),
  cancellationDeadline: positiveDuration('cancellationDeadline')
    .default(DEFAULT_CANCELLATION_DEADLINE)
    .describe(
      'how long a cancellation waits for the supplier to confirm it before it is flagged (a duration)',
    ),
  polling: z
    .strictObject({
      initialInterval: positiveDuration('initialInterval')
        .default(DEFAULT_POLLING.initialInterval)
        .describe('the first wait between two polls (a duration)'),
      maximumInterval: positiveDuration('maximumInterval')
        .default(DEFAULT_POLLING.maximumInterval)
        .describe('the longest wait between two polls (a duration)'),
      backoffCoefficient: z
        .number()
        .min(1)
        .max(10)
        .default(DEFAULT_POLLING.backoffCoefficient)
        .describe('each wait is the one before times this (1 to 10), up to maximumInterval'),
    })
    .optional()
    .describe("the bookRoom input's polling, for the guard's cancellations"),
  cancellationPending: z
    .boolean()
    .optional()
    .describe(
      "bookRoom asked the supplier to cancel and the supplier had not confirmed it when bookRoom ended CONFIRMED: the guard starts in CANCELLATION_PENDING, and a later read of CANCELLED is the order's own cancellation",
    ),
  orderEvents: z
    .strictObject({
      lastSequence: z
        .number()
        .int()
        .min(0)
        .describe("the sequence of the order's last event so far"),
    })
    .optional()
    .describe(
      "order events are on (docs/order-events.md): the guard's events have sequences after lastSequence",
    ),
  terms: z
    .strictObject({
      status: z.string().describe("the supplier's booking status"),
      checkIn: z.string().nullable().describe("the supplier's check-in date"),
      checkOut: z.string().nullable().describe("the supplier's check-out date"),
      refundable: z
        .boolean()
        .nullable()
        .describe("the supplier's cancel_policy: false for a non-refundable rate"),
      penaltyDate: z
        .string()
        .nullable()
        .describe("the supplier's penalty_date: when free cancellation ends"),
    })
    .optional()
    .describe(
      "the booking's status and terms as bookRoom's last supplier read held them: the guard starts from them instead of reading the booking again",
    ),
  price: z
    .looseObject({
      net: z.string().describe('the net amount as a decimal string'),
      currency: z.string().optional().describe('the ISO 4217 currency code'),
    })
    .optional()
    .describe("the price bookRoom booked at (the supplier's price record), for the state"),
  carried: z
    .record(z.string(), z.unknown())
    .optional()
    .describe(
      "the guard's own state, carried across continue-as-new (what it knows: phase, terms, reconfirmations, flag, cancellation); its shape is the guard's, not part of the contract",
    ),
});
export type GuardInput = z.input<typeof GuardInputSchema>;
export type GuardParams = z.output<typeof GuardInputSchema>;

export interface GuardResult {
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
  reason: absent(
    z
      .string()
      .max(500, 'at most 500 characters')
      .optional()
      .describe('why the order is cancelled, for people, at most 500 characters'),
  ),
  acceptPenalty: absent(
    z
      .boolean()
      .optional()
      .describe(
        'cancel even though free cancellation has ended (or is unknown): the penalty is accepted; before the decision nothing is at stake and it is ignored; unset: false',
      ),
  ),
});
export type GuardCancelRequest = z.infer<typeof GuardCancelRequestSchema>;

export const KeepRequestSchema = z.strictObject({
  reason: absent(
    z
      .string()
      .max(500, 'at most 500 characters')
      .optional()
      .describe('why the order is kept, for people, at most 500 characters'),
  ),
});
export type KeepRequest = z.infer<typeof KeepRequestSchema>;

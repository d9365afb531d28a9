/**
 * The public contract of a booking's life after CONFIRMED: the order's guard (in its `bookRoom`
 * workflow; earlier versions ran it as `guardBooking`, id `guard-<orderId>`), its input policy
 * (`guard` in the `bookRoom` input), its phases and the order's one current truth (`OrderState`).
 * Pure (zod and types only). Names are stable: add fields freely, never rename.
 */
import { z } from 'zod';
import { SUPPLIER_ACCOUNT_ID } from './supplier-accounts';
import type { BookingError, BookingState } from './booking-state';
import { DEFAULT_CANCELLATION_DEADLINE } from '../config/defaults';
import { bookingIdSchema, pollingFields, reasonSchema } from './contract-fields';
import { matching, optionalField } from './absent';
import { GuardPolicySchema, positiveDuration } from './guard-policy';
import {
  ORDER_ID_RE,
  type BookingOutcome,
  type BookingPhase,
  type CancellationOutcome,
} from './booking-values';
import type { GuardPhase } from './guard-values';

export * from './guard-values';
export * from './guard-policy';

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
  bookingId: bookingIdSchema('the confirmed supplier booking the guard looks after'),
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
    .strictObject(pollingFields)
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
  reason: reasonSchema('why the order is cancelled, for people, at most 500 characters'),
  acceptPenalty: optionalField(
    z.boolean(),
    'cancel even though free cancellation has ended (or is unknown): the penalty is accepted; before the decision nothing is at stake and it is ignored; unset: false',
  ),
});
export type GuardCancelRequest = z.infer<typeof GuardCancelRequestSchema>;

export const KeepRequestSchema = z.strictObject({
  reason: reasonSchema('why the order is kept, for people, at most 500 characters'),
});
export type KeepRequest = z.infer<typeof KeepRequestSchema>;

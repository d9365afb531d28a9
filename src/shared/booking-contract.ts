/**
 * The public contract of the booking workflows: names, ids, inputs, outcomes, phases, messages.
 * Pure (zod and types only), so workflows, the client module, the CLI and tests share it.
 * Names are stable: add fields freely, never rename.
 */
import { z } from 'zod';
import {
  DEFAULT_APPROVAL_TIMEOUT,
  DEFAULT_CANCELLATION_DEADLINE,
  DEFAULT_CONFIRMATION_DEADLINE,
  DEFAULT_POLLING,
} from '../config/defaults';
import { absent, matching, NULL_IS_ABSENT } from './absent';
import {
  GuardCancelRequestSchema,
  GuardPolicySchema,
  positiveDuration,
  type GuardBookingInput,
  type GuardBookingResult,
} from './guard-contract';
import {
  CURRENCY_RE,
  CUSTOM_FIELD_RE,
  DECIMAL_RE,
  ORDER_ID_RE,
  PHONE_PREFIX_RE,
  isPhone,
  type BookingOutcome,
  type BookingPhase,
  type CancellationOutcome,
  type FieldIssue,
} from './booking-values';

export { absent };
export * from './booking-values';

const duration = positiveDuration;

/** An object's entries without the null ones (a map of optional values). */
function withoutNulls<T>(v: unknown): T {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return v as T;
  return Object.fromEntries(Object.entries(v).filter(([, value]) => value !== null)) as T;
}

const CustomFieldsSchema = z.record(
  matching(CUSTOM_FIELD_RE, 'custom field names are custom_field_1 .. custom_field_10'),
  z.string().max(255, 'at most 255 characters'),
);

const nonBlank = (max: number) =>
  z.string().trim().min(1, 'required').max(max, `at most ${max} characters`);

export const GuestRoomSchema = z.strictObject({
  firstName: nonBlank(100),
  lastName: nonBlank(100),
  notes: absent(z.string().max(1000, 'at most 1000 characters').optional()),
});

export const ContactSchema = z.strictObject({
  phonePrefix: matching(PHONE_PREFIX_RE, "a phone prefix such as '+39' or '39'"),
  phone: z
    .string()
    .refine(isPhone, '4 to 20 digits, spaces, dashes or brackets, at least 4 of them digits'),
  // RFC 5321 caps a path at 254 characters; the supplier rejects longer addresses.
  email: absent(z.email('an e-mail address').max(254, 'at most 254 characters').optional()),
});

export const PriceSchema = z.strictObject({
  net: matching(DECIMAL_RE, "a decimal amount as a string, e.g. '120.50'"),
  currency: matching(CURRENCY_RE, "an ISO 4217 code such as 'EUR'"),
});

export const PriceChangePolicySchema = z.strictObject({
  /** A price increase up to this percentage is accepted without asking. @default 0 */
  maxIncreasePercent: absent(z.number().min(0).max(100).default(0)),
  /** Accept a `POLICY CHANGE` (e.g. new cancellation terms) without asking. @default false */
  acceptPolicyChange: absent(z.boolean().default(false)),
  /** How long to wait for `approvePriceChange` before ending `PRICE_REJECTED`. @default DEFAULT_APPROVAL_TIMEOUT ('15m') */
  approvalTimeout: absent(duration('approvalTimeout').default(DEFAULT_APPROVAL_TIMEOUT)),
});

/**
 * How the supplier is polled while a booking or a cancellation is pending. Each delay is then
 * shortened by up to `POLL_JITTER` (20 %) at random and counted from when the poll was due, not
 * from when it ran (activities/poll-delay.ts).
 */
export const PollingSchema = z.strictObject({
  /** @default DEFAULT_POLLING.initialInterval ('5s') */
  initialInterval: absent(duration('initialInterval').default(DEFAULT_POLLING.initialInterval)),
  /** @default DEFAULT_POLLING.maximumInterval ('5m') */
  maximumInterval: absent(duration('maximumInterval').default(DEFAULT_POLLING.maximumInterval)),
  /** @default DEFAULT_POLLING.backoffCoefficient (1.5) */
  backoffCoefficient: absent(z.number().min(1).max(10).default(DEFAULT_POLLING.backoffCoefficient)),
});

export const BookRoomInputSchema = z.strictObject({
  orderId: matching(ORDER_ID_RE, '1 to 64 characters of letters, digits, dot, underscore or dash'),
  optionId: nonBlank(512),
  rooms: z.array(GuestRoomSchema).min(1, 'at least one room'),
  contact: ContactSchema,
  /** A field whose value is null is absent (a Java or Python map may hold nulls). */
  customFields: absent(
    z
      .preprocess<Record<string, string>, typeof CustomFieldsSchema, Record<string, string | null>>(
        withoutNulls,
        CustomFieldsSchema,
      )
      .meta({ [NULL_IS_ABSENT]: 'values' })
      .optional(),
  ),
  expectedPrice: absent(PriceSchema.optional()),
  priceChangePolicy: absent(PriceChangePolicySchema.optional()),
  /** How long to wait for the supplier to confirm. @default '48h' */
  confirmationDeadline: absent(
    duration('confirmationDeadline').default(DEFAULT_CONFIRMATION_DEADLINE),
  ),
  /** When the confirmation deadline passes with the booking still pending, cancel it. @default true */
  cancelOnConfirmationTimeout: absent(z.boolean().default(true)),
  /** How long a cancellation may wait for the supplier before ending `STILL_ACTIVE`. @default '2h' */
  cancellationDeadline: absent(
    duration('cancellationDeadline').default(DEFAULT_CANCELLATION_DEADLINE),
  ),
  /** Check-in date (YYYY-MM-DD), for the operator's `CheckInDate` search attribute. */
  checkIn: absent(z.iso.date('a date YYYY-MM-DD').optional()),
  polling: absent(PollingSchema.optional()),
  /**
   * The custom field the order id travels in, as the starter validated it (`BookingClient` sets
   * its `BOOKING_ORDER_ID_FIELD`), so client and worker cannot disagree. Unset (inputs recorded
   * before it existed, or a caller that does not know it): the worker's `BOOKING_ORDER_ID_FIELD`.
   */
  orderIdField: absent(
    matching(CUSTOM_FIELD_RE, 'one of custom_field_1 .. custom_field_10').optional(),
  ),
  // --- after CONFIRMED: how the order's guard looks after it until check-out -----------------------
  guard: absent(GuardPolicySchema.optional()),
});

/** What a caller passes (defaults optional). */
export type BookRoomInput = z.input<typeof BookRoomInputSchema>;
/** The input with every default applied. */
export type BookRoomParams = z.output<typeof BookRoomInputSchema>;
export type Price = z.infer<typeof PriceSchema>;
export type Polling = z.output<typeof PollingSchema>;

/** The supplier's full price record, as the price check returns it. */
export interface SupplierPrice {
  readonly net: string;
  /** The seed does not mark it required: a price without one is never auto-accepted. */
  readonly currency?: string | undefined;
  readonly taxes?: string;
  readonly sales_taxes?: string;
  readonly without_tax?: string;
}

export interface BookingError {
  /** The hotel API client's code (e.g. `AUTH_INVALID`) or one of the workflow's own. */
  readonly code: string;
  readonly message: string;
}

export interface BookRoomResult {
  readonly orderId: string;
  readonly outcome: BookingOutcome;
  readonly bookingId?: number;
  readonly supplierStatus?: string;
  readonly price?: SupplierPrice;
  /** Why the booking ended the way it did, in words for people. */
  readonly reason?: string;
  readonly error?: BookingError;
  /** Set when a cancellation ran. */
  readonly cancellation?: { readonly outcome: CancellationOutcome; readonly reason?: string };
}

/**
 * The order workflow's result, at check-out or once the order is cancelled: the booking's decision
 * (what the `outcome` update answered) and, for a CONFIRMED booking, how its guard ended.
 */
export interface OrderResult extends BookRoomResult {
  readonly guard?: GuardBookingResult;
}

/**
 * The order workflow's input: a booking's, or, when its guard continues as new, the guard's input
 * with the decision it answers the `outcome` update with. Callers give the first.
 */
export type OrderInput =
  | BookRoomInput
  | {
      readonly guarding: { readonly guard: GuardBookingInput; readonly decided: BookRoomResult };
    };

export interface PriceDecision {
  readonly status: 'PRICE CHANGE' | 'POLICY CHANGE' | 'AVAILABLE';
  readonly expected?: Price;
  readonly offered?: SupplierPrice;
  readonly increasePercent?: number;
  readonly deadline: string;
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

export const ApprovePriceChangeSchema = z.strictObject({ approve: z.boolean() });
export type ApprovePriceChange = z.infer<typeof ApprovePriceChangeSchema>;

/** The `cancel` update's argument, in every phase of the order (guard-contract.ts). */
export const CancelRequestSchema = GuardCancelRequestSchema;
export type CancelRequest = z.infer<typeof CancelRequestSchema>;

const ResolveReconciliationVariants = z.union([
  z.strictObject({ bookingId: z.number().int().positive('a positive supplier booking id') }),
  z.strictObject({ noBooking: z.literal(true) }),
]);
/** `{ bookingId }` or `{ noBooking: true }`; a null field is absent (`{ bookingId, noBooking: null }`). */
export const ResolveReconciliationSchema = z
  .preprocess<
    z.input<typeof ResolveReconciliationVariants>,
    typeof ResolveReconciliationVariants,
    | z.input<typeof ResolveReconciliationVariants>
    | { bookingId?: number | null; noBooking?: true | null }
  >(
    (v) => withoutNulls(v) as z.input<typeof ResolveReconciliationVariants>,
    ResolveReconciliationVariants,
  )
  .meta({ [NULL_IS_ABSENT]: 'fields' });
export type ResolveReconciliation = z.output<typeof ResolveReconciliationVariants>;

export const CancelBookingInputSchema = z.strictObject({
  bookingId: z.number().int().positive('a positive supplier booking id'),
  /** The order the booking belongs to, when known: makes the cancellation searchable by order. */
  orderId: absent(matching(ORDER_ID_RE, 'an order id').optional()),
  reason: absent(z.string().max(500).optional()),
  /** Give up (outcome `STILL_ACTIVE`) when the supplier has not confirmed by then. @default '2h' */
  deadline: absent(duration('deadline').default(DEFAULT_CANCELLATION_DEADLINE)),
  polling: absent(PollingSchema.optional()),
});
export type CancelBookingInput = z.input<typeof CancelBookingInputSchema>;
export type CancelBookingParams = z.output<typeof CancelBookingInputSchema>;

export interface CancelBookingResult {
  readonly bookingId: number;
  readonly outcome: CancellationOutcome;
  readonly reason?: string;
}

/** zod issues → `field: message` pairs with dotted paths (`rooms.0.firstName`). */
export function toFieldIssues(error: z.ZodError): FieldIssue[] {
  return error.issues.map((i) => ({
    field: i.path.length > 0 ? i.path.map(String).join('.') : '(input)',
    message: i.message,
  }));
}

/**
 * The public contract of the booking workflows: names, ids, inputs, outcomes, phases, messages.
 * Pure (zod and types only), so workflows, the client module, the CLI and tests share it.
 * Names are stable: add fields freely, never rename.
 */
import { z } from 'zod';
import {
  DEFAULT_CANCELLATION_DEADLINE,
  DEFAULT_CONFIRMATION_DEADLINE,
  DEFAULT_ORDER_ID_FIELD,
} from '../config/defaults';
import { absent, matching, NULL_IS_ABSENT, optionalField } from './absent';
import {
  bookingIdSchema,
  reasonSchema,
  bookRoomInputRulesAsJsonSchema,
  ContactSchema,
  CustomFieldsSchema,
  GuestRoomSchema,
  nonBlank,
  orderIdSchema,
  PollingSchema,
  pollingDescription,
  PriceChangePolicySchema,
  withoutNulls,
} from './contract-fields';
import {
  GuardCancelRequestSchema,
  GuardPolicySchema,
  positiveDuration,
  type GuardInput,
  type GuardResult,
} from './guard-contract';
import {
  CUSTOM_FIELD_RE,
  ORDER_ID_RE,
  type BookingOutcome,
  type CancellationOutcome,
} from './booking-values';
import type { BookingError } from './booking-state';
import { DEFAULT_SUPPLIER_ACCOUNT, SUPPLIER_ACCOUNT_ID } from './supplier-accounts';
import { PriceSchema, type SupplierPrice } from './price';

export { absent };
export * from './booking-values';
export * from './booking-state';
export * from './price';
export {
  ContactSchema,
  GuestRoomSchema,
  PollingSchema,
  PriceChangePolicySchema,
  pathText,
  toFieldIssues,
} from './contract-fields';

/**
 * `bookRoom` started with the order id alone: a start that reaches an order and never books, for
 * the `cancel` and `outcome` updates sent with it (update-with-start) to an order whose workflow
 * may have closed. It answers the order's decision (a cancel takes a booking the order still
 * holds), or ends `FAILED` with `NO_ORDER` when no run decided it.
 */
export const OrderIdAloneSchema = z.strictObject({ orderId: orderIdSchema });
export type OrderIdAlone = z.infer<typeof OrderIdAloneSchema>;

export const BookRoomInputSchema = z
  .strictObject({
    orderId: orderIdSchema,
    optionId: nonBlank(512).describe(
      "the room option to book: a room's id from availability; not blank, at most 512 characters once trimmed",
    ),
    rooms: z
      .array(GuestRoomSchema.describe('one room and its guest'))
      .min(1, 'at least one room')
      .describe('the rooms of the option, one guest each: at least one'),
    contact: ContactSchema.describe("the booking's contact"),
    customFields: optionalField(
      z
        .preprocess<
          Record<string, string>,
          typeof CustomFieldsSchema,
          Record<string, string | null>
        >(withoutNulls, CustomFieldsSchema)
        .meta({ [NULL_IS_ABSENT]: 'values' }),
      `values the supplier keeps with the booking and prints on the invoice, by name (custom_field_1 .. custom_field_10; a null value is absent); the field the order id travels in (orderIdField, default ${DEFAULT_ORDER_ID_FIELD}) is reserved`,
    ),
    expectedPrice: optionalField(
      PriceSchema,
      'the price the order system expects (from availability): a change is measured against it',
    ),
    priceChangePolicy: optionalField(
      PriceChangePolicySchema,
      'what to do when the price check reports a PRICE CHANGE or POLICY CHANGE',
    ),
    confirmationDeadline: absent(
      positiveDuration('confirmationDeadline')
        .default(DEFAULT_CONFIRMATION_DEADLINE)
        .describe(
          'how long to wait for the supplier to confirm a pending booking before it ends NOT_CONFIRMED (a duration)',
        ),
    ),
    cancelOnConfirmationTimeout: absent(
      z
        .boolean()
        .default(true)
        .describe(
          'when the confirmation deadline passes with the booking still pending, cancel it so it cannot confirm later',
        ),
    ),
    cancellationDeadline: absent(
      positiveDuration('cancellationDeadline')
        .default(DEFAULT_CANCELLATION_DEADLINE)
        .describe(
          'how long a cancellation waits for the supplier to confirm it before it ends STILL_ACTIVE (a duration)',
        ),
    ),
    checkIn: optionalField(
      z.iso.date('a date YYYY-MM-DD'),
      "the check-in date (YYYY-MM-DD), for the operator's CheckInDate search attribute",
    ),
    polling: optionalField(PollingSchema, pollingDescription),
    /**
     * `BookingClient` sets its `BOOKING_ORDER_ID_FIELD`, so client and worker cannot disagree.
     * Unset (inputs recorded before it existed, or a caller that does not know it): the worker's.
     */
    orderIdField: optionalField(
      matching(CUSTOM_FIELD_RE, 'one of custom_field_1 .. custom_field_10'),
      `the custom field the order id travels to the supplier in (reserved: customFields may not set it); unset: ${DEFAULT_ORDER_ID_FIELD}, the default of the workers' BOOKING_ORDER_ID_FIELD`,
    ),
    supplier: optionalField(
      matching(SUPPLIER_ACCOUNT_ID, 'an account id: a-z, 0-9 and -, a letter first, at most 32'),
      `the supplier account every call of the order goes to, for its whole life (an id the workers' SUPPLIER_ACCOUNTS names); unset: ${DEFAULT_SUPPLIER_ACCOUNT}, the account of HOTEL_API_*`,
    ),
    guard: optionalField(
      GuardPolicySchema,
      'how the order is guarded after CONFIRMED until check-out',
    ),
  })
  .meta({ allOf: bookRoomInputRulesAsJsonSchema() });

/** What a caller passes (defaults optional). */
export type BookRoomInput = z.input<typeof BookRoomInputSchema>;
/** The input with every default applied. */
export type BookRoomParams = z.output<typeof BookRoomInputSchema>;
export type Polling = z.output<typeof PollingSchema>;

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
  readonly guard?: GuardResult;
}

/**
 * The order workflow's input: a booking's; the order id alone (it reaches the order, never
 * books); or, when its guard continues as new, the guard's input with the decision it answers the
 * `outcome` update with. Callers give the first two.
 */
export type OrderInput =
  | BookRoomInput
  | OrderIdAlone
  | {
      readonly guarding: { readonly guard: GuardInput; readonly decided: BookRoomResult };
    };

export const ApprovePriceChangeSchema = z.strictObject({
  approve: z
    .boolean()
    .describe('true: book at the changed price or terms; false: the booking ends PRICE_REJECTED'),
});
export type ApprovePriceChange = z.infer<typeof ApprovePriceChangeSchema>;

/** The `cancel` update's argument, in every phase of the order (guard-contract.ts). */
export const CancelRequestSchema = GuardCancelRequestSchema;
export type CancelRequest = z.infer<typeof CancelRequestSchema>;

const ResolveReconciliationVariants = z.union([
  z.strictObject({
    bookingId: bookingIdSchema(
      "the supplier booking the ambiguous call made: the workflow reads it and checks that its custom field carries this order's id, then follows it",
    ),
  }),
  z.strictObject({
    noBooking: z
      .literal(true)
      .describe('the supplier holds no booking of this order: the booking ends FAILED'),
  }),
]);
/** `{ bookingId }` or `{ noBooking: true }`; a null field is absent (`{ bookingId, noBooking: null }`). */
export const ResolveReconciliationSchema = z
  .preprocess<
    z.input<typeof ResolveReconciliationVariants>,
    typeof ResolveReconciliationVariants,
    | z.input<typeof ResolveReconciliationVariants>
    | { bookingId?: number | null; noBooking?: true | null }
  >(withoutNulls, ResolveReconciliationVariants)
  .meta({ [NULL_IS_ABSENT]: 'fields' });
export type ResolveReconciliation = z.output<typeof ResolveReconciliationVariants>;

export const CancelBookingInputSchema = z.strictObject({
  bookingId: bookingIdSchema(
    'the supplier booking to cancel; the workflow id must be cancel-<bookingId>',
  ),
  orderId: optionalField(
    matching(ORDER_ID_RE, 'an order id'),
    'the order the booking belongs to, when known: makes the cancellation searchable',
  ),
  reason: reasonSchema('why it is cancelled, for people, at most 500 characters'),
  deadline: absent(
    positiveDuration('deadline')
      .default(DEFAULT_CANCELLATION_DEADLINE)
      .describe(
        'give up (outcome STILL_ACTIVE) when the supplier has not confirmed the cancellation by then (a duration)',
      ),
  ),
  polling: optionalField(
    PollingSchema,
    'how the supplier is polled while the cancellation is pending; each wait is then shortened by up to 20 % at random',
  ),
  supplier: optionalField(
    matching(SUPPLIER_ACCOUNT_ID, 'an account id'),
    `the supplier account that holds the booking; unset: ${DEFAULT_SUPPLIER_ACCOUNT}. Another account's workflow id is cancel-<bookingId>-<supplier>`,
  ),
});
export type CancelBookingInput = z.input<typeof CancelBookingInputSchema>;
export type CancelBookingParams = z.output<typeof CancelBookingInputSchema>;

export interface CancelBookingResult {
  readonly bookingId: number;
  readonly outcome: CancellationOutcome;
  readonly reason?: string;
}

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
  DEFAULT_ORDER_ID_FIELD,
  DEFAULT_POLLING,
} from '../config/defaults';
import { absent, matching, NULL_IS_ABSENT } from './absent';
import { nonBlankPattern } from './contract-patterns';
import {
  GuardCancelRequestSchema,
  GuardPolicySchema,
  positiveDuration,
  type GuardInput,
  type GuardResult,
} from './guard-contract';
import {
  CUSTOM_FIELD_NAMES,
  CUSTOM_FIELD_RE,
  ORDER_ID_RE,
  PHONE_LENGTH,
  PHONE_PREFIX_RE,
  PHONE_RE,
  isPhone,
  type BookingOutcome,
  type CancellationOutcome,
  type FieldIssue,
} from './booking-values';
import type { BookingError } from './booking-state';
import { DEFAULT_SUPPLIER_ACCOUNT, SUPPLIER_ACCOUNT_ID } from './supplier-accounts';
import { PriceSchema, type SupplierPrice } from './price';

export { absent };
export * from './booking-values';
export * from './booking-state';
export * from './price';

const duration = positiveDuration;

/** An object's entries without the null ones (a map of optional values). */
function withoutNulls<T>(v: unknown): T {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return v as T;
  return Object.fromEntries(Object.entries(v).filter(([, value]) => value !== null)) as T;
}

const CustomFieldsSchema = z.record(
  matching(CUSTOM_FIELD_RE, 'custom field names are custom_field_1 .. custom_field_10'),
  z
    .string()
    .max(255, 'at most 255 characters')
    .describe('the value printed on the booking, at most 255 characters'),
);

/**
 * Text that is not blank, trimmed, then at most `max` characters (zod counts code points, as
 * JSON Schema does). The JSON Schema states it with a pattern instead of zod's `maxLength`, which
 * would count the white space the trim removes.
 */
const nonBlank = (max: number) =>
  z
    .string()
    .trim()
    .min(1, 'required')
    .max(max, `at most ${max} characters`)
    .meta({ pattern: nonBlankPattern(max), maxLength: undefined });

export const GuestRoomSchema = z.strictObject({
  firstName: nonBlank(100).describe(
    "the guest's first name: not blank, at most 100 characters once leading and trailing white space is removed (it is sent trimmed)",
  ),
  lastName: nonBlank(100).describe(
    "the guest's last name: not blank, at most 100 characters once leading and trailing white space is removed (it is sent trimmed)",
  ),
  notes: absent(
    z
      .string()
      .max(1000, 'at most 1000 characters')
      .optional()
      .describe('notes for the hotel about this room, at most 1000 characters'),
  ),
});

export const ContactSchema = z.strictObject({
  phonePrefix: matching(PHONE_PREFIX_RE, "a phone prefix such as '+39' or '39'").describe(
    "the contact phone's country prefix: 1 to 4 digits, optionally after '+' (e.g. '+39')",
  ),
  phone: z
    .string()
    .refine(isPhone, '4 to 20 digits, spaces, dashes or brackets, at least 4 of them digits')
    .meta({
      minLength: PHONE_LENGTH.min,
      maxLength: PHONE_LENGTH.max,
      pattern: PHONE_RE.source,
    })
    .describe(
      'the contact phone without its prefix: 4 to 20 characters of digits, spaces, dashes or brackets, at least 4 of them digits',
    ),
  // RFC 5321 caps a path at 254 characters; the supplier rejects longer addresses.
  email: absent(
    z
      .email('an e-mail address')
      .max(254, 'at most 254 characters')
      .optional()
      .describe('the contact e-mail address, at most 254 characters'),
  ),
});

export const PriceChangePolicySchema = z.strictObject({
  maxIncreasePercent: absent(
    z
      .number()
      .min(0)
      .max(100)
      .default(0)
      .describe(
        'a price increase up to this percentage (0 to 100) is accepted without asking; above 0 it needs expectedPrice (the increase is measured against it); 0 asks a person about any increase',
      ),
  ),
  acceptPolicyChange: absent(
    z
      .boolean()
      .default(false)
      .describe(
        'accept a POLICY CHANGE (e.g. new cancellation terms) without asking; false: it waits for approvePriceChange',
      ),
  ),
  approvalTimeout: absent(
    duration('approvalTimeout')
      .default(DEFAULT_APPROVAL_TIMEOUT)
      .describe(
        'how long a price or policy change waits for approvePriceChange before the booking ends PRICE_REJECTED (a duration)',
      ),
  ),
});

/**
 * How the supplier is polled while a booking or a cancellation is pending. Each delay is then
 * shortened by up to `POLL_JITTER` (20 %) at random and counted from when the poll was due, not
 * from when it ran (activities/poll-delay.ts).
 */
export const PollingSchema = z.strictObject({
  initialInterval: absent(
    duration('initialInterval')
      .default(DEFAULT_POLLING.initialInterval)
      .describe('the first wait between two polls (a duration)'),
  ),
  maximumInterval: absent(
    duration('maximumInterval')
      .default(DEFAULT_POLLING.maximumInterval)
      .describe('the longest wait between two polls (a duration)'),
  ),
  backoffCoefficient: absent(
    z
      .number()
      .min(1)
      .max(10)
      .default(DEFAULT_POLLING.backoffCoefficient)
      .describe('each wait is the one before times this (1 to 10), up to maximumInterval'),
  ),
});

const pollingDescription =
  'how the supplier is polled while the booking (or its cancellation) is pending; each wait is then shortened by up to 20 % at random';

const orderIdSchema = matching(
  ORDER_ID_RE,
  '1 to 64 characters of letters, digits, dot, underscore or dash',
).describe(
  "the order's id, 1 to 64 of A-Z a-z 0-9 . _ -; the workflow id must be booking-<orderId>",
);

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
    customFields: absent(
      z
        .preprocess<
          Record<string, string>,
          typeof CustomFieldsSchema,
          Record<string, string | null>
        >(withoutNulls, CustomFieldsSchema)
        .meta({ [NULL_IS_ABSENT]: 'values' })
        .optional()
        .describe(
          `values the supplier keeps with the booking and prints on the invoice, by name (custom_field_1 .. custom_field_10; a null value is absent); the field the order id travels in (orderIdField, default ${DEFAULT_ORDER_ID_FIELD}) is reserved`,
        ),
    ),
    expectedPrice: absent(
      PriceSchema.optional().describe(
        'the price the order system expects (from availability): a change is measured against it',
      ),
    ),
    priceChangePolicy: absent(
      PriceChangePolicySchema.optional().describe(
        'what to do when the price check reports a PRICE CHANGE or POLICY CHANGE',
      ),
    ),
    confirmationDeadline: absent(
      duration('confirmationDeadline')
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
      duration('cancellationDeadline')
        .default(DEFAULT_CANCELLATION_DEADLINE)
        .describe(
          'how long a cancellation waits for the supplier to confirm it before it ends STILL_ACTIVE (a duration)',
        ),
    ),
    checkIn: absent(
      z.iso
        .date('a date YYYY-MM-DD')
        .optional()
        .describe(
          "the check-in date (YYYY-MM-DD), for the operator's CheckInDate search attribute",
        ),
    ),
    polling: absent(PollingSchema.optional().describe(pollingDescription)),
    /**
     * `BookingClient` sets its `BOOKING_ORDER_ID_FIELD`, so client and worker cannot disagree.
     * Unset (inputs recorded before it existed, or a caller that does not know it): the worker's.
     */
    orderIdField: absent(
      matching(CUSTOM_FIELD_RE, 'one of custom_field_1 .. custom_field_10')
        .optional()
        .describe(
          `the custom field the order id travels to the supplier in (reserved: customFields may not set it); unset: ${DEFAULT_ORDER_ID_FIELD}, the default of the workers' BOOKING_ORDER_ID_FIELD`,
        ),
    ),
    supplier: absent(
      matching(SUPPLIER_ACCOUNT_ID, 'an account id: a-z, 0-9 and -, a letter first, at most 32')
        .optional()
        .describe(
          `the supplier account every call of the order goes to, for its whole life (an id the workers' SUPPLIER_ACCOUNTS names); unset: ${DEFAULT_SUPPLIER_ACCOUNT}, the account of HOTEL_API_*`,
        ),
    ),
    // --- after CONFIRMED: how the order's guard looks after it until check-out ---------------------
    guard: absent(
      GuardPolicySchema.optional().describe(
        'how the order is guarded after CONFIRMED until check-out',
      ),
    ),
  })
  .meta({ allOf: bookRoomInputRulesAsJsonSchema() });

/**
 * The rules across fields of {@link bookRoomInputRuleIssues}, as JSON Schema: `maxIncreasePercent`
 * above 0 needs `expectedPrice`; `customFields` may not set the field the order id travels in
 * (`orderIdField`, unset: the default field).
 */
function bookRoomInputRulesAsJsonSchema(): Record<string, unknown>[] {
  const reserving = (field: string) => ({
    properties: { customFields: { properties: { [field]: { type: 'null' } } } },
  });
  return [
    {
      if: {
        properties: {
          priceChangePolicy: {
            type: 'object',
            properties: { maxIncreasePercent: { type: 'number', exclusiveMinimum: 0 } },
            required: ['maxIncreasePercent'],
          },
        },
        required: ['priceChangePolicy'],
      },
      then: { properties: { expectedPrice: { type: 'object' } }, required: ['expectedPrice'] },
    },
    {
      if: {
        properties: { orderIdField: { type: 'string' } },
        required: ['orderIdField'],
      },
      else: reserving(DEFAULT_ORDER_ID_FIELD),
    },
    ...CUSTOM_FIELD_NAMES.map((field) => ({
      if: { properties: { orderIdField: { const: field } }, required: ['orderIdField'] },
      then: reserving(field),
    })),
  ];
}

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
    bookingId: z
      .number()
      .int()
      .positive('a positive supplier booking id')
      .describe(
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
  >(
    (v) => withoutNulls(v) as z.input<typeof ResolveReconciliationVariants>,
    ResolveReconciliationVariants,
  )
  .meta({ [NULL_IS_ABSENT]: 'fields' });
export type ResolveReconciliation = z.output<typeof ResolveReconciliationVariants>;

export const CancelBookingInputSchema = z.strictObject({
  bookingId: z
    .number()
    .int()
    .positive('a positive supplier booking id')
    .describe('the supplier booking to cancel; the workflow id must be cancel-<bookingId>'),
  orderId: absent(
    matching(ORDER_ID_RE, 'an order id')
      .optional()
      .describe('the order the booking belongs to, when known: makes the cancellation searchable'),
  ),
  reason: absent(
    z
      .string()
      .max(500, 'at most 500 characters')
      .optional()
      .describe('why it is cancelled, for people, at most 500 characters'),
  ),
  deadline: absent(
    duration('deadline')
      .default(DEFAULT_CANCELLATION_DEADLINE)
      .describe(
        'give up (outcome STILL_ACTIVE) when the supplier has not confirmed the cancellation by then (a duration)',
      ),
  ),
  polling: absent(
    PollingSchema.optional().describe(
      'how the supplier is polled while the cancellation is pending; each wait is then shortened by up to 20 % at random',
    ),
  ),
  supplier: absent(
    matching(SUPPLIER_ACCOUNT_ID, 'an account id')
      .optional()
      .describe(
        `the supplier account that holds the booking; unset: ${DEFAULT_SUPPLIER_ACCOUNT}. Another account's workflow id is cancel-<bookingId>-<supplier>`,
      ),
  ),
});
export type CancelBookingInput = z.input<typeof CancelBookingInputSchema>;
export type CancelBookingParams = z.output<typeof CancelBookingInputSchema>;

export interface CancelBookingResult {
  readonly bookingId: number;
  readonly outcome: CancellationOutcome;
  readonly reason?: string;
}

/**
 * A path in words: dotted names (`rooms.0.firstName`); a key that is not a plain name is quoted
 * and cut at 40 characters (`customFields["a b; c"]`), so that a caller's key cannot blur where
 * one problem ends.
 */
export function pathText(path: readonly PropertyKey[]): string {
  if (path.length === 0) return '(input)';
  return path
    .map((key, i) => {
      const k = String(key);
      if (/^\w+$/.test(k)) return i === 0 ? k : `.${k}`;
      return `[${JSON.stringify(k.length > 40 ? `${k.slice(0, 40)}…` : k)}]`;
    })
    .join('');
}

/** zod issues → `field: message` pairs (`rooms.0.firstName: required`). */
export function toFieldIssues(error: z.ZodError): FieldIssue[] {
  return error.issues.map((i) => ({ field: pathText(i.path), message: i.message }));
}

/**
 * The contract's fields, as the messages share them: guests, contact, price-change policy,
 * polling, the order id; the rules across fields as JSON Schema states them; and how a field's
 * path is named in a problem. Pure (zod and types only).
 */
import { z } from 'zod';
import {
  DEFAULT_APPROVAL_TIMEOUT,
  DEFAULT_ORDER_ID_FIELD,
  DEFAULT_POLLING,
} from '../config/defaults';
import { absent, matching, optionalField } from './absent';
import { nonBlankPattern } from './contract-patterns';
import { positiveDuration } from './guard-policy';
import {
  CUSTOM_FIELD_NAMES,
  CUSTOM_FIELD_RE,
  ORDER_ID_RE,
  PHONE_LENGTH,
  PHONE_PREFIX_RE,
  PHONE_RE,
  isPhone,
  type FieldIssue,
} from './booking-values';

/** An object's entries without the null ones (a map of optional values). */
export function withoutNulls<T>(v: unknown): T {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return v as T;
  return Object.fromEntries(Object.entries(v).filter(([, value]) => value !== null)) as T;
}

export const CustomFieldsSchema = z.record(
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
export const nonBlank = (max: number) =>
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
  notes: optionalField(
    z.string().max(1000, 'at most 1000 characters'),
    'notes for the hotel about this room, at most 1000 characters',
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
  email: optionalField(
    z.email('an e-mail address').max(254, 'at most 254 characters'),
    'the contact e-mail address, at most 254 characters',
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
    positiveDuration('approvalTimeout')
      .default(DEFAULT_APPROVAL_TIMEOUT)
      .describe(
        'how long a price or policy change waits for approvePriceChange before the booking ends PRICE_REJECTED (a duration)',
      ),
  ),
});

/** The fields of {@link PollingSchema}; the guard's input takes them without `absent()`. */
export const pollingFields = {
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
};

/** How the supplier is polled while a booking or a cancellation is pending (poll-delay.ts). */
export const PollingSchema = z.strictObject({
  initialInterval: absent(pollingFields.initialInterval),
  maximumInterval: absent(pollingFields.maximumInterval),
  backoffCoefficient: absent(pollingFields.backoffCoefficient),
});

export const pollingDescription =
  'how the supplier is polled while the booking (or its cancellation) is pending; each wait is then shortened by up to 20 % at random';

/** A reason given for people, at most 500 characters (JSON `null` is absent). */
export const reasonSchema = (description: string) =>
  optionalField(z.string().max(500, 'at most 500 characters'), description);

/** A supplier booking id, described. */
export const bookingIdSchema = (description: string) =>
  z.number().int().positive('a positive supplier booking id').describe(description);

export const orderIdSchema = matching(
  ORDER_ID_RE,
  '1 to 64 characters of letters, digits, dot, underscore or dash',
).describe(
  "the order's id, 1 to 64 of A-Z a-z 0-9 . _ -; the workflow id must be booking-<orderId>",
);

/**
 * The rules across fields of {@link bookRoomInputRuleIssues}, as JSON Schema: `maxIncreasePercent`
 * above 0 needs `expectedPrice`; `customFields` may not set the field the order id travels in
 * (`orderIdField`, unset: the default field).
 */
export function bookRoomInputRulesAsJsonSchema(): Record<string, unknown>[] {
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

/**
 * The workflow side of input validation, without zod (why, and the test that holds it to zod:
 * docs/contributing.md, "The contract, written once"). Each function returns what the zod schema
 * would for an input it can vouch for, and `undefined` for anything else: then the workflow asks
 * zod itself (src/workflows/input-checks.ts), so every rejection is zod's. Stricter, never looser.
 */
import type {
  ApprovePriceChange,
  BookRoomParams,
  CancelBookingParams,
  CancelRequest,
  ResolveReconciliation,
} from './booking-contract';
import {
  CURRENCY_RE,
  CUSTOM_FIELD_RE,
  DECIMAL_RE,
  ORDER_ID_RE,
  PHONE_PREFIX_RE,
  isPhone,
} from './booking-values';
import {
  DEFAULT_APPROVAL_TIMEOUT,
  DEFAULT_AUTO_CANCEL_MARGIN,
  DEFAULT_AUTO_CANCEL_NOTICE,
  DEFAULT_CANCELLATION_DEADLINE,
  DEFAULT_CONFIRMATION_DEADLINE,
  DEFAULT_RECONFIRM_BEFORE,
  DEFAULT_POLLING as P,
} from '../config/defaults';
import { DATE_RE, INSTANT_RE } from './dates';
import { SUPPLIER_ACCOUNT_ID } from './supplier-accounts';
import type { GuardParams, GuardCancelRequest, GuardPolicy, KeepRequest } from './guard-contract';
import {
  EMAIL_RE,
  boolean,
  duration,
  nonBlank,
  number,
  object,
  optional,
  positiveInt,
  required,
  string,
  unsure,
  vouch,
  withDefault,
  type Check,
  type Input,
  type Out,
} from './fast-path-checks';

export { EMAIL_RE, vouchedShapes } from './fast-path-checks';

// --- bookRoom ------------------------------------------------------------------------------------

const guestRoom = object({
  firstName: required(nonBlank(100)),
  lastName: required(nonBlank(100)),
  notes: optional(string(undefined, 1000)),
});

const rooms: Check = (v) => {
  if (!Array.isArray(v) || v.length < 1) unsure();
  return v.map(guestRoom);
};

const contact = object({
  phonePrefix: required(string(PHONE_PREFIX_RE)),
  phone: required((p) => {
    if (typeof p !== 'string' || !isPhone(p)) unsure();
    return p;
  }),
  email: optional(string(EMAIL_RE, 254)),
});

/** `customFields`: null entries dropped (rule 7), names custom_field_1..10, values ≤ 255. */
const customFields: Check = (v) => {
  if (typeof v !== 'object' || v === null || Object.getPrototypeOf(v) !== Object.prototype)
    unsure();
  const out: Out = {};
  for (const [k, value] of Object.entries(v)) {
    if (value === null) continue;
    if (!CUSTOM_FIELD_RE.test(k) || typeof value !== 'string' || value.length > 255) unsure();
    out[k] = value;
  }
  return out;
};

const price = object({
  net: required(string(DECIMAL_RE)),
  currency: required(string(CURRENCY_RE)),
});

const priceChangePolicy = object({
  maxIncreasePercent: withDefault(number(0, 100), () => 0),
  acceptPolicyChange: withDefault(boolean, () => false),
  approvalTimeout: withDefault(duration, () => DEFAULT_APPROVAL_TIMEOUT),
});

/** `PollingSchema`; `nullIsAbsent` false for the guard's own copy (no `absent()` there). */
const polling = (nullIsAbsent: boolean) =>
  object({
    initialInterval: withDefault(duration, () => P.initialInterval, nullIsAbsent),
    maximumInterval: withDefault(duration, () => P.maximumInterval, nullIsAbsent),
    backoffCoefficient: withDefault(number(1, 10), () => P.backoffCoefficient, nullIsAbsent),
  });

const guardPolicy = object({
  enabled: withDefault(boolean, () => true),
  freeCancellationUntil: optional(string(INSTANT_RE)),
  checkInAt: optional(string(INSTANT_RE)),
  checkOutAt: optional(string(INSTANT_RE)),
  reconfirmBefore: withDefault(
    (r) => {
      if (!Array.isArray(r) || r.length > 6) unsure();
      return r.map(duration);
    },
    () => [...DEFAULT_RECONFIRM_BEFORE],
  ),
  autoCancelBeforePenalty: withDefault(boolean, () => false),
  autoCancelMargin: withDefault(duration, () => DEFAULT_AUTO_CANCEL_MARGIN),
  autoCancelNotice: withDefault(duration, () => DEFAULT_AUTO_CANCEL_NOTICE),
});

/** `GuardPolicySchema.parse({})`. */
export function defaultGuardPolicy(): GuardPolicy {
  return guardPolicy({}) as GuardPolicy;
}

const bookRoomInput = object({
  orderId: required(string(ORDER_ID_RE)),
  optionId: required(nonBlank(512)),
  rooms: required(rooms),
  contact: required(contact),
  customFields: optional(customFields),
  expectedPrice: optional(price),
  priceChangePolicy: optional(priceChangePolicy),
  confirmationDeadline: withDefault(duration, () => DEFAULT_CONFIRMATION_DEADLINE),
  cancelOnConfirmationTimeout: withDefault(boolean, () => true),
  cancellationDeadline: withDefault(duration, () => DEFAULT_CANCELLATION_DEADLINE),
  checkIn: optional(string(DATE_RE)),
  polling: optional(polling(true)),
  orderIdField: optional(string(CUSTOM_FIELD_RE)),
  supplier: optional(string(SUPPLIER_ACCOUNT_ID, 32)),
  guard: optional(guardPolicy),
});

/** `BookRoomInputSchema.parse(v)` for an input the fast path vouches for, else `undefined`. */
export const fastBookRoomInput = (v: unknown) =>
  vouch(bookRoomInput, v) as BookRoomParams | undefined;

/** `ApprovePriceChangeSchema`. */
export const fastApprovePriceChange = (v: unknown) =>
  vouch(object({ approve: required(boolean) }), v) as ApprovePriceChange | undefined;

const reasonOnly = object({ reason: optional(string(undefined, 500)) });
/** `CancelRequestSchema` (and the guard's `KeepRequestSchema`: the same shape). */
export const fastCancelRequest = (v: unknown) =>
  vouch(reasonOnly, v) as (CancelRequest & KeepRequest) | undefined;

const byBookingId = object({ bookingId: required(positiveInt) });
const withoutBooking = object({ noBooking: required((v) => (v === true ? v : unsure())) });
/** `ResolveReconciliationSchema`: exactly `{ bookingId }` or `{ noBooking: true }`. */
export const fastResolveReconciliation = (v: unknown) =>
  vouch(
    (x) =>
      (x as { bookingId?: unknown } | null)?.bookingId !== undefined
        ? byBookingId(x)
        : withoutBooking(x),
    v,
  ) as ResolveReconciliation | undefined;

const cancelBookingInput = object({
  bookingId: required(positiveInt),
  orderId: optional(string(ORDER_ID_RE)),
  reason: optional(string(undefined, 500)),
  deadline: withDefault(duration, () => DEFAULT_CANCELLATION_DEADLINE),
  polling: optional(polling(true)),
  supplier: optional(string(SUPPLIER_ACCOUNT_ID, 32)),
});
/** `CancelBookingInputSchema`. */
export const fastCancelBookingInput = (v: unknown) =>
  vouch(cancelBookingInput, v) as CancelBookingParams | undefined;

// --- the guard's input ---------------------------------------------------------------------------

const guardCancelRequest = object({
  reason: optional(string(undefined, 500)),
  acceptPenalty: optional(boolean),
});
/** `GuardCancelRequestSchema`. */
export const fastGuardCancelRequest = (v: unknown) =>
  vouch(guardCancelRequest, v) as GuardCancelRequest | undefined;

/** `price` of the guard's input: a loose object, `net` and an optional `currency` checked. */
const loosePrice: Check = (v) => {
  if (typeof v !== 'object' || v === null || Object.getPrototypeOf(v) !== Object.prototype)
    unsure();
  const input = v as Input;
  if (Object.prototype.hasOwnProperty.call(input, '__proto__')) unsure();
  const out: Out = {};
  required(string())(out, input, 'net');
  optional(string(), false)(out, input, 'currency');
  for (const k in input) if (k !== 'net' && k !== 'currency') out[k] = input[k];
  return out;
};

const orderEvents = object({
  lastSequence: required((last) => {
    if (typeof last !== 'number' || !Number.isSafeInteger(last) || last < 0) unsure();
    return last;
  }),
});

const nullOr =
  (check: Check): Check =>
  (x) =>
    x === null ? null : check(x);

/** `terms` of the guard's input: every field present, nullable but the status. */
const terms = object({
  status: required(string()),
  checkIn: required(nullOr(string())),
  checkOut: required(nullOr(string())),
  refundable: required(nullOr(boolean)),
  penaltyDate: required(nullOr(string())),
});

const guardInput = object({
  // An input with the guard's own carried state goes to zod.
  carried: (out, input) => {
    if (input.carried !== undefined) unsure();
    if ('carried' in input) out.carried = undefined;
  },
  orderId: required(string(ORDER_ID_RE)),
  bookingId: required(positiveInt),
  checkIn: optional(string(DATE_RE), false),
  guard: optional(guardPolicy, false),
  supplier: optional(string(SUPPLIER_ACCOUNT_ID, 32), false),
  cancellationDeadline: withDefault(duration, () => DEFAULT_CANCELLATION_DEADLINE, false),
  polling: optional(polling(false), false),
  cancellationPending: optional(boolean, false),
  orderEvents: optional(orderEvents, false),
  terms: optional(terms, false),
  price: optional(loosePrice, false),
});
/** `GuardInputSchema`, for the inputs bookRoom hands over (`carried` goes to zod). */
export const fastGuardInput = (v: unknown) => vouch(guardInput, v) as GuardParams | undefined;

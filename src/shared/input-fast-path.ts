/**
 * The workflow side of input validation, without zod. The sandbox evaluates every module a
 * workflow imports again for each workflow, so zod's library and the contract's schemas were built
 * once per workflow (about half of a bookRoom's first workflow task). These functions return what
 * the zod schema (booking-contract.ts, guard-contract.ts) would return for an input they can vouch
 * for, and `undefined` for anything else: then the workflow asks the zod schema itself
 * (src/workflows/input-checks.ts), so every rejection, its field paths and its messages are zod's.
 * They may only ever be stricter than the schema, never looser: test/shared/input-fast-path.test.ts
 * checks with generated inputs that whatever they accept the schema accepts, with the same output.
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
import { durationToMs } from './duration';
import type {
  GuardBookingParams,
  GuardCancelRequest,
  GuardPolicy,
  KeepRequest,
} from './guard-contract';

/** Thrown inside this module when an input is not one the fast path vouches for. */
const UNSURE = Symbol('unsure');

type Input = Record<string, unknown>;
type Out = Record<string, unknown>;
type Check = (v: unknown) => unknown;

function unsure(): never {
  throw UNSURE;
}

/** `fn(v)`, or `undefined` when the fast path cannot vouch for `v`. */
function vouch<T>(fn: (v: unknown) => T, v: unknown): T | undefined {
  try {
    return fn(v);
  } catch (err) {
    if (err === UNSURE) return undefined;
    throw err;
  }
}

/** A plain JSON object whose keys are all among `keys` (zod's strictObject). */
function strict(v: unknown, keys: ReadonlySet<string>): Input {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) unsure();
  if (Object.getPrototypeOf(v) !== Object.prototype) unsure();
  for (const k in v) if (!keys.has(k)) unsure();
  return v as Input;
}

function required(out: Out, input: Input, key: string, check: Check): void {
  if (!(key in input)) unsure();
  out[key] = check(input[key]);
}

/** An optional field; `nullIsAbsent`: wrapped in `absent()` (rule 7). */
function optional(out: Out, input: Input, key: string, check: Check, nullIsAbsent = true): void {
  if (!(key in input)) return;
  const v = input[key];
  out[key] = v === undefined || (nullIsAbsent && v === null) ? undefined : check(v);
}

function withDefault(
  out: Out,
  input: Input,
  key: string,
  check: Check,
  fallback: () => unknown,
  nullIsAbsent = true,
): void {
  const v = input[key];
  out[key] = v === undefined || (nullIsAbsent && v === null) ? fallback() : check(v);
}

const string =
  (re?: RegExp, max = Infinity): Check =>
  (v) => {
    if (typeof v !== 'string' || v.length > max || (re && !re.test(v))) unsure();
    return v;
  };

/** `z.string().trim().min(1).max(max)`: the trimmed string. */
const nonBlank =
  (max: number): Check =>
  (v) => {
    if (typeof v !== 'string') unsure();
    const t = v.trim();
    if (t.length < 1 || t.length > max) unsure();
    return t;
  };

const number =
  (min: number, max: number): Check =>
  (v) => {
    if (typeof v !== 'number' || !Number.isFinite(v) || v < min || v > max) unsure();
    return v;
  };

const positiveInt: Check = (v) => {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v <= 0) unsure();
  return v;
};

const boolean: Check = (v) => {
  if (typeof v !== 'boolean') unsure();
  return v;
};

/** A positive duration (`'30s'`, `'15m'`, ms), as the contract's `duration()` refines it. */
const duration: Check = (v) => {
  if (typeof v !== 'string' && !(typeof v === 'number' && Number.isFinite(v))) unsure();
  const ms = durationToMs(v);
  if (ms === undefined || !(ms > 0)) unsure();
  return v;
};

// zod 4.6.7's own pattern (`z.regexes.email`); test/shared/input-fast-path.test.ts fails if
// zod's differs. The date patterns are in dates.ts.
export const EMAIL_RE = new RegExp(
  String.raw`^(?:[A-Za-z0-9_'+\-]+\.)*[A-Za-z0-9_'+\-]*[A-Za-z0-9_+-]@(?:[A-Za-z0-9][A-Za-z0-9\-]*\.)+[A-Za-z]{2,}$`,
);

// --- bookRoom ------------------------------------------------------------------------------------

const GUEST_KEYS = new Set(['firstName', 'lastName', 'notes']);
const guestRoom: Check = (v) => {
  const input = strict(v, GUEST_KEYS);
  const out: Out = {};
  required(out, input, 'firstName', nonBlank(100));
  required(out, input, 'lastName', nonBlank(100));
  optional(out, input, 'notes', string(undefined, 1000));
  return out;
};

const rooms: Check = (v) => {
  if (!Array.isArray(v) || v.length < 1) unsure();
  return v.map(guestRoom);
};

const CONTACT_KEYS = new Set(['phonePrefix', 'phone', 'email']);
const contact: Check = (v) => {
  const input = strict(v, CONTACT_KEYS);
  const out: Out = {};
  required(out, input, 'phonePrefix', string(PHONE_PREFIX_RE));
  required(out, input, 'phone', (p) => {
    if (typeof p !== 'string' || !isPhone(p)) unsure();
    return p;
  });
  optional(out, input, 'email', string(EMAIL_RE, 254));
  return out;
};

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

const PRICE_KEYS = new Set(['net', 'currency']);
const price: Check = (v) => {
  const input = strict(v, PRICE_KEYS);
  const out: Out = {};
  required(out, input, 'net', string(DECIMAL_RE));
  required(out, input, 'currency', string(CURRENCY_RE));
  return out;
};

const PRICE_POLICY_KEYS = new Set(['maxIncreasePercent', 'acceptPolicyChange', 'approvalTimeout']);
const priceChangePolicy: Check = (v) => {
  const input = strict(v, PRICE_POLICY_KEYS);
  const out: Out = {};
  withDefault(out, input, 'maxIncreasePercent', number(0, 100), () => 0);
  withDefault(out, input, 'acceptPolicyChange', boolean, () => false);
  withDefault(out, input, 'approvalTimeout', duration, () => DEFAULT_APPROVAL_TIMEOUT);
  return out;
};

const POLLING_KEYS = new Set(['initialInterval', 'maximumInterval', 'backoffCoefficient']);
/** `PollingSchema`; `nullIsAbsent` false for the guard's own copy (no `absent()` there). */
const polling =
  (nullIsAbsent: boolean): Check =>
  (v) => {
    const input = strict(v, POLLING_KEYS);
    const out: Out = {};
    withDefault(out, input, 'initialInterval', duration, () => P.initialInterval, nullIsAbsent);
    withDefault(out, input, 'maximumInterval', duration, () => P.maximumInterval, nullIsAbsent);
    withDefault(
      out,
      input,
      'backoffCoefficient',
      number(1, 10),
      () => P.backoffCoefficient,
      nullIsAbsent,
    );
    return out;
  };

const GUARD_POLICY_KEYS = new Set([
  'enabled',
  'freeCancellationUntil',
  'checkInAt',
  'checkOutAt',
  'reconfirmBefore',
  'autoCancelBeforePenalty',
  'autoCancelMargin',
  'autoCancelNotice',
]);
const guardPolicy: Check = (v) => {
  const input = strict(v, GUARD_POLICY_KEYS);
  const out: Out = {};
  withDefault(out, input, 'enabled', boolean, () => true);
  optional(out, input, 'freeCancellationUntil', string(INSTANT_RE));
  optional(out, input, 'checkInAt', string(INSTANT_RE));
  optional(out, input, 'checkOutAt', string(INSTANT_RE));
  withDefault(
    out,
    input,
    'reconfirmBefore',
    (r) => {
      if (!Array.isArray(r) || r.length > 6) unsure();
      return r.map(duration);
    },
    () => [...DEFAULT_RECONFIRM_BEFORE],
  );
  withDefault(out, input, 'autoCancelBeforePenalty', boolean, () => false);
  withDefault(out, input, 'autoCancelMargin', duration, () => DEFAULT_AUTO_CANCEL_MARGIN);
  withDefault(out, input, 'autoCancelNotice', duration, () => DEFAULT_AUTO_CANCEL_NOTICE);
  return out;
};

/** `GuardPolicySchema.parse({})`. */
export function defaultGuardPolicy(): GuardPolicy {
  return guardPolicy({}) as GuardPolicy;
}

const BOOK_ROOM_KEYS = new Set([
  'orderId',
  'optionId',
  'rooms',
  'contact',
  'customFields',
  'expectedPrice',
  'priceChangePolicy',
  'confirmationDeadline',
  'cancelOnConfirmationTimeout',
  'cancellationDeadline',
  'checkIn',
  'polling',
  'orderIdField',
  'guard',
]);
function bookRoomInput(v: unknown): BookRoomParams {
  const input = strict(v, BOOK_ROOM_KEYS);
  const out: Out = {};
  required(out, input, 'orderId', string(ORDER_ID_RE));
  required(out, input, 'optionId', nonBlank(512));
  required(out, input, 'rooms', rooms);
  required(out, input, 'contact', contact);
  optional(out, input, 'customFields', customFields);
  optional(out, input, 'expectedPrice', price);
  optional(out, input, 'priceChangePolicy', priceChangePolicy);
  withDefault(out, input, 'confirmationDeadline', duration, () => DEFAULT_CONFIRMATION_DEADLINE);
  withDefault(out, input, 'cancelOnConfirmationTimeout', boolean, () => true);
  withDefault(out, input, 'cancellationDeadline', duration, () => DEFAULT_CANCELLATION_DEADLINE);
  optional(out, input, 'checkIn', string(DATE_RE));
  optional(out, input, 'polling', polling(true));
  optional(out, input, 'orderIdField', string(CUSTOM_FIELD_RE));
  optional(out, input, 'guard', guardPolicy);
  return out as BookRoomParams;
}

/** `BookRoomInputSchema.parse(v)` for an input the fast path vouches for, else `undefined`. */
export const fastBookRoomInput = (v: unknown) => vouch(bookRoomInput, v);

const APPROVE_KEYS = new Set(['approve']);
/** `ApprovePriceChangeSchema`. */
export const fastApprovePriceChange = (v: unknown) =>
  vouch((x): ApprovePriceChange => {
    const out: Out = {};
    required(out, strict(x, APPROVE_KEYS), 'approve', boolean);
    return out as ApprovePriceChange;
  }, v);

const REASON_KEYS = new Set(['reason']);
/** `CancelRequestSchema` (and the guard's `KeepRequestSchema`: the same shape). */
export const fastCancelRequest = (v: unknown) =>
  vouch((x): CancelRequest & KeepRequest => {
    const out: Out = {};
    optional(out, strict(x, REASON_KEYS), 'reason', string(undefined, 500));
    return out as CancelRequest;
  }, v);

/** `ResolveReconciliationSchema`: exactly `{ bookingId }` or `{ noBooking: true }`, nulls absent. */
export const fastResolveReconciliation = (v: unknown) =>
  vouch((x): ResolveReconciliation => {
    if (typeof x !== 'object' || x === null || Object.getPrototypeOf(x) !== Object.prototype)
      unsure();
    const entries = Object.entries(x).filter(([, value]) => value !== null);
    if (entries.length !== 1) unsure();
    const [[k, value]] = entries as [[string, unknown]];
    if (k === 'bookingId') return { bookingId: positiveInt(value) as number };
    if (k === 'noBooking' && value === true) return { noBooking: true };
    return unsure();
  }, v);

const CANCEL_BOOKING_KEYS = new Set(['bookingId', 'orderId', 'reason', 'deadline', 'polling']);
/** `CancelBookingInputSchema`. */
export const fastCancelBookingInput = (v: unknown) =>
  vouch((x): CancelBookingParams => {
    const input = strict(x, CANCEL_BOOKING_KEYS);
    const out: Out = {};
    required(out, input, 'bookingId', positiveInt);
    optional(out, input, 'orderId', string(ORDER_ID_RE));
    optional(out, input, 'reason', string(undefined, 500));
    withDefault(out, input, 'deadline', duration, () => DEFAULT_CANCELLATION_DEADLINE);
    optional(out, input, 'polling', polling(true));
    return out as CancelBookingParams;
  }, v);

// --- the guard's input ---------------------------------------------------------------------------

const GUARD_CANCEL_KEYS = new Set(['reason', 'acceptPenalty']);
/** `GuardCancelRequestSchema`. */
export const fastGuardCancelRequest = (v: unknown) =>
  vouch((x): GuardCancelRequest => {
    const input = strict(x, GUARD_CANCEL_KEYS);
    const out: Out = {};
    optional(out, input, 'reason', string(undefined, 500));
    optional(out, input, 'acceptPenalty', boolean);
    return out as GuardCancelRequest;
  }, v);

/** `price` of the guard's input: a loose object, `net` and an optional `currency` checked. */
const loosePrice: Check = (v) => {
  if (typeof v !== 'object' || v === null || Object.getPrototypeOf(v) !== Object.prototype)
    unsure();
  const input = v as Input;
  if (Object.prototype.hasOwnProperty.call(input, '__proto__')) unsure();
  const out: Out = {};
  required(out, input, 'net', string());
  optional(out, input, 'currency', string(), false);
  for (const k in input) if (k !== 'net' && k !== 'currency') out[k] = input[k];
  return out;
};

const ORDER_EVENTS_KEYS = new Set(['lastSequence']);
const orderEvents: Check = (v) => {
  const input = strict(v, ORDER_EVENTS_KEYS);
  const last = input.lastSequence;
  if (typeof last !== 'number' || !Number.isSafeInteger(last) || last < 0) unsure();
  return { lastSequence: last };
};

const TERMS_KEYS = new Set(['status', 'checkIn', 'checkOut', 'refundable', 'penaltyDate']);
/** `terms` of the guard's input: every field present, nullable but the status. */
const terms: Check = (v) => {
  const input = strict(v, TERMS_KEYS);
  const out: Out = {};
  required(out, input, 'status', string());
  for (const key of ['checkIn', 'checkOut', 'penaltyDate'])
    required(out, input, key, (x) => (x === null ? null : string()(x)));
  required(out, input, 'refundable', (x) => (x === null ? null : boolean(x)));
  return out;
};

const GUARD_INPUT_KEYS = new Set([
  'orderId',
  'bookingId',
  'checkIn',
  'guard',
  'cancellationDeadline',
  'polling',
  'cancellationPending',
  'orderEvents',
  'startedInOneTask',
  'terms',
  'price',
  'carried',
]);
/** `GuardBookingInputSchema`, for the inputs bookRoom hands over (`carried` goes to zod). */
export const fastGuardBookingInput = (v: unknown) =>
  vouch((x): GuardBookingParams => {
    const input = strict(x, GUARD_INPUT_KEYS);
    if (input.carried !== undefined) unsure();
    const out: Out = {};
    required(out, input, 'orderId', string(ORDER_ID_RE));
    required(out, input, 'bookingId', positiveInt);
    optional(out, input, 'checkIn', string(DATE_RE), false);
    optional(out, input, 'guard', guardPolicy, false);
    withDefault(
      out,
      input,
      'cancellationDeadline',
      duration,
      () => DEFAULT_CANCELLATION_DEADLINE,
      false,
    );
    optional(out, input, 'polling', polling(false), false);
    optional(out, input, 'cancellationPending', boolean, false);
    optional(out, input, 'orderEvents', orderEvents, false);
    optional(out, input, 'startedInOneTask', boolean, false);
    optional(out, input, 'terms', terms, false);
    optional(out, input, 'price', loosePrice, false);
    if ('carried' in input) out.carried = undefined;
    return out as GuardBookingParams;
  }, v);

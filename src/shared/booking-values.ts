/**
 * The zod-free values of the booking contract: names, ids, outcomes, phases, the patterns and
 * rules its fields follow. Workflow code imports this module (and `input-fast-path.ts`), never the
 * zod schemas: the sandbox evaluates every imported module again for each workflow. The public
 * entry point stays `booking-contract.ts`, which re-exports all of it.
 */
import { DEFAULT_SUPPLIER_ACCOUNT } from './supplier-accounts';

export const BOOK_ROOM_WORKFLOW = 'bookRoom';
/**
 * `bookRoomAndGuard`, id `booking-<orderId>` too: `bookRoom`'s booking, then, once CONFIRMED, the
 * guard's life in the same workflow. Its caller hears the decision from the `outcome` update.
 */
export const BOOK_ROOM_AND_GUARD_WORKFLOW = 'bookRoomAndGuard';
/** The id of the `outcome` update asked for by callers that did not start the run. */
export const OUTCOME_UPDATE_ID = 'outcome';
/** Visibility filter: the workflows that book an order, in either shape. */
export const BOOKING_WORKFLOWS = `WorkflowType IN ('${BOOK_ROOM_WORKFLOW}', '${BOOK_ROOM_AND_GUARD_WORKFLOW}')`;
export const CANCEL_BOOKING_WORKFLOW = 'cancelBooking';

/** `booking-<orderId>`: readable in the UI, one per order (order ids carry no personal data). */
export function bookingWorkflowId(orderId: string): string {
  return `booking-${orderId}`;
}
/** `cancel-<bookingId>`. */
export function cancellationWorkflowId(bookingId: number, supplier?: string): string {
  // Booking ids are an account's own: another account's booking of the same id is another one.
  return supplier === undefined || supplier === DEFAULT_SUPPLIER_ACCOUNT
    ? `cancel-${bookingId}`
    : `cancel-${bookingId}-${supplier}`;
}

export const BookingOutcome = {
  CONFIRMED: 'CONFIRMED',
  NOT_CONFIRMED: 'NOT_CONFIRMED',
  CANCELLED: 'CANCELLED',
  NOT_AVAILABLE: 'NOT_AVAILABLE',
  PRICE_REJECTED: 'PRICE_REJECTED',
  FAILED: 'FAILED',
} as const;
export type BookingOutcome = (typeof BookingOutcome)[keyof typeof BookingOutcome];

export const BookingPhase = {
  PRICE_CHECK: 'PRICE_CHECK',
  AWAITING_APPROVAL: 'AWAITING_APPROVAL',
  BOOKING: 'BOOKING',
  AWAITING_CONFIRMATION: 'AWAITING_CONFIRMATION',
  NEEDS_RECONCILIATION: 'NEEDS_RECONCILIATION',
  /** The supplier booking could not be read for long: still polled until the deadline. */
  STATUS_UNREADABLE: 'STATUS_UNREADABLE',
  CANCELLING: 'CANCELLING',
} as const;
/** The live phase, or the final outcome once the workflow has ended. */
export type BookingPhase = (typeof BookingPhase)[keyof typeof BookingPhase] | BookingOutcome;

export const CancellationOutcome = {
  CANCELLED: 'CANCELLED',
  NOT_FOUND: 'NOT_FOUND',
  STILL_ACTIVE: 'STILL_ACTIVE',
} as const;
export type CancellationOutcome = (typeof CancellationOutcome)[keyof typeof CancellationOutcome];

/** Supplier booking statuses that are not final: keep polling. */
export const PENDING_SUPPLIER_STATUSES: readonly string[] = [
  'PROCESSING',
  'WAITING_CONFIRMATION',
  'PENDING',
];

// Digits are written [0-9]: the published JSON Schemas carry these patterns, and Python's `\d`
// also matches other scripts' digits.
export const ORDER_ID_RE = /^[A-Za-z0-9._-]{1,64}$/;
export const CUSTOM_FIELD_RE = /^custom_field_(10|[1-9])$/;
/** The names of the custom fields, `custom_field_1` .. `custom_field_10`. */
export const CUSTOM_FIELD_NAMES: readonly string[] = Array.from(
  { length: 10 },
  (_, i) => `custom_field_${i + 1}`,
);
export const DECIMAL_RE = /^-?[0-9]+(\.[0-9]+)?$/;

export const PHONE_PREFIX_RE = /^\+?[0-9]{1,4}$/;
export const CURRENCY_RE = /^[A-Z]{3}$/;
/** A contact phone's length, in characters. */
export const PHONE_LENGTH = { min: 4, max: 20 } as const;
/** A contact phone's characters: digits, spaces, dashes or brackets, at least 4 of them digits. */
export const PHONE_RE = /^[ ()-]*(?:[0-9][ ()-]*){4,}$/;
/** A contact phone: 4 to 20 digits, spaces, dashes or brackets, at least 4 of them digits. */
export function isPhone(v: string): boolean {
  return v.length >= PHONE_LENGTH.min && v.length <= PHONE_LENGTH.max && PHONE_RE.test(v);
}

/** A field-level problem in an input. */
export interface FieldIssue {
  readonly field: string;
  readonly message: string;
}

/**
 * The fields of a parsed `bookRoom` input (`BookRoomParams`, booking-contract.ts) that
 * {@link bookRoomInputRuleIssues} reads: stated here, so this zod-free module does not import the
 * schema's module (which re-exports this one).
 */
export interface BookRoomRuleFields {
  readonly priceChangePolicy?: { readonly maxIncreasePercent?: number } | undefined;
  readonly expectedPrice?: unknown;
  readonly orderIdField?: string | undefined;
  readonly customFields?: Readonly<Record<string, string>> | undefined;
}

/**
 * Rules across fields of a parsed `bookRoom` input, which the zod schema alone does not state (the
 * published JSON Schema does: booking-contract.ts). The client refuses an input that breaks one
 * before anything starts, with its own `BOOKING_ORDER_ID_FIELD`; the workflow re-checks direct
 * starts with the default field when the input names none (src/workflows/input-verdicts.ts).
 */
export function bookRoomInputRuleIssues(
  p: BookRoomRuleFields,
  defaultOrderIdField?: string,
): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const maxIncrease = p.priceChangePolicy?.maxIncreasePercent ?? 0;
  if (maxIncrease > 0 && p.expectedPrice === undefined) {
    issues.push({
      field: 'priceChangePolicy.maxIncreasePercent',
      message:
        'needs expectedPrice: without an expected price an increase cannot be measured, so every price change would wait for a person (give expectedPrice, or leave maxIncreasePercent at 0)',
    });
  }
  const orderIdField = p.orderIdField ?? defaultOrderIdField;
  if (orderIdField !== undefined && p.customFields && orderIdField in p.customFields) {
    issues.push({
      field: `customFields.${orderIdField}`,
      message: 'reserved: the order id travels to the supplier in this field',
    });
  }
  return issues;
}

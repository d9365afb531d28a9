/**
 * The workflows' verdicts on their inputs: what today's rules decide (the fields through
 * input-checks.ts, then the rules across fields) and, when the rules of runs recorded before them
 * decide otherwise, theirs too. The workflow asks `patched(CONTRACT_RULES_PATCH)` only then, so a
 * new run takes today's verdict and a recorded run replays with the verdict it ran with. Pure.
 *
 * Today's rules are the published contract's (contract/, docs/contract.md): texts are measured in
 * characters, and with no `orderIdField` in the input the order id's field is reserved all the
 * same, as the default `custom_field_10`.
 */
import { DEFAULT_ORDER_ID_FIELD } from '../config/defaults';
import type { BookRoomParams, CancelBookingParams } from '../shared/booking-contract';
import { bookRoomInputRuleIssues, type FieldIssue } from '../shared/booking-values';
import { overlongCancelInUtf16, overlongInUtf16 } from './earlier-versions/input-rules';
import { checkBookRoomInput, checkCancelBookingInput, type Checked } from './input-checks';

/** The `patched()` id of the rules as the contract publishes them. */
export const CONTRACT_RULES_PATCH = 'contract-rules-as-published';

export interface InputVerdict<T> {
  /** Today's verdict. */
  readonly now: Checked<T>;
  /** The verdict of runs recorded before today's rules, when it is another. */
  readonly earlier?: Checked<T>;
}

function verdict<T>(data: T, issues: FieldIssue[]): Checked<T> {
  return issues.length > 0 ? { success: false, issues } : { success: true, data };
}

function same<T>(a: Checked<T>, b: Checked<T>): boolean {
  if (a.success || b.success) return a.success === b.success;
  return JSON.stringify(a.issues) === JSON.stringify(b.issues);
}

function withEarlier<T>(now: Checked<T>, earlier: Checked<T>): InputVerdict<T> {
  return same(now, earlier) ? { now } : { now, earlier };
}

/**
 * A `bookRoom` input: its fields, then the rules across them. Today's reserve the order id's field
 * even when the input does not name it (`DEFAULT_ORDER_ID_FIELD`, what the published schema says);
 * earlier runs measured texts in UTF-16 code units and reserved only a named `orderIdField`.
 */
export function bookRoomInputVerdict(input: unknown): InputVerdict<BookRoomParams> {
  const parsed = checkBookRoomInput(input);
  // Today's field checks refuse only what earlier ones refused too (a character is never longer
  // in characters than in code units).
  if (!parsed.success) return { now: parsed };
  const p = parsed.data;
  const now = verdict(p, bookRoomInputRuleIssues(p, DEFAULT_ORDER_ID_FIELD));
  const overlong = overlongInUtf16(p);
  const earlier = verdict(p, overlong.length > 0 ? overlong : bookRoomInputRuleIssues(p));
  return withEarlier(now, earlier);
}

/** A `cancelBooking` input; earlier runs measured `reason` in UTF-16 code units. */
export function cancelBookingInputVerdict(input: unknown): InputVerdict<CancelBookingParams> {
  const parsed = checkCancelBookingInput(input);
  if (!parsed.success) return { now: parsed };
  return withEarlier(parsed, verdict(parsed.data, overlongCancelInUtf16(parsed.data)));
}

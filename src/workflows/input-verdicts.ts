/**
 * `bookRoom`'s verdict on its input: what today's rules decide (the fields through
 * input-checks.ts, then the rules across fields) and, when the rules of runs recorded before them
 * decide otherwise, theirs too. The workflow asks `patched('contract-rules-as-published')` only then, so a
 * new run takes today's verdict and a recorded run replays with the verdict it ran with. Pure.
 *
 * Today's rules are the published contract's (contract/, docs/contract.md): with no
 * `orderIdField` in the input, the order id's field is reserved all the same, as the default
 * `custom_field_10`. Earlier runs' rules: earlier-versions/input-rules.ts.
 */
import { DEFAULT_ORDER_ID_FIELD } from '../config/defaults';
import type { BookRoomParams } from '../shared/booking-contract';
import { bookRoomInputRuleIssues, type FieldIssue } from '../shared/booking-values';
import { earlierRuleIssues } from './earlier-versions/input-rules';
import { checkBookRoomInput, type Checked } from './input-checks';

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
 * even when the input does not name it (`DEFAULT_ORDER_ID_FIELD`, as the published schema says).
 */
export function bookRoomInputVerdict(input: unknown): InputVerdict<BookRoomParams> {
  const parsed = checkBookRoomInput(input);
  if (!parsed.success) return { now: parsed };
  const p = parsed.data;
  return withEarlier(
    verdict(p, bookRoomInputRuleIssues(p, DEFAULT_ORDER_ID_FIELD)),
    verdict(p, earlierRuleIssues(p)),
  );
}

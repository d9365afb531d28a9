/** `bookRoom`'s input verdict, today's and earlier runs' if another (docs/earlier-versions.md). */
import { DEFAULT_ORDER_ID_FIELD } from '../config/defaults';
import type { BookRoomParams } from '../shared/booking-contract';
import { bookRoomInputRuleIssues, type FieldIssue } from '../shared/booking-values';
import { earlierRuleIssues } from './earlier-versions/input-rules';
import { checkBookRoomInput, type Checked } from './input-checks';

export interface InputVerdict<T> {
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

/** Fields, then rules across them; today's reserve the default order id field when none is named. */
export function bookRoomInputVerdict(input: unknown): InputVerdict<BookRoomParams> {
  const parsed = checkBookRoomInput(input);
  if (!parsed.success) return { now: parsed };
  const p = parsed.data;
  const now = verdict(p, bookRoomInputRuleIssues(p, DEFAULT_ORDER_ID_FIELD));
  const earlier = verdict(p, earlierRuleIssues(p));
  return same(now, earlier) ? { now } : { now, earlier };
}

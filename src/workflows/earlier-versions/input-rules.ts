/**
 * The input rules of `bookRoom` runs recorded before the published contract's
 * (`contract-rules-as-published`, src/workflows/input-verdicts.ts), so that they replay as they
 * ran: the order id's custom field was reserved only when the input named it (`orderIdField`);
 * an unnamed one was refused later, by the booking call (`INVALID_REQUEST`), after the price
 * check. Deleted with that patch (docs/earlier-versions.md).
 */
import type { BookRoomParams } from '../../shared/booking-contract';
import { bookRoomInputRuleIssues, type FieldIssue } from '../../shared/booking-values';

/** The rules across fields as those runs applied them. */
export function earlierRuleIssues(p: BookRoomParams): FieldIssue[] {
  return bookRoomInputRuleIssues(p);
}

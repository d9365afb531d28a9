/**
 * The input rules of `bookRoom` runs recorded before `contract-rules-as-published`, so they replay
 * as they ran: the order id's field was reserved only when the input named it. Deleted with that
 * patch (docs/earlier-versions.md).
 */
import type { BookRoomParams } from '../../shared/booking-contract';
import { bookRoomInputRuleIssues, type FieldIssue } from '../../shared/booking-values';

export function earlierRuleIssues(p: BookRoomParams): FieldIssue[] {
  return bookRoomInputRuleIssues(p);
}

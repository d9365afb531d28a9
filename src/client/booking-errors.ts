/** The errors the booking client throws of its own: a refused input, a refused cancellation. */
import type { FieldIssue } from '../shared/booking-contract';

/** Bad input: nothing was started, nothing was sent. `issues` name the fields. */
export class BookingInputError extends Error {
  constructor(
    readonly issues: readonly FieldIssue[],
    what = 'booking input',
  ) {
    super(`Invalid ${what}: ${issues.map((i) => `${i.field}: ${i.message}`).join('; ')}`);
    this.name = 'BookingInputError';
  }
}

/** A cancellation (or `keep`) the order refused, e.g. after free cancellation ended. */
export class CancellationRefusedError extends Error {
  constructor(
    readonly orderId: string,
    /** `PENALTY`, `CHECK_IN_PASSED`, `ENDED`, `KEEP_REFUSED`. */
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'CancellationRefusedError';
  }
}

/**
 * What an activity failure means for the booking rules: its code, and whether the supplier may
 * have processed it (`ambiguous`). The classification is src/hotel-api/errors.ts's, in the details.
 */
import {
  ActivityFailure,
  ApplicationFailure,
  TimeoutFailure,
  isCancellation,
} from '@temporalio/workflow';
import type { FailureFacts } from '../activities/failures';
import { BOOKING_NOT_SENT, carriesBookingCallMark } from '../shared/booking-call-mark';
import type { BookingError } from '../shared/booking-contract';

function isFacts(v: unknown): v is FailureFacts {
  return typeof v === 'object' && v !== null && typeof (v as FailureFacts).code === 'string';
}

/** Facts of a call the supplier may have processed. */
const ambiguous = (code: string, message: string, retryable = false) => ({
  code,
  retryable,
  ambiguous: true,
  message,
});

/** The facts of a failure; anything we cannot read is ambiguous, the safe assumption. */
export function failureFacts(err: unknown): FailureFacts & { message: string } {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  if (cause instanceof ApplicationFailure) {
    const details = cause.details?.[0];
    if (isFacts(details)) return { ...details, message: cause.message };
    return ambiguous(cause.type ?? 'UNKNOWN', cause.message, !cause.nonRetryable);
  }
  if (cause instanceof TimeoutFailure) {
    // The worker died, hung or lost its connection mid-call: nobody knows what the supplier did.
    const why = `the activity timed out (${String(cause.timeoutType)}): the worker may have died mid-call`;
    return ambiguous('ACTIVITY_TIMEOUT', why);
  }
  if (isCancellation(err)) return ambiguous('CANCELLED', 'the activity was cancelled');
  return ambiguous('UNKNOWN', err instanceof Error ? err.message : String(err));
}

/**
 * The facts of a failed `createBookingMarked` (rule 1): a timeout is ambiguous only with the mark
 * that the call was leaving; without it, or from a worker that does not know the activity, the
 * call provably never left.
 */
export function bookingCallFacts(err: unknown): FailureFacts & { message: string } {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  const notSent = (why: string) => ({
    code: BOOKING_NOT_SENT,
    retryable: true,
    ambiguous: false,
    message: `${why}: it was not sent`,
  });
  if (cause instanceof TimeoutFailure && !carriesBookingCallMark(cause.lastHeartbeatDetails)) {
    return notSent(
      `the activity timed out (${String(cause.timeoutType)}) before the booking call was marked as leaving`,
    );
  }
  if (cause instanceof ApplicationFailure && cause.type === 'NotFoundError')
    return notSent(`the worker that took the booking call does not run it (${cause.message})`);
  return failureFacts(err);
}

/** The failure's code, for outcome errors. */
export function toBookingError(err: unknown): BookingError {
  const f = failureFacts(err);
  return { code: f.code, message: f.message };
}

/**
 * Whether a poll's deadline (`scheduleToCloseTimeout`) ended the activity: it fired mid-attempt
 * (`TimeoutFailure`), or the next attempt would have started after it (`retryState: TIMEOUT`).
 */
export function isDeadline(err: unknown): boolean {
  if (!(err instanceof ActivityFailure)) return false;
  return err.retryState === 'TIMEOUT' || err.cause instanceof TimeoutFailure;
}

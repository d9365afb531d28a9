/**
 * Cancelling a supplier booking (rule 4): a 202 is polled until CANCELLED, NOT_FOUND or the
 * deadline (then STILL_ACTIVE), which bounds all of it (rule 8).
 */
import { isCancellation } from '@temporalio/workflow';
import type { BookingActivities } from '../../activities/booking';
import type { Polling } from '../../shared/booking-contract';
import { CancellationOutcome } from '../../shared/booking-values';
import { DEFAULT_POLLING } from '../../config/defaults';
import { durationToMs } from '../../shared/duration';
import { CANCEL_ACTIVITY, POLL_ACTIVITY, accountActivities } from '../activity-options';
import { failureFacts, isDeadline } from '../failure-facts';

export interface CancellationResult {
  readonly outcome: CancellationOutcome;
  /** Why it is `STILL_ACTIVE`, for people. */
  readonly reason?: string;
}

/** Cancels `bookingId` at `supplier`, waiting at most `deadline` for it to confirm it. */
export async function runCancellation(
  bookingId: number,
  deadline: string | number,
  polling: Polling = DEFAULT_POLLING,
  supplier?: string,
): Promise<CancellationResult> {
  const deadlineMs = durationToMs(deadline) ?? 2 * 3_600_000;
  const until = Date.now() + deadlineMs;
  const notConfirmed = (err: unknown): CancellationResult => {
    if (isCancellation(err)) throw err;
    const f = failureFacts(err);
    const reason = isDeadline(err)
      ? `the supplier had not confirmed the cancellation within ${String(deadline)}`
      : `the supplier refused the cancellation (${f.code}: ${f.message})`;
    return { outcome: CancellationOutcome.STILL_ACTIVE, reason };
  };

  const { cancelBooking } = accountActivities<BookingActivities>(supplier, {
    ...CANCEL_ACTIVITY,
    scheduleToCloseTimeout: deadlineMs,
    summary: `DELETE /cancel of supplier booking ${bookingId}`,
  });
  let first: Awaited<ReturnType<BookingActivities['cancelBooking']>>;
  try {
    first = await cancelBooking({ bookingId });
  } catch (err) {
    return notConfirmed(err);
  }
  if (first.outcome === 'CANCELLED') return { outcome: CancellationOutcome.CANCELLED };
  if (first.outcome === 'NOT_FOUND') return { outcome: CancellationOutcome.NOT_FOUND };

  const { awaitCancellation } = accountActivities<BookingActivities>(supplier, {
    ...POLL_ACTIVITY,
    scheduleToCloseTimeout: Math.max(1, until - Date.now()),
    summary: `Wait until supplier booking ${bookingId} reads CANCELLED`,
  });
  try {
    const r = await awaitCancellation({ bookingId, polling });
    return {
      outcome:
        r.outcome === 'CANCELLED' ? CancellationOutcome.CANCELLED : CancellationOutcome.NOT_FOUND,
    };
  } catch (err) {
    return notConfirmed(err);
  }
}

/**
 * Cancelling a supplier booking (rule 4): 204 cancels; 202 is "not known yet", so retrieve is
 * polled until CANCELLED, NOT_FOUND or the deadline, which bounds all of it: the outcome is always
 * CANCELLED, NOT_FOUND or STILL_ACTIVE (rule 8).
 */
import { isCancellation, proxyActivities } from '@temporalio/workflow';
import type { BookingActivities } from '../../activities/booking';
import type { Polling } from '../../shared/booking-contract';
import { CancellationOutcome } from '../../shared/booking-values';
import { DEFAULT_POLLING } from '../../config/defaults';
import { durationToMs } from '../../shared/duration';
import { CANCEL_ACTIVITY, POLL_ACTIVITY, onAccount } from '../activity-options';
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
    if (isDeadline(err)) {
      return {
        outcome: CancellationOutcome.STILL_ACTIVE,
        reason: `the supplier had not confirmed the cancellation within ${String(deadline)}`,
      };
    }
    const f = failureFacts(err);
    return {
      outcome: CancellationOutcome.STILL_ACTIVE,
      reason: `the supplier refused the cancellation (${f.code}: ${f.message})`,
    };
  };

  const { cancelBooking } = proxyActivities<BookingActivities>(
    onAccount(
      {
        ...CANCEL_ACTIVITY,
        scheduleToCloseTimeout: deadlineMs,
        summary: `DELETE /cancel of supplier booking ${bookingId}`,
      },
      supplier,
    ),
  );
  let first: Awaited<ReturnType<BookingActivities['cancelBooking']>>;
  try {
    first = await cancelBooking({ bookingId });
  } catch (err) {
    return notConfirmed(err);
  }
  if (first.outcome === 'CANCELLED') return { outcome: CancellationOutcome.CANCELLED };
  if (first.outcome === 'NOT_FOUND') return { outcome: CancellationOutcome.NOT_FOUND };

  const { awaitCancellation } = proxyActivities<BookingActivities>(
    onAccount(
      {
        ...POLL_ACTIVITY,
        scheduleToCloseTimeout: Math.max(1, until - Date.now()),
        summary: `Wait until supplier booking ${bookingId} reads CANCELLED`,
      },
      supplier,
    ),
  );
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

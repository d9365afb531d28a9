/**
 * Cancelling a supplier booking (hard rule 4): 204 is a cancellation; 202 only means "not known
 * yet", so retrieve is polled (and the cancel re-sent) until the booking reads CANCELLED, the
 * supplier says it does not exist, or the deadline passes. Shared by bookRoom and cancelBooking.
 */
import { proxyActivities } from '@temporalio/workflow';
import type { BookingActivities } from '../activities/booking';
import { CancellationOutcome, PollingSchema, type Polling } from '../shared/booking-contract';
import { durationToMs } from '../shared/duration';
import { CANCEL_ACTIVITY, POLL_ACTIVITY } from './activity-options';
import { isDeadline } from './failure-facts';

export const DEFAULT_POLLING: Polling = PollingSchema.parse({});

/** Cancels `bookingId`, waiting at most `deadline` for the supplier to confirm it. */
export async function runCancellation(
  bookingId: number,
  deadline: string | number,
  polling: Polling = DEFAULT_POLLING,
): Promise<CancellationOutcome> {
  const { cancelBooking } = proxyActivities<BookingActivities>({
    ...CANCEL_ACTIVITY,
    summary: `DELETE /cancel of supplier booking ${bookingId}`,
  });
  const first = await cancelBooking({ bookingId });
  if (first.outcome === 'CANCELLED') return CancellationOutcome.CANCELLED;
  const { awaitCancellation } = proxyActivities<BookingActivities>({
    ...POLL_ACTIVITY,
    scheduleToCloseTimeout: durationToMs(deadline) ?? 2 * 3_600_000,
    summary: `Wait until supplier booking ${bookingId} reads CANCELLED`,
  });
  try {
    const r = await awaitCancellation({ bookingId, polling });
    return r.outcome === 'CANCELLED'
      ? CancellationOutcome.CANCELLED
      : CancellationOutcome.NOT_FOUND;
  } catch (err) {
    if (isDeadline(err)) return CancellationOutcome.STILL_ACTIVE;
    throw err;
  }
}

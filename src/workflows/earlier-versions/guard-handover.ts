/**
 * `bookRoom` → `guardBooking` (earlier versions): a CONFIRMED booking's guard started by a local
 * activity in the deciding task (`handOverInThisTask`) or, before that, an abandoned child.
 */
import { ParentClosePolicy, log, proxyLocalActivities, startChild } from '@temporalio/workflow';
import type { GuardStartActivities } from '../../activities/guard-start';
import type { GuardInput } from '../../shared/guard-contract';
import { GUARD_BOOKING_WORKFLOW, guardStart } from '../../shared/guard-values';
import { START_GUARD_ACTIVITY } from '../activity-options';

/**
 * Starts the order's guard from this workflow task (a local activity, retried until Temporal
 * takes the start). A guard that already exists for the order is logged; the outcome stands.
 */
export async function handOverInThisTask(input: GuardInput): Promise<void> {
  const { startGuard } = proxyLocalActivities<GuardStartActivities>({
    ...START_GUARD_ACTIVITY,
    summary: `Start the guard of order ${input.orderId}`,
  });
  const started = await startGuard({ ...input, startedInOneTask: true });
  if (started === 'exists') alreadyGuarded(input, 'a guard already exists for this order');
}

/**
 * Starts the order's guard as an abandoned child. Never fails the booking: a guard that cannot be
 * started (one already exists for this order) is logged, and the booking's outcome stands.
 */
export async function handOverToGuard(input: GuardInput): Promise<void> {
  try {
    await startChild(GUARD_BOOKING_WORKFLOW, {
      ...guardStart(input),
      args: [input],
      parentClosePolicy: ParentClosePolicy.ABANDON,
    });
  } catch (err) {
    alreadyGuarded(input, err instanceof Error ? err.message : String(err));
  }
}

function alreadyGuarded(input: GuardInput, error: string): void {
  log.warn('The guard of a confirmed order could not be started', {
    orderId: input.orderId,
    bookingId: input.bookingId,
    error,
  });
}

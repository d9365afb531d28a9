/** `bookRoom` → `guardBooking`: how earlier versions handed a CONFIRMED booking to its guard. */
import { ParentClosePolicy, log, proxyLocalActivities, startChild } from '@temporalio/workflow';
import type { GuardStartActivities } from '../../activities/guard-start';
import type { GuardInput } from '../../shared/guard-contract';
import { GUARD_BOOKING_WORKFLOW, guardStart } from '../../shared/guard-values';
import { START_GUARD_ACTIVITY } from '../activity-options';

/** Starts the order's guard by a local activity in this task; one that exists already is logged. */
export async function handOverInThisTask(input: GuardInput): Promise<void> {
  const { startGuard } = proxyLocalActivities<GuardStartActivities>({
    ...START_GUARD_ACTIVITY,
    summary: `Start the guard of order ${input.orderId}`,
  });
  const started = await startGuard({ ...input, startedInOneTask: true });
  if (started === 'exists') alreadyGuarded(input, 'a guard already exists for this order');
}

/** Starts the order's guard as an abandoned child; one that cannot start is logged, not thrown. */
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

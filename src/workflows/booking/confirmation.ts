/** After the booking call: reconciliation (rule 1) and the wait for the final status (rule 3). */
import { CancellationScope, condition, isCancellation } from '@temporalio/workflow';
import type { BookingActivities } from '../../activities/booking';
import type { BookRoomParams, BookingError } from '../../shared/booking-contract';
import { BookingOutcome, BookingPhase } from '../../shared/booking-values';
import { DEFAULT_CONFIRMATION_DEADLINE, DEFAULT_POLLING } from '../../config/defaults';
import { durationToMs } from '../../shared/duration';
import { POLL_ACTIVITY, accountActivities } from '../activity-options';
import { isDeadline, toBookingError } from '../failure-facts';
import type { BookingRun } from './booking-run';
import { Decisions, decided, type Decided, type Decision } from './decisions';
import { afterPollFailure, unreadableAfterMs } from './failure-decision';
import { readStatus } from './supplier-outcome';

type Waited = { kind: 'final' | 'deadline' | 'cancelled' };

/**
 * Rule 1: the booking call was ambiguous. Waits, open and searchable, for an operator; a
 * cancellation does not end the wait (the supplier may hold a booking).
 */
export async function reconcile(
  run: BookingRun,
  error: BookingError,
): Promise<{ kind: 'reconciled' } | Decided> {
  run.enter(BookingPhase.NEEDS_RECONCILIATION);
  await condition(() => run.resolution !== undefined);
  if (!run.resolution || 'noBooking' in run.resolution)
    return decided(Decisions.noBookingSaysOperator(run.cancelRequested, error));
  // The price stays the one decided on: the retrieve's total is not a net price.
  run.setBooking(run.resolution.bookingId, run.resolution.snapshot.status);
  return { kind: 'reconciled' };
}

/** Rule 3: pending is not final. Whether the booking waits for its confirmation. */
export function waitsForConfirmation(run: BookingRun): boolean {
  return !run.cancelRequested && readStatus(run.supplierStatus ?? '').kind !== 'final';
}

/**
 * Rule 3: polls until the status is final, the deadline passes or a cancellation is asked for. A
 * failed read proves nothing: reads failing long show `STATUS_UNREADABLE`, still polled.
 */
export async function awaitConfirmation(
  run: BookingRun,
  p: BookRoomParams,
  id: number,
): Promise<Waited> {
  run.enter(BookingPhase.AWAITING_CONFIRMATION);
  const polling = p.polling ?? DEFAULT_POLLING;
  const deadline = p.confirmationDeadline ?? DEFAULT_CONFIRMATION_DEADLINE;
  const until =
    Date.now() + (durationToMs(deadline) ?? durationToMs(DEFAULT_CONFIRMATION_DEADLINE)!);
  let unreadable = false;
  run.pollScope = new CancellationScope();
  try {
    for (;;) {
      const { awaitFinalBookingStatus } = accountActivities<BookingActivities>(run.supplier, {
        ...POLL_ACTIVITY,
        scheduleToCloseTimeout: Math.max(1, until - Date.now()),
        summary: `Poll supplier booking ${id} until it is final`,
      });
      try {
        const snap = await run.pollScope.run(() =>
          awaitFinalBookingStatus({
            bookingId: id,
            polling,
            ...(unreadable
              ? { untilReadable: true }
              : { unreadableAfterMs: unreadableAfterMs(polling) }),
          }),
        );
        run.setBooking(id, snap.status);
        run.terms = snap.terms;
        if (readStatus(snap.status).kind === 'final') return { kind: 'final' };
        unreadable = false; // read again: back to waiting
        run.enter(BookingPhase.AWAITING_CONFIRMATION);
      } catch (err) {
        const next = afterPollFailure({
          deadline: isDeadline(err),
          cancelled: run.cancelRequested && isCancellation(err),
        });
        if (next.next !== 'unreadable') return { kind: next.next };
        run.noteError(toBookingError(err));
        unreadable = true;
        run.enter(BookingPhase.STATUS_UNREADABLE);
      }
    }
  } finally {
    run.pollScope = undefined;
  }
}

/** What the supplier's final status decides. */
export function supplierDecision(run: BookingRun): Decision {
  const reading = readStatus(run.supplierStatus ?? '');
  // Unreachable: the poll returns final statuses only. Should a change there break that, the
  // booking ends loudly (UNKNOWN_STATUS) rather than with an outcome it does not have.
  if (reading.kind !== 'final') return Decisions.unknownStatus(run.supplierStatus);
  if (reading.outcome === BookingOutcome.CONFIRMED) return Decisions.confirmed();
  const cancelledHere = run.cancelRequested && reading.outcome === BookingOutcome.CANCELLED;
  return Decisions.supplierSays(reading.outcome, cancelledHere ? run.cancelWhy() : reading.reason);
}

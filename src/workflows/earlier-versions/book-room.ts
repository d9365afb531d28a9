/**
 * `bookRoom`, id `booking-<orderId>`: price check → decision → one booking call → confirmation,
 * with cancellation at any phase and operator reconciliation when the booking call is ambiguous.
 * Its state is one record (booking-run.ts), its messages one-liners into it
 * (book-room-messages.ts), its steps module-level functions (book-room-steps.ts); this file is the
 * script. The hard rules of booking are in docs/hard-rules.md; each is marked where it is enforced.
 */
import { CancellationScope, patched } from '@temporalio/workflow';
import type { BookRoomInput, BookRoomResult } from '../../shared/booking-contract';
import { BookingOutcome, bookRoomInputRuleIssues } from '../../shared/booking-values';
import { CheckInDateKey, OrderIdKey } from '../../shared/search-attributes';
import { checkBookRoomInput, issueText } from '../input-checks';
import { needsCancelling, readStatus } from '../booking/supplier-outcome';

import { registerBookRoomHandlers } from '../booking/booking-messages';
import {
  awaitConfirmation,
  cancelExisting,
  finish,
  finishConfirmed,
  priceAndBook,
  settleEarlierRuns,
  wrongWorkflowId,
  type Settled,
} from '../booking/booking-steps';
import { BookingRun } from '../booking/booking-run';

/** Patch id of the input rules across fields (bookRoomInputRuleIssues). */
const INPUT_RULES_PATCH = 'input-rules-across-fields';
/**
 * Patch: before its first supplier call, bookRoom checks that its workflow id is the order's and
 * what the order's earlier runs did (earlier-runs-decision.ts). Histories recorded before it
 * replay without the check.
 */
const EARLIER_RUNS_PATCH = 'earlier-runs-checked';
/**
 * Patch: one workflow task per step (BookingRun `oneTaskPerStep`). The price check runs as a
 * local activity beside the check of earlier runs (within the worker's local budget, else
 * scheduled as before), a step's search attribute writes go out as one upsert of what changed, and
 * a confirmed booking's guard is started by a local activity in the task that decided it, not as a
 * child whose start takes one more task. It also stands for the patches before it (the earlier
 * runs are checked, the guard is started, cancellations run as a child): their markers are not
 * written again. Histories recorded before it replay as they ran.
 */
const ONE_TASK_PER_STEP = 'one-task-per-step';

export async function bookRoom(input: BookRoomInput): Promise<BookRoomResult> {
  const run = new BookingRun(input);
  registerBookRoomHandlers(run);
  // Rule 8: a cancellation from Temporal (handle.cancel(), the UI's Cancel, `temporal workflow
  // cancel`) means what the `cancel` update means. The script runs in a non-cancellable scope, so
  // the cleanup cannot itself be cancelled: an in-flight booking call completes and its booking
  // is cancelled; an ambiguous one still waits, open and searchable, for reconciliation.
  CancellationScope.current().cancelRequested.catch(() =>
    run.requestCancel('cancelled from Temporal'),
  );
  return CancellationScope.nonCancellable(() => script(run, input));
}

/** The booking, from the input's checks to its decision (bookRoom's, and bookRoomAndGuard's). */
export async function script(run: BookingRun, input: BookRoomInput): Promise<BookRoomResult> {
  // Rule 7: the client validated already; this guards direct starts.
  const parsed = checkBookRoomInput(input);
  if (!parsed.success) {
    return finish(run, {
      outcome: BookingOutcome.FAILED,
      reason: 'invalid input',
      error: { code: 'INVALID_INPUT', message: issueText(parsed.issues) },
    });
  }
  const p = parsed.data;
  // Rules across fields (price policy without a reference price, the reserved order-id field),
  // behind a patch: a workflow started before them replays as it ran.
  const ruleIssues = bookRoomInputRuleIssues(p);
  if (ruleIssues.length > 0 && patched(INPUT_RULES_PATCH)) {
    return finish(run, {
      outcome: BookingOutcome.FAILED,
      reason: 'invalid input',
      error: {
        code: 'INVALID_INPUT',
        message: ruleIssues.map((i) => `${i.field}: ${i.message}`).join('; '),
      },
    });
  }
  // A run that lives on as its guard is of a workflow type newer than the patch: no marker.
  if (run.livesOn || patched(ONE_TASK_PER_STEP)) run.takeOneTaskPerStep();
  run.sa.write([
    { key: OrderIdKey, value: p.orderId },
    ...(p.checkIn ? [{ key: CheckInDateKey, value: new Date(`${p.checkIn}T00:00:00Z`) }] : []),
  ]);
  // Rule 1, whoever starts the workflow: the order's earlier runs decide whether to book. The
  // price check (a read) may run beside the check; nothing is booked before it has decided.
  let settled: Settled = { kind: 'book' };
  if (run.oneTaskPerStep || patched(EARLIER_RUNS_PATCH)) {
    const wrongId = wrongWorkflowId(p);
    if (wrongId) return finish(run, wrongId.final);
    settled = await settleEarlierRuns(run, p);
    if (settled.kind === 'ended') return finish(run, settled.final);
    if (settled.kind === 'book' && run.cancelRequested)
      return finish(run, run.cancelledBeforeBooking());
  }
  if (settled.kind === 'book') {
    const booked = await priceAndBook(run, p);
    if (booked.kind === 'ended') return finish(run, booked.final);
  }
  const id = run.bookingId!;

  // Rule 3: pending is not final.
  const waited = await awaitConfirmation(run, p, id);
  if (waited.kind === 'deadline') {
    const why = `not confirmed within ${String(p.confirmationDeadline)}`;
    run.noteError({ code: 'CONFIRMATION_DEADLINE', message: why });
    if (!p.cancelOnConfirmationTimeout)
      return finish(run, { outcome: BookingOutcome.NOT_CONFIRMED, reason: why });
    const cancelled = await cancelExisting(
      run,
      p,
      id,
      `${why}; cancelled so it cannot confirm later`,
    );
    return finish(run, { ...cancelled, outcome: BookingOutcome.NOT_CONFIRMED });
  }
  if (run.cancelRequested && needsCancelling(run.supplierStatus)) {
    const cancelled = await cancelExisting(run, p, id, run.cancelWhy());
    // The supplier did not confirm the cancellation of a confirmed booking: it stands.
    if (cancelled.outcome === BookingOutcome.CONFIRMED) return finishConfirmed(run, p, cancelled);
    return finish(run, cancelled);
  }
  const reading = readStatus(run.supplierStatus ?? '');
  if (reading.kind !== 'final') {
    // Unreachable: the poll returns final statuses only. Should a change there break that, the
    // booking ends loudly (UNKNOWN_STATUS) rather than with an outcome it does not have.
    const error = { code: 'UNKNOWN_STATUS', message: `status ${String(run.supplierStatus)}` };
    return finish(run, { outcome: BookingOutcome.FAILED, reason: error.message, error });
  }
  if (reading.outcome === BookingOutcome.CONFIRMED) return finishConfirmed(run, p);
  return finish(run, {
    outcome: reading.outcome,
    ...(run.cancelRequested && reading.outcome === BookingOutcome.CANCELLED
      ? { reason: run.cancelWhy() }
      : reading.reason !== undefined
        ? { reason: reading.reason }
        : {}),
  });
}

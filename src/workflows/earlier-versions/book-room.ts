/**
 * `bookRoom` as earlier versions ran it (docs/earlier-versions.md): the booking alone, its
 * CONFIRMED booking handed to a guard of its own (guard-booking.ts). `one-task-per-step` stands for
 * the four patches before it, whose markers it does not write again (src/shared/compatibility.ts).
 */
import { CancellationScope, allHandlersFinished, condition, patched } from '@temporalio/workflow';
import type { EarlierRunsActivities } from '../../activities/earlier-runs';
import type { BookRoomInput, BookRoomParams, BookRoomResult } from '../../shared/booking-contract';
import { BookingOutcome, BookingPhase, bookRoomInputRuleIssues } from '../../shared/booking-values';
import { CheckInDateKey, OrderIdKey } from '../../shared/search-attributes';
import { proxyLocalActivities, workflowInfo } from '@temporalio/workflow';
import { EARLIER_RUNS_ACTIVITY } from '../activity-options';
import { runCancellation } from '../cancellation/cancellation';
import { failureFacts } from '../failure-facts';
import { checkBookRoomInput, issueText } from '../input-checks';
import { SearchAttributeWriter } from '../search-attribute-writer';
import { registerBookingHandlers } from '../booking/booking-messages';
import { BookingRun } from '../booking/booking-run';
import { afterCancellation, cancelAsChild } from '../booking/cancel-supplier-booking';
import { awaitConfirmation, supplierDecision, waitsForConfirmation } from '../booking/confirmation';
import { decide, finish, guardInputOf } from '../booking/decide';
import { Decisions, decided, type Decision } from '../booking/decisions';
import {
  settleEarlierRuns,
  settleOn,
  wrongWorkflowId,
  type Settled,
} from '../booking/earlier-runs';
import { priceAndBook } from '../booking/price-and-book';
import { needsCancelling } from '../booking/supplier-outcome';
import { EachWriteSearchAttributes } from './each-write';
import { handOverInThisTask, handOverToGuard } from './guard-handover';
import { Patch } from '../../shared/compatibility';

export async function bookRoomOfEarlierVersions(input: BookRoomInput): Promise<BookRoomResult> {
  const oneTask = patched(Patch.ONE_TASK_PER_STEP);
  const run = new BookingRun(
    input,
    oneTask ? new SearchAttributeWriter() : new EachWriteSearchAttributes(),
  );
  registerBookingHandlers(run);
  CancellationScope.current().cancelRequested.catch(() =>
    run.requestCancel('cancelled from Temporal'),
  );
  return CancellationScope.nonCancellable(() => script(run, input, oneTask));
}

async function script(run: BookingRun, input: BookRoomInput, oneTask: boolean) {
  const parsed = checkBookRoomInput(input);
  if (!parsed.success) return finish(run, Decisions.invalidInput(issueText(parsed.issues)));
  const p = parsed.data;
  const ruleIssues = bookRoomInputRuleIssues(p);
  if (ruleIssues.length > 0 && patched(Patch.INPUT_RULES_ACROSS_FIELDS))
    return finish(run, Decisions.invalidInput(issueText(ruleIssues)));
  run.searchAttributes.write([
    { key: OrderIdKey, value: p.orderId },
    ...(p.checkIn ? [{ key: CheckInDateKey, value: new Date(`${p.checkIn}T00:00:00Z`) }] : []),
  ]);
  let settled: Settled = { kind: 'book' };
  if (oneTask || patched(Patch.EARLIER_RUNS_CHECKED)) {
    settled =
      wrongWorkflowId(p) ??
      (await (oneTask ? settleEarlierRuns(run, p) : settleSeparately(run, p)));
    if (settled.kind === 'decided') return finish(run, settled.decision);
    if (settled.kind === 'book' && run.cancelRequested)
      return finish(run, Decisions.cancelledBeforeBooking(run.cancelReason));
  }
  if (settled.kind === 'book') {
    const booked = await priceAndBook(run, p);
    if (booked.kind === 'decided') return finish(run, booked.decision);
  }
  const id = run.bookingId!;
  const waited = waitsForConfirmation(run)
    ? await awaitConfirmation(run, p, id)
    : ({ kind: 'final' } as const);
  if (waited.kind === 'deadline') {
    const why = `not confirmed within ${String(p.confirmationDeadline)}`;
    run.noteError({ code: 'CONFIRMATION_DEADLINE', message: why });
    if (!p.cancelOnConfirmationTimeout) return finish(run, Decisions.notConfirmed(why));
    const asked = `${why}; cancelled so it cannot confirm later`;
    const cancelled = await cancel(run, p, id, asked, oneTask);
    return finish(run, { ...cancelled, outcome: BookingOutcome.NOT_CONFIRMED });
  }
  const decision =
    run.cancelRequested && needsCancelling(run.supplierStatus)
      ? await cancel(run, p, id, run.cancelWhy(), oneTask)
      : supplierDecision(run);
  if (decision.outcome === BookingOutcome.CONFIRMED) return handOver(run, p, decision, oneTask);
  return finish(run, decision);
}

/** The earlier runs read alone, before the price check (runs before one task per step). */
async function settleSeparately(run: BookingRun, p: BookRoomParams): Promise<Settled> {
  const { earlierRunsOfOrder } = proxyLocalActivities<EarlierRunsActivities>(EARLIER_RUNS_ACTIVITY);
  try {
    const earlier = await earlierRunsOfOrder({ orderId: p.orderId, runId: workflowInfo().runId });
    return settleOn(run, p, earlier);
  } catch (err) {
    return decided(Decisions.earlierRunsUnknown(failureFacts(err).message));
  }
}

/** Rule 4, as a child (patched) or, for runs recorded before that, inline. */
async function cancel(
  run: BookingRun,
  p: BookRoomParams,
  id: number,
  why: string,
  oneTask: boolean,
): Promise<Decision> {
  run.enter(BookingPhase.CANCELLING);
  const result =
    oneTask || patched(Patch.CANCEL_AS_CHILD_WORKFLOW)
      ? await cancelAsChild(run, p, id)
      : await runCancellation(id, p.cancellationDeadline, p.polling);
  return afterCancellation(run, p, result, why);
}

/**
 * A CONFIRMED booking closes this run and is handed to its guard: a local activity in this task
 * (one task per step), an abandoned child (patched), or, for the first histories, no guard.
 */
async function handOver(
  run: BookingRun,
  p: BookRoomParams,
  decision: Decision,
  oneTask: boolean,
): Promise<BookRoomResult> {
  const result = decide(run, decision);
  run.searchAttributes.flush();
  await run.events?.flushed();
  if (run.bookingId !== undefined && (oneTask || patched(Patch.GUARD_AFTER_CONFIRMED))) {
    const input = guardInputOf(run, p, decision, oneTask);
    if (input) await (oneTask ? handOverInThisTask(input) : handOverToGuard(input));
  }
  await condition(allHandlersFinished);
  return result;
}

/**
 * The steps of `bookRoom` (book-room.ts is the script that runs them): module-level functions over
 * the run's state (booking-run.ts), each one phase of the booking. The decisions they apply are
 * pure functions in their own files (price-decision.ts, failure-decision.ts, supplier-outcome.ts,
 * earlier-runs-decision.ts). The hard rules they enforce are in docs/hard-rules.md.
 */
import {
  CancellationScope,
  allHandlersFinished,
  condition,
  executeChild,
  isCancellation,
  patched,
  proxyActivities,
  proxyLocalActivities,
  sleep,
  workflowInfo,
} from '@temporalio/workflow';
import type { BookingActivities } from '../../activities/booking';
import type { EarlierRunsActivities } from '../../activities/earlier-runs';
import type { LocalReadActivities } from '../../activities/local-reads';
import type {
  BookRoomParams,
  BookRoomResult,
  BookingError,
  PriceDecision,
  SupplierPrice,
} from '../../shared/booking-contract';
import {
  BookingOutcome,
  BookingPhase,
  CancellationOutcome,
  bookingWorkflowId,
  cancellationWorkflowId,
} from '../../shared/booking-values';
import {
  DEFAULT_APPROVAL_TIMEOUT,
  DEFAULT_APPROVAL_TIMEOUT_MS,
  DEFAULT_POLLING,
} from '../../config/defaults';
import { durationToMs } from '../../shared/duration';
import {
  BookingDecidedAtKey,
  BookingOutcomeKey,
  SupplierStatusKey,
} from '../../shared/search-attributes';
import {
  BOOKING_RESEND_BASE_DELAY_MS,
  BOOKING_SEND_ATTEMPTS,
  CREATE_BOOKING_ACTIVITY,
  EARLIER_RUNS_ACTIVITY,
  POLL_ACTIVITY,
  READ_ACTIVITY,
} from '../activity-options';
import { cancelBooking as cancelBookingWorkflow } from '../cancellation/cancel-booking';
import { runCancellation, type CancellationResult } from '../cancellation/cancellation';
import {
  afterBookingFailure,
  afterPollFailure,
  afterRecheck,
  unreadableAfterMs,
} from './failure-decision';
import { decideOnEarlierRuns } from './earlier-runs-decision';
import { OrderEventOutbox } from '../order-events/order-event-outbox';
import { failureFacts, isDeadline, toBookingError } from '../failure-facts';
import {
  GUARD_AFTER_CONFIRMED_PATCH,
  guardInput,
  handOverInThisTask,
  handOverToGuard,
} from '../earlier-versions/guard-handover';
import { approve, decidePrice, type Approved, type PriceCheckAnswer } from './price-decision';
import { outcomeAfterCancellation, readStatus } from './supplier-outcome';

import type { BookingRun } from './booking-run';
import { type Final } from './booking-run';

/**
 * Supplier calls are regular activities, under the task queue's fleet-wide rate cap
 * (`maxTaskQueueActivitiesPerSecond`) and the per-worker concurrency cap, but for the reads a run
 * makes as local activities within the worker's own budget (activities/local-reads.ts: the first
 * task's price check); a read over that budget is scheduled here instead. The booking call is
 * always a regular activity. Local activity results are encrypted like any payload
 * (test/reliability/personal-data.test.ts); they hold no personal data.
 */
const reads = proxyActivities<BookingActivities>(READ_ACTIVITY);

/** A price-check token older than this is re-checked before booking (tokens expire). */
const TOKEN_FRESH_MS = 5 * 60_000;
/** Price checks one booking may make through approvals and re-checks. */
const MAX_PRICE_ROUNDS = 4;
/**
 * Patch: bookRoom runs its cancellations as a `cancelBooking` child (id `cancel-<bookingId>`), so
 * a cancellation the supplier never confirms shows in the "cancellations never confirmed" view.
 * Histories recorded before it replay the inline cancellation.
 */
const CANCEL_AS_CHILD = 'cancel-as-child-workflow';
/** Every step tells its results apart by `kind`; `ended` carries the booking's outcome. */
export type Ended = { readonly kind: 'ended'; readonly final: Final };
export const end = (final: Final): Ended => ({ kind: 'ended', final });
type Checked = { kind: 'checked'; answer: PriceCheckAnswer } | Ended;
type Priced = { kind: 'priced'; token: string; price: SupplierPrice | undefined } | Ended;
type BookAttempt =
  | { kind: 'booked'; bookingId: number; status: string }
  | { kind: 'ambiguous'; error: BookingError }
  /** A 422's re-check found a new price or policy: decide again on this answer. */
  | { kind: 'decide-again'; answer: PriceCheckAnswer }
  | Ended;
type Reconciled = { kind: 'reconciled' } | Ended;
/** `has-booking`: an earlier run's booking is this run's booking; nothing is to be sent. */
export type Settled = { kind: 'book' } | { kind: 'has-booking' } | Ended;
type Waited = { kind: 'final' | 'deadline' | 'cancelled' };

/** Rule 1: the workflow id must be the order's (one workflow id per order, one booking). */
export function wrongWorkflowId(p: BookRoomParams): Ended | undefined {
  const expectedId = bookingWorkflowId(p.orderId);
  if (workflowInfo().workflowId === expectedId) return undefined;
  const message = `workflow id: must be '${expectedId}' for order ${p.orderId} (one workflow id per order keeps one booking per order)`;
  return end({
    outcome: BookingOutcome.FAILED,
    reason: 'invalid input',
    error: { code: 'INVALID_INPUT', message },
  });
}

/**
 * Rule 1 for callers that start the workflow id again (any SDK's default id-reuse policy, the
 * CLI, the UI): the workflow id must be the order's, and the order's earlier runs and guard
 * decide (earlier-runs-decision.ts) whether this run books, reports their booking, follows it,
 * or waits for an operator.
 */
export async function settleEarlierRuns(run: BookingRun, p: BookRoomParams): Promise<Settled> {
  const { earlierRunsOfOrder } = proxyLocalActivities<EarlierRunsActivities>(EARLIER_RUNS_ACTIVITY);
  const { earlierRunsAndPriceCheck } = proxyLocalActivities<LocalReadActivities>({
    ...EARLIER_RUNS_ACTIVITY,
    summary: `Earlier runs of order ${run.orderId}, and the price check (local)`,
  });
  const asked = { orderId: p.orderId, runId: workflowInfo().runId };
  let earlier;
  try {
    if (run.oneTaskPerStep) {
      // One local activity for both reads: the price check (a read) runs beside the check of
      // earlier runs, and nothing is booked before that check has decided.
      const both = await earlierRunsAndPriceCheck({ ...asked, optionId: p.optionId });
      earlier = both.earlier;
      run.localPrice = both.price;
    } else {
      earlier = await earlierRunsOfOrder(asked);
    }
  } catch (err) {
    const error = {
      code: 'EARLIER_RUNS_UNKNOWN',
      message: `the order's earlier runs could not be read: ${failureFacts(err).message}`,
    };
    return end({
      outcome: BookingOutcome.FAILED,
      reason: `no booking was sent: without the order's earlier runs a booking could be made twice`,
      error,
    });
  }
  const decision = decideOnEarlierRuns(earlier);
  // A run that only reports an earlier booking changes no truth: it announces nothing. The
  // order's first run may deliver at once: no earlier run can have queued an event.
  if (earlier.orderEvents && decision.next !== 'report')
    run.events = new OrderEventOutbox(p.orderId, 0, {
      firstRun: earlier.runs.length === 0 && earlier.guard === undefined,
    });
  switch (decision.next) {
    case 'book':
      return { kind: 'book' };
    case 'report':
      return end({
        outcome: decision.outcome,
        bookingId: decision.bookingId,
        ...(decision.supplierStatus !== undefined
          ? { supplierStatus: decision.supplierStatus }
          : {}),
        ...(decision.price !== undefined ? { price: decision.price } : {}),
        reason: `order ${p.orderId} was booked by an earlier run${decision.runId ? ` (${decision.runId})` : ''}: this run reports it and sent no booking`,
      });
    case 'follow':
      try {
        const snap = await reads.verifyBookingForOrder({
          bookingId: decision.bookingId,
          orderId: run.orderId,
          ...(run.orderIdField ? { orderIdField: run.orderIdField } : {}),
        });
        run.setBooking(decision.bookingId, snap.status);
        run.terms = snap.terms;
        return { kind: 'has-booking' };
      } catch (err) {
        const f = failureFacts(err);
        return reconcileEarlier(
          run,
          `an earlier run (${decision.runId}) stopped holding supplier booking ${decision.bookingId}, which cannot be read: ${f.code}`,
        );
      }
    case 'reconcile':
      return reconcileEarlier(
        run,
        `an earlier run of this order (${decision.runId}): ${decision.why}`,
      );
  }
}

/** Whether the supplier holds a booking for the order is unknown: an operator says. */
export async function reconcileEarlier(run: BookingRun, message: string): Promise<Settled> {
  const error = { code: 'EARLIER_RUN_UNRESOLVED', message };
  run.noteError(error);
  const reconciled = await reconcile(run, error);
  return reconciled.kind === 'ended' ? reconciled : { kind: 'has-booking' };
}

/**
 * Rules 2 and 1: decide on the price, then book once; a 422 whose re-check finds a new price
 * goes back to the decision. Leaves the booking id set, or ends.
 */
export async function priceAndBook(
  run: BookingRun,
  p: BookRoomParams,
): Promise<{ kind: 'booked' } | Ended> {
  run.enter(BookingPhase.PRICE_CHECK);
  const rounds = { left: MAX_PRICE_ROUNDS };
  // The first task's local price check: its answer, its refusal, or nothing (then scheduled).
  const local = run.localPrice;
  run.localPrice = undefined;
  if (local?.kind === 'failed' && !local.retryable) {
    const error = { code: local.code, message: local.message };
    return end({
      outcome: BookingOutcome.FAILED,
      reason: `price check failed: ${error.code}`,
      error,
    });
  }
  let answer: PriceCheckAnswer | undefined = local?.kind === 'read' ? local.result : undefined;
  let attempt: BookAttempt;
  for (;;) {
    const priced = await priceAndDecide(run, p, rounds, answer);
    if (priced.kind === 'ended') return priced;
    if (run.cancelRequested) return end(run.cancelledBeforeBooking());
    run.enter(BookingPhase.BOOKING);
    attempt = await bookOnce(run, p, priced);
    if (attempt.kind !== 'decide-again') break;
    answer = attempt.answer;
  }
  if (attempt.kind === 'ended') return attempt;
  if (attempt.kind === 'ambiguous') {
    const reconciled = await reconcile(run, attempt.error);
    if (reconciled.kind === 'ended') return reconciled;
  } else {
    run.setBooking(attempt.bookingId, attempt.status);
  }
  return { kind: 'booked' };
}

function priceCheckFailed(err: unknown): Ended {
  const error = toBookingError(err);
  return end({
    outcome: BookingOutcome.FAILED,
    reason: `price check failed: ${error.code}`,
    error,
  });
}

export async function checkPrice(run: BookingRun, optionId: string): Promise<Checked> {
  try {
    const { priceCheck } = proxyActivities<BookingActivities>({
      ...READ_ACTIVITY,
      summary: `Price check for order ${run.orderId}`,
    });
    return { kind: 'checked', answer: await priceCheck({ optionId }) };
  } catch (err) {
    return priceCheckFailed(err);
  }
}

/** Rule 2: price checks and decisions until there is a token to book with, or an outcome. */
export async function priceAndDecide(
  run: BookingRun,
  p: BookRoomParams,
  rounds: { left: number },
  given: PriceCheckAnswer | undefined,
): Promise<Priced> {
  let approved: Approved | undefined;
  let answer = given;
  for (; rounds.left > 0; rounds.left--) {
    run.enter(BookingPhase.PRICE_CHECK);
    const checkedAt = Date.now();
    if (!answer) {
      const pc = await checkPrice(run, p.optionId);
      if (run.cancelRequested) return end(run.cancelledBeforeBooking());
      if (pc.kind === 'ended') return pc;
      answer = pc.answer;
    }
    const verdict = decidePrice(answer, {
      expected: p.expectedPrice,
      maxIncreasePercent: p.priceChangePolicy?.maxIncreasePercent,
      acceptPolicyChange: p.priceChangePolicy?.acceptPolicyChange,
      approved,
    });
    switch (verdict.kind) {
      case 'not-available':
        return end({
          outcome: BookingOutcome.NOT_AVAILABLE,
          reason: 'the supplier says the option is not available',
        });
      case 'invalid': {
        const error = { code: 'CONTRACT', message: verdict.message };
        return end({ outcome: BookingOutcome.FAILED, reason: error.message, error });
      }
      case 'book':
        run.price = verdict.price;
        return { kind: 'priced', token: verdict.token, price: verdict.price };
      case 'ask':
        break;
    }

    // Ask a person, until approvalTimeout.
    const timeout = p.priceChangePolicy?.approvalTimeout ?? DEFAULT_APPROVAL_TIMEOUT;
    const timeoutMs = durationToMs(timeout) ?? DEFAULT_APPROVAL_TIMEOUT_MS;
    run.pendingDecision = {
      status: answer.status as PriceDecision['status'],
      ...(p.expectedPrice ? { expected: p.expectedPrice } : {}),
      ...(answer.price ? { offered: answer.price } : {}),
      ...(verdict.increasePercent !== undefined
        ? { increasePercent: verdict.increasePercent }
        : {}),
      deadline: new Date(Date.now() + timeoutMs).toISOString(),
    };
    run.decision = undefined;
    run.enter(BookingPhase.AWAITING_APPROVAL);
    const decided = await condition(
      () => run.decision !== undefined || run.cancelRequested,
      timeoutMs,
    );
    run.pendingDecision = undefined;
    if (run.cancelRequested) return end(run.cancelledBeforeBooking());
    if (!decided) {
      return end({
        outcome: BookingOutcome.PRICE_REJECTED,
        reason: `no decision within ${String(timeout)}`,
      });
    }
    if (!run.decision) {
      return end({
        outcome: BookingOutcome.PRICE_REJECTED,
        reason: `the ${answer.status} was rejected`,
      });
    }
    approved = approve(answer, approved);
    if (Date.now() - checkedAt < TOKEN_FRESH_MS) {
      run.price = verdict.price;
      return { kind: 'priced', token: verdict.token, price: verdict.price };
    }
    // The token may have expired while a person decided: check again, against what was approved.
    answer = undefined;
  }
  return end({ outcome: BookingOutcome.PRICE_REJECTED, reason: 'the price kept changing' });
}

/** Rule 1: `POST /booking`, sent again only on proof that it never arrived. */
export async function bookOnce(
  run: BookingRun,
  p: BookRoomParams,
  priced: Extract<Priced, { kind: 'priced' }>,
): Promise<BookAttempt> {
  let token = priced.token;
  let tokenRefreshed = false;
  for (let attempt = 1; ; attempt++) {
    try {
      const { createBooking } = proxyActivities<BookingActivities>({
        ...CREATE_BOOKING_ACTIVITY,
        summary: `POST /booking for order ${run.orderId} (sent at most once)`,
      });
      const r = await createBooking({
        orderId: p.orderId,
        token,
        rooms: p.rooms,
        contact: p.contact,
        customFields: p.customFields,
        ...(p.orderIdField ? { orderIdField: p.orderIdField } : {}),
      });
      return { kind: 'booked', bookingId: r.bookingId, status: r.status };
    } catch (err) {
      const f = failureFacts(err);
      const error = { code: f.code, message: f.message };
      run.noteError(error);
      const next = afterBookingFailure(f, {
        attempt,
        maxAttempts: BOOKING_SEND_ATTEMPTS,
        baseDelayMs: BOOKING_RESEND_BASE_DELAY_MS,
        cancelRequested: run.cancelRequested,
      });
      switch (next.next) {
        case 'reconcile':
          return { kind: 'ambiguous', error };
        case 'cancelled':
          return end(run.cancelledBeforeBooking());
        case 'fail':
          return end({
            outcome: BookingOutcome.FAILED,
            reason: `booking refused: ${f.code}`,
            error,
          });
        case 'resend':
          await sleep(next.delayMs);
          if (run.cancelRequested) return end(run.cancelledBeforeBooking());
          continue;
        case 'recheck-price': {
          // A 422 proves nothing was booked. Sold out, an expired token, a new price? Ask.
          const pc = await checkPrice(run, p.optionId);
          if (run.cancelRequested) return end(run.cancelledBeforeBooking());
          if (pc.kind === 'ended') return pc;
          const then = afterRecheck(pc.answer, { tokenRefreshed });
          switch (then.next) {
            case 'not-available':
              return end({
                outcome: BookingOutcome.NOT_AVAILABLE,
                reason: `sold out at booking: ${f.message}`,
              });
            case 'book-again':
              tokenRefreshed = true;
              token = then.token;
              continue;
            case 'decide':
              return { kind: 'decide-again', answer: then.answer };
            case 'fail':
              return end({
                outcome: BookingOutcome.FAILED,
                reason: `the supplier rejected the booking: ${f.message}`,
                error,
              });
          }
        }
      }
    }
  }
}

/**
 * Rule 1: the booking call was ambiguous. Waits, open and searchable, for an operator; a
 * cancellation does not end the wait (the supplier may hold a booking). Ends the booking when
 * the operator says there is none; otherwise the supplier booking they named is the booking.
 */
export async function reconcile(run: BookingRun, error: BookingError): Promise<Reconciled> {
  run.enter(BookingPhase.NEEDS_RECONCILIATION);
  await condition(() => run.resolution !== undefined);
  if (!run.resolution || 'noBooking' in run.resolution) {
    return end(
      run.cancelRequested
        ? {
            outcome: BookingOutcome.CANCELLED,
            reason: 'cancelled; an operator confirmed no supplier booking exists',
          }
        : {
            outcome: BookingOutcome.FAILED,
            reason: 'an operator confirmed that no supplier booking exists',
            error,
          },
    );
  }
  // The price stays the one decided on: the retrieve's total is not a net price.
  run.setBooking(run.resolution.bookingId, run.resolution.snapshot.status);
  return { kind: 'reconciled' };
}

/**
 * Rule 3: polls until the booking's status is final, the deadline passes or a cancellation is
 * asked for. A failed read proves nothing: the poll goes on; when reads fail for long the
 * booking shows as `STATUS_UNREADABLE` (still polled) until a read succeeds again.
 */
export async function awaitConfirmation(
  run: BookingRun,
  p: BookRoomParams,
  id: number,
): Promise<Waited> {
  if (run.cancelRequested || readStatus(run.supplierStatus ?? '').kind === 'final')
    return { kind: 'final' };
  run.enter(BookingPhase.AWAITING_CONFIRMATION);
  const polling = p.polling ?? DEFAULT_POLLING;
  const until = Date.now() + (durationToMs(p.confirmationDeadline) ?? 48 * 3_600_000);
  let unreadable = false;
  run.pollScope = new CancellationScope();
  try {
    for (;;) {
      const { awaitFinalBookingStatus } = proxyActivities<BookingActivities>({
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

/** Rule 4: cancels the supplier booking; the outcome follows what the supplier confirmed. */
export async function cancelExisting(
  run: BookingRun,
  p: BookRoomParams,
  id: number,
  why: string,
): Promise<Final> {
  run.enter(BookingPhase.CANCELLING);
  const polling = p.polling ?? DEFAULT_POLLING;
  let result: CancellationResult;
  if (run.oneTaskPerStep || patched(CANCEL_AS_CHILD)) {
    try {
      result = await executeChild(cancelBookingWorkflow, {
        workflowId: cancellationWorkflowId(id),
        args: [
          {
            bookingId: id,
            orderId: p.orderId,
            deadline: p.cancellationDeadline,
            polling,
            ...(run.cancelReason ? { reason: run.cancelReason } : {}),
          },
        ],
      });
    } catch (err) {
      // An operator's cancelBooking of this booking is running: cancel alongside it (harmless).
      if (!(err instanceof Error && err.name === 'WorkflowExecutionAlreadyStartedError')) throw err;
      result = await runCancellation(id, p.cancellationDeadline, polling);
    }
  } else {
    result = await runCancellation(id, p.cancellationDeadline, polling);
  }
  const outcome = outcomeAfterCancellation(result.outcome, run.supplierStatus);
  if (result.outcome === CancellationOutcome.STILL_ACTIVE) {
    run.noteError({ code: 'CANCELLATION_NOT_CONFIRMED', message: result.reason ?? 'STILL_ACTIVE' });
    return {
      outcome,
      reason: `${why}, but the supplier did not confirm the cancellation within ${String(p.cancellationDeadline)}: an operator is needed`,
      cancellation: { outcome: result.outcome },
    };
  }
  run.supplierStatus = 'CANCELLED';
  run.sa.write([{ key: SupplierStatusKey, value: 'CANCELLED' }]);
  return {
    outcome,
    reason: why,
    cancellation: {
      outcome: result.outcome,
      ...(run.cancelReason ? { reason: run.cancelReason } : {}),
    },
  };
}

/** The one place where a CONFIRMED booking is finished (what follows a confirmation goes here). */
export async function finishConfirmed(
  run: BookingRun,
  p: BookRoomParams,
  final: Final = { outcome: BookingOutcome.CONFIRMED },
): Promise<BookRoomResult> {
  // The guard's input, built once the phase reads CONFIRMED (so cancel requests go to the guard).
  const handOver = (bookingId: number) =>
    guardInput(p, {
      bookingId,
      price: run.price,
      cancellationPending: final.cancellation?.outcome === CancellationOutcome.STILL_ACTIVE,
      events: run.events,
      // The guard starts from the last read's terms (runs of this shape only).
      terms:
        run.oneTaskPerStep && run.terms && run.supplierStatus === 'CONFIRMED'
          ? { status: run.supplierStatus, ...run.terms }
          : undefined,
    });
  const { guardHere } = run;
  if (guardHere) {
    // bookRoomAndGuard: this workflow guards the booking itself, from the deciding task on.
    return finish(run, final, undefined, () => {
      const input = run.bookingId !== undefined ? handOver(run.bookingId) : undefined;
      if (input) guardHere({ ...input, startedInOneTask: true });
    });
  }
  // bookRoom: the order is handed to its guard (guardBooking, until check-out). Patched:
  // histories recorded before it close here without a guard.
  return finish(run, final, async () => {
    if (run.bookingId === undefined) return;
    if (!run.oneTaskPerStep && !patched(GUARD_AFTER_CONFIRMED_PATCH)) return;
    const input = handOver(run.bookingId);
    if (!input) return;
    await (run.oneTaskPerStep ? handOverInThisTask(input) : handOverToGuard(input));
  });
}

/**
 * The booking's decision: its search attributes and phase, then (`onDecided`, in the same
 * activation) the guard of a run that lives on, or the run's close: the last writes, the order
 * events, `afterOutcome` (the hand-over to a guard of its own) and the running update handlers.
 */
export async function finish(
  run: BookingRun,
  final: Final,
  afterOutcome?: () => Promise<void>,
  onDecided?: () => void,
): Promise<BookRoomResult> {
  run.outcome = final.outcome;
  run.reason = final.reason;
  if (final.error) run.noteError(final.error);
  if (final.bookingId !== undefined && final.bookingId !== run.bookingId) {
    run.setBooking(final.bookingId, final.supplierStatus ?? run.supplierStatus ?? 'UNKNOWN');
  }
  run.sa.write([
    { key: BookingOutcomeKey, value: final.outcome },
    ...(run.livesOn ? [{ key: BookingDecidedAtKey, value: new Date() }] : []),
  ]);
  run.enter(final.outcome);
  const decided = decision(run, final);
  run.decided = decided;
  onDecided?.();
  // Guarded here: the step's writes go out with the guard's first ones (one upsert), its events
  // through the same outbox, and the handlers are waited for when the guard closes.
  if (run.guarding) return decided;
  run.sa.flush();
  // Announced before the guard starts, so its events come after this one.
  await run.events?.flushed();
  await afterOutcome?.();
  // Let running update handlers return their answer before the workflow closes.
  await condition(allHandlersFinished);
  return decided;
}

/** The run's decision: the outcome with what the run knows of the booking. */
function decision(run: BookingRun, final: Final): BookRoomResult {
  return {
    orderId: run.orderId,
    ...final,
    ...(run.bookingId !== undefined && final.bookingId === undefined
      ? { bookingId: run.bookingId }
      : {}),
    ...(run.supplierStatus !== undefined && final.supplierStatus === undefined
      ? { supplierStatus: run.supplierStatus }
      : {}),
    ...(run.price !== undefined && final.price === undefined ? { price: run.price } : {}),
  };
}

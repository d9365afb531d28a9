/**
 * Rule 1 for callers that start the workflow id again: the id must be the order's, and the earlier
 * runs decide (earlier-runs-decision.ts) whether this run books; nothing is booked before that.
 */
import { patched, proxyLocalActivities, workflowInfo } from '@temporalio/workflow';
import type { EarlierRuns } from '../../activities/earlier-runs';
import type { LocalReadActivities } from '../../activities/local-reads';
import type { BookRoomParams } from '../../shared/booking-contract';
import { BookingOutcome, bookingWorkflowId } from '../../shared/booking-values';
import { Patch } from '../../shared/compatibility';
import type { BookingActivities, BookingSnapshot } from '../../activities/booking';
import { EARLIER_RUNS_ACTIVITY, READ_ACTIVITY, accountActivities } from '../activity-options';
import { failureFacts } from '../failure-facts';
import { OrderEventOutbox } from '../../order-events/workflows/outbox';
import { CANCEL_TAKEN, refusal, type BookingRun } from './booking-run';
import { reconcile } from './confirmation';
import { Decisions, decided, type Decided } from './decisions';
import { decideOnEarlierRuns, type EarlierReport } from './earlier-runs-decision';
import { cancelSupplierBooking } from './cancel-supplier-booking';
import { cancellationTerms, decideCancellation, stayInstants } from '../guard/guard-decisions';
import { GuardPhase } from '../../shared/guard-values';

/** The supplier's read of `bookingId`, on the order's account: it must carry this order's id. */
export function verifyBooking(run: BookingRun, bookingId: number): Promise<BookingSnapshot> {
  const reads = accountActivities<BookingActivities>(run.supplier, READ_ACTIVITY);
  return reads.verifyBookingForOrder({
    bookingId,
    orderId: run.orderId,
    ...(run.orderIdField ? { orderIdField: run.orderIdField } : {}),
  });
}

/** `has-booking`: an earlier run's booking is this run's booking; nothing is to be sent. */
export type Settled = { readonly kind: 'book' } | { readonly kind: 'has-booking' } | Decided;

/** Rule 1: the workflow id must be the order's (one workflow id per order, one booking). */
export function wrongWorkflowId(p: Pick<BookRoomParams, 'orderId'>): Decided | undefined {
  const expectedId = bookingWorkflowId(p.orderId);
  if (workflowInfo().workflowId === expectedId) return undefined;
  return decided(
    Decisions.invalidInput(
      `workflow id: must be '${expectedId}' for order ${p.orderId} (one workflow id per order keeps one booking per order)`,
    ),
  );
}

/**
 * Reads the order's earlier runs and, for an order that has none, the price check (one local
 * activity), then settles on them. `p` without an option id is the order id alone: it never books.
 */
export function settleEarlierRuns(run: BookingRun, p: Reach): Promise<Settled> {
  const { earlierRunsAndPriceCheck } = proxyLocalActivities<LocalReadActivities>({
    ...EARLIER_RUNS_ACTIVITY,
    summary: `Earlier runs of order ${run.orderId}${p.optionId ? ', and the price check' : ''} (local)`,
  });
  return earlierRunsAndPriceCheck({
    orderId: p.orderId,
    runId: workflowInfo().runId,
    ...(p.optionId ? { optionId: p.optionId } : {}),
    ...(run.supplier !== undefined ? { supplier: run.supplier } : {}),
  }).then(
    (both) => {
      run.localPrice = both.price;
      run.accountRefused = both.account;
      return settleOn(run, p, both.earlier);
    },
    (err) => decided(Decisions.earlierRunsUnknown(failureFacts(err).message)),
  );
}

/** What settling needs of the order: all of it to book, its id alone to reach it. */
export type Reach = Pick<BookRoomParams, 'orderId'> &
  Partial<Pick<BookRoomParams, 'optionId' | 'cancellationDeadline' | 'polling'>>;

/**
 * What the order's earlier runs say this run does (earlier-runs-decision.ts). Synchronous where
 * nothing is read: the order's first run, the common case, makes no promise here.
 */
export function settleOn(
  run: BookingRun,
  p: Reach,
  earlier: EarlierRuns,
): Settled | Promise<Settled> {
  const decision = decideOnEarlierRuns(earlier);
  // A run that only reports an earlier decision changes no truth: it announces nothing. The
  // order's first run may deliver at once: no earlier run can have queued an event.
  if (earlier.orderEvents && decision.next !== 'report')
    run.events = new OrderEventOutbox(p.orderId, 0, {
      firstRun: earlier.runs.length === 0 && earlier.guard === undefined,
      supplier: run.supplier,
    });
  if (decision.next === 'report') return reportEarlier(run, p, decision, earlier.orderEvents);
  // The order id alone books nothing and takes over nothing: only the order's input can.
  if (!p.optionId) {
    run.cancelAnswer = noOrderRefusal(p.orderId);
    return decided(
      Decisions.noOrder(
        p.orderId,
        decision.next === 'book'
          ? 'no run of this order has decided it'
          : `an earlier run (${decision.runId}) stopped before its decision: start the order with its input to take it over`,
      ),
    );
  }
  run.cancelAnswer = CANCEL_TAKEN;
  switch (decision.next) {
    case 'book':
      return { kind: 'book' };
    case 'follow':
      return follow(run, decision);
    case 'reconcile':
      return reconcileEarlier(
        run,
        `an earlier run of this order (${decision.runId}): ${decision.why}`,
      );
  }
}

/**
 * One decision per order id: this run answers the earlier decision and sends nothing, unless asked
 * to cancel a supplier booking nobody guards: then it cancels it after the guard's checks. Runs
 * recorded before the patch booked again after a decision without a booking.
 */
function reportEarlier(
  run: BookingRun,
  p: Reach,
  d: EarlierReport,
  orderEvents: boolean | undefined,
): Settled | Promise<Settled> {
  const report = decided(Decisions.decidedByEarlierRun(p.orderId, d));
  const oneDecision = patched(Patch.ONE_DECISION_PER_ORDER);
  const asksAgain = d.bookingId === undefined || (run.cancelRequested && d.holdsBooking);
  if (asksAgain && p.optionId && !oneDecision) {
    run.cancelAnswer = CANCEL_TAKEN;
    if (d.bookingId !== undefined) return report;
    // As those runs did: they booked again, announcing as any run after the order's first.
    if (orderEvents)
      run.events = new OrderEventOutbox(p.orderId, 0, { firstRun: false, supplier: run.supplier });
    return { kind: 'book' };
  }
  // The order's decision is the earlier run's: this run answers it and counts none of its own.
  run.answersEarlier = oneDecision;
  if (!run.cancelRequested || !d.holdsBooking) {
    run.cancelAnswer =
      d.outcome === BookingOutcome.CANCELLED
        ? CANCEL_TAKEN
        : refusal(
            'NOTHING_TO_CANCEL',
            `Order ${p.orderId} was decided ${d.outcome}${d.bookingId !== undefined ? ` and its supplier booking ${d.bookingId} no longer stands` : ' without a supplier booking'}: nothing is left to cancel`,
          );
    return report;
  }
  if (orderEvents) run.events = new OrderEventOutbox(p.orderId, 0, { supplier: run.supplier });
  return cancelTakenOver(run, p, d.bookingId!).then((d2) => d2 ?? report);
}

/** Cancels a booking an earlier run decided and nobody guards; undefined when it is refused. */
async function cancelTakenOver(
  run: BookingRun,
  p: Reach,
  bookingId: number,
): Promise<Decided | undefined> {
  let snap;
  try {
    snap = await verifyBooking(run, bookingId);
  } catch (err) {
    const f = failureFacts(err);
    run.cancelAnswer = refusal(
      f.code,
      `Supplier booking ${bookingId} of order ${run.orderId} cannot be read (${f.message}): nothing was cancelled`,
    );
    return undefined;
  }
  const verdict = decideCancellation({
    orderId: run.orderId,
    now: Date.now(),
    phase: GuardPhase.CONFIRMED,
    terms: cancellationTerms({
      refundable: snap.terms?.refundable ?? undefined,
      supplierPenaltyDate: snap.terms?.penaltyDate,
    }),
    checkInAt: stayInstants({ checkIn: snap.terms?.checkIn ?? undefined }).checkInAt,
    acceptPenalty: run.acceptPenalty,
  });
  if (verdict.kind === 'refuse') {
    run.cancelAnswer = refusal(verdict.code, verdict.message);
    return undefined;
  }
  run.cancelAnswer = CANCEL_TAKEN;
  run.setBooking(bookingId, snap.status);
  return decided(await cancelSupplierBooking(run, p, bookingId, run.cancelWhy()));
}

/** The refusal of a cancel sent with the order id alone to an order with no decision. */
const noOrderRefusal = (orderId: string) =>
  refusal('NO_ORDER', `Order ${orderId} has no decision on record: nothing to cancel`);

/** An earlier run held a booking: this run holds it from here on, once it reads as the order's. */
async function follow(
  run: BookingRun,
  decision: { readonly bookingId: number; readonly runId: string },
): Promise<Settled> {
  try {
    const snap = await verifyBooking(run, decision.bookingId);
    run.setBooking(decision.bookingId, snap.status);
    run.terms = snap.terms;
    return { kind: 'has-booking' };
  } catch (err) {
    return reconcileEarlier(
      run,
      `an earlier run (${decision.runId}) stopped holding supplier booking ${decision.bookingId}, which cannot be read: ${failureFacts(err).code}`,
    );
  }
}

/** Whether the supplier holds a booking for the order is unknown: an operator says. */
async function reconcileEarlier(run: BookingRun, message: string): Promise<Settled> {
  const error = { code: 'EARLIER_RUN_UNRESOLVED', message };
  run.noteError(error);
  const reconciled = await reconcile(run, error);
  return reconciled.kind === 'decided' ? reconciled : { kind: 'has-booking' };
}

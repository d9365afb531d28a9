/**
 * Rule 1 for callers that start the workflow id again (any SDK's default id-reuse policy, a
 * conflict policy that terminates, the CLI, the UI): the workflow id must be the order's, and the
 * order's earlier runs decide (earlier-runs-decision.ts) whether this run books, reports their
 * booking, takes it over, or waits for an operator. Nothing is booked before that check decided.
 */
import { proxyActivities, proxyLocalActivities, workflowInfo } from '@temporalio/workflow';
import type { BookingActivities } from '../../activities/booking';
import type { EarlierRuns } from '../../activities/earlier-runs';
import type { LocalReadActivities } from '../../activities/local-reads';
import type { BookRoomParams } from '../../shared/booking-contract';
import { bookingWorkflowId } from '../../shared/booking-values';
import { EARLIER_RUNS_ACTIVITY, READ_ACTIVITY } from '../activity-options';
import { failureFacts } from '../failure-facts';
import { OrderEventOutbox } from '../order-events/order-event-outbox';
import type { BookingRun } from './booking-run';
import { reconcile } from './confirmation';
import { Decisions, decided, type Decided } from './decisions';
import { decideOnEarlierRuns } from './earlier-runs-decision';

const reads = proxyActivities<BookingActivities>(READ_ACTIVITY);

/** `has-booking`: an earlier run's booking is this run's booking; nothing is to be sent. */
export type Settled = { readonly kind: 'book' } | { readonly kind: 'has-booking' } | Decided;

/** Rule 1: the workflow id must be the order's (one workflow id per order, one booking). */
export function wrongWorkflowId(p: BookRoomParams): Decided | undefined {
  const expectedId = bookingWorkflowId(p.orderId);
  if (workflowInfo().workflowId === expectedId) return undefined;
  return decided(
    Decisions.invalidInput(
      `workflow id: must be '${expectedId}' for order ${p.orderId} (one workflow id per order keeps one booking per order)`,
    ),
  );
}

/**
 * Reads the order's earlier runs and, beside them in the same local activity, the price check (a
 * read), then settles on what the runs say.
 */
export function settleEarlierRuns(run: BookingRun, p: BookRoomParams): Promise<Settled> {
  const { earlierRunsAndPriceCheck } = proxyLocalActivities<LocalReadActivities>({
    ...EARLIER_RUNS_ACTIVITY,
    summary: `Earlier runs of order ${run.orderId}, and the price check (local)`,
  });
  return earlierRunsAndPriceCheck({
    orderId: p.orderId,
    runId: workflowInfo().runId,
    optionId: p.optionId,
  }).then(
    (both) => {
      run.localPrice = both.price;
      return settleOn(run, p, both.earlier);
    },
    (err) => decided(Decisions.earlierRunsUnknown(failureFacts(err).message)),
  );
}

/**
 * What the order's earlier runs say this run does (earlier-runs-decision.ts). Synchronous where
 * nothing is read: the order's first run, the common case, makes no promise here.
 */
export function settleOn(
  run: BookingRun,
  p: BookRoomParams,
  earlier: EarlierRuns,
): Settled | Promise<Settled> {
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
      return decided(Decisions.bookedByEarlierRun(p.orderId, decision));
    case 'follow':
      return follow(run, decision);
    case 'reconcile':
      return reconcileEarlier(
        run,
        `an earlier run of this order (${decision.runId}): ${decision.why}`,
      );
  }
}

/** An earlier run held a booking: this run holds it from here on, once it reads as the order's. */
async function follow(
  run: BookingRun,
  decision: { readonly bookingId: number; readonly runId: string },
): Promise<Settled> {
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
}

/** Whether the supplier holds a booking for the order is unknown: an operator says. */
async function reconcileEarlier(run: BookingRun, message: string): Promise<Settled> {
  const error = { code: 'EARLIER_RUN_UNRESOLVED', message };
  run.noteError(error);
  const reconciled = await reconcile(run, error);
  return reconciled.kind === 'decided' ? reconciled : { kind: 'has-booking' };
}

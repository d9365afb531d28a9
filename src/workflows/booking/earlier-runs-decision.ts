/**
 * What a new run of `bookRoom` does about the order's earlier runs, pure (docs/hard-rules.md,
 * rule 1: at most one supplier booking per order, whoever starts the workflow). A plain Temporal
 * client starts a workflow id again with its default id-reuse policy (`ALLOW_DUPLICATE`), and a
 * conflict policy may terminate a running one, so the workflow itself asks, before its first
 * supplier call, what the order's earlier runs and its guard did (activities/earlier-runs.ts).
 *
 * The rule, newest evidence first:
 * - a guard exists, or an earlier run holds a supplier booking id: the order has a booking. A run
 *   that finished reports it (its outcome, booking id, status, price) and nothing is sent; a run
 *   that stopped before it finished (terminated, timed out) hands its booking to the new run,
 *   which follows it without booking again;
 * - an earlier run stopped while its booking call may have been in flight (`BOOKING`,
 *   `NEEDS_RECONCILIATION`), or its record cannot be read: nobody can know whether the supplier
 *   booked, so the new run waits for an operator's reconciliation, as after an ambiguous call;
 * - an earlier run that completed without a booking settled everything before it (it ran this
 *   same check first): the new run may book. So may a run whose earlier runs all stopped before any
 *   booking call, or that has none.
 */
import { BookingOutcome, BookingPhase } from '../../shared/booking-values';
import type { EarlierRuns } from '../../activities/earlier-runs';
import type { SupplierPrice } from '../../shared/booking-contract';

export type EarlierRunsDecision =
  | { readonly next: 'book' }
  | {
      readonly next: 'report';
      readonly runId: string | undefined;
      readonly outcome: BookingOutcome;
      readonly bookingId: number;
      readonly supplierStatus?: string;
      readonly price?: SupplierPrice;
    }
  | { readonly next: 'follow'; readonly runId: string; readonly bookingId: number }
  | { readonly next: 'reconcile'; readonly runId: string; readonly why: string };

/** Phases in which a booking call may have been sent and its answer is not known. */
const CALL_MAY_BE_OUT: ReadonlySet<string> = new Set([
  BookingPhase.BOOKING,
  BookingPhase.NEEDS_RECONCILIATION,
]);
/** Phases that come only after the supplier answered with a booking id. */
const AFTER_BOOKING: ReadonlySet<string> = new Set([
  BookingPhase.AWAITING_CONFIRMATION,
  BookingPhase.STATUS_UNREADABLE,
  BookingPhase.CANCELLING,
]);
const OUTCOMES: ReadonlySet<string> = new Set(Object.values(BookingOutcome));

function asOutcome(v: string | undefined): BookingOutcome | undefined {
  return v !== undefined && OUTCOMES.has(v) ? (v as BookingOutcome) : undefined;
}

export function decideOnEarlierRuns(earlier: EarlierRuns): EarlierRunsDecision {
  const runs = [...earlier.runs].sort((a, b) => b.startTime.localeCompare(a.startTime));
  const guard = earlier.guard;
  if (guard?.bookingId !== undefined) {
    // The guard holds a confirmed booking: report it with the newest run that names it.
    const holder = runs.find(
      (r) => (r.result?.bookingId ?? r.bookingId) === guard.bookingId && r.result,
    );
    return {
      next: 'report',
      runId: holder?.runId,
      outcome: asOutcome(holder?.result?.outcome) ?? BookingOutcome.CONFIRMED,
      bookingId: guard.bookingId,
      ...(holder?.result?.supplierStatus !== undefined
        ? { supplierStatus: holder.result.supplierStatus }
        : {}),
      ...(holder?.result?.price !== undefined ? { price: holder.result.price } : {}),
    };
  }
  for (const run of runs) {
    if (run.unreadable !== undefined) {
      return {
        next: 'reconcile',
        runId: run.runId,
        why: `its record cannot be read (${run.unreadable})`,
      };
    }
    if (run.status === 'RUNNING') {
      return { next: 'reconcile', runId: run.runId, why: 'it reads as still running' };
    }
    if (run.status === 'COMPLETED' && run.result) {
      const r = run.result;
      const bookingId = r.bookingId ?? run.bookingId;
      const outcome = asOutcome(r.outcome);
      if (bookingId !== undefined && outcome !== undefined) {
        return {
          next: 'report',
          runId: run.runId,
          outcome,
          bookingId,
          ...(r.supplierStatus !== undefined ? { supplierStatus: r.supplierStatus } : {}),
          ...(r.price !== undefined ? { price: r.price } : {}),
        };
      }
      // An invalid input ends before the check: such a run settled nothing before it.
      if (r.errorCode === 'INVALID_INPUT') continue;
      return { next: 'book' };
    }
    // Stopped before it finished: terminated, timed out, failed, cancelled, continued.
    if (run.bookingId !== undefined)
      return { next: 'follow', runId: run.runId, bookingId: run.bookingId };
    if (
      run.phase !== undefined &&
      (CALL_MAY_BE_OUT.has(run.phase) || AFTER_BOOKING.has(run.phase))
    ) {
      return {
        next: 'reconcile',
        runId: run.runId,
        why: `it stopped (${run.status}) in ${run.phase}, when its booking call may have reached the supplier`,
      };
    }
    // It stopped before any booking call (price check, approval): look further back.
  }
  return { next: 'book' };
}

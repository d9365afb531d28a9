/**
 * What a new run of `bookRoom` does about the order's earlier runs, newest evidence first, pure:
 * rule 1, one booking and one decision per order (docs/contract.md, "One booking per order").
 */
import { BookingOutcome, BookingPhase } from '../../shared/booking-values';
import type { EarlierRuns } from '../../activities/earlier-runs';
import type { SupplierPrice } from '../../shared/booking-contract';
import { defined } from '../../shared/defined';

/** An earlier run's decision, reported by this run. */
export interface EarlierReport {
  readonly next: 'report';
  readonly runId: string | undefined;
  readonly outcome: BookingOutcome;
  readonly bookingId?: number;
  readonly supplierStatus?: string;
  readonly price?: SupplierPrice;
  /** The order still holds this supplier booking: a `cancel` cancels it. */
  readonly holdsBooking: boolean;
}

export type EarlierRunsDecision =
  | { readonly next: 'book' }
  | EarlierReport
  | { readonly next: 'follow'; readonly runId: string; readonly bookingId: number }
  | { readonly next: 'reconcile'; readonly runId: string; readonly why: string };

/** Phases in which a booking call may have been sent (answered with a booking id, or not yet). */
const CALL_SENT: ReadonlySet<string> = new Set([
  BookingPhase.BOOKING,
  BookingPhase.NEEDS_RECONCILIATION,
  BookingPhase.AWAITING_CONFIRMATION,
  BookingPhase.STATUS_UNREADABLE,
  BookingPhase.CANCELLING,
]);
const OUTCOMES: ReadonlySet<string> = new Set(Object.values(BookingOutcome));
/** Error codes of runs that decided nothing: input refused, or the order id alone found no order. */
export const SETTLED_NOTHING: ReadonlySet<string> = new Set(['INVALID_INPUT', 'NO_ORDER']);
/** Guard phases in which the supplier booking no longer stands (cancelled, or the stay is over). */
const BOOKING_GONE: ReadonlySet<string> = new Set([
  'CANCELLED',
  'CANCELLED_BY_SUPPLIER',
  'CHECKED_OUT',
]);

export function asOutcome(v: string | undefined): BookingOutcome | undefined {
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
      // The earlier version's guard holds it: a cancel goes there (client/earlier-versions.ts).
      holdsBooking: false,
      ...defined({ supplierStatus: holder?.result?.supplierStatus, price: holder?.result?.price }),
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
    if (run.status === 'RUNNING')
      return { next: 'reconcile', runId: run.runId, why: 'it reads as still running' };
    if (run.status === 'COMPLETED' && run.result) {
      const r = run.result;
      const outcome = asOutcome(r.outcome);
      if (outcome === undefined || SETTLED_NOTHING.has(r.errorCode ?? '')) continue;
      const bookingId = r.bookingId ?? run.bookingId;
      return {
        next: 'report',
        runId: run.runId,
        outcome,
        ...defined({ bookingId, supplierStatus: r.supplierStatus, price: r.price }),
        holdsBooking:
          bookingId !== undefined &&
          outcome !== BookingOutcome.CANCELLED &&
          r.supplierStatus !== 'CANCELLED' &&
          !BOOKING_GONE.has(r.guardPhase ?? ''),
      };
    }
    // Stopped before it finished: terminated, timed out, failed, cancelled, continued.
    if (run.bookingId !== undefined)
      return { next: 'follow', runId: run.runId, bookingId: run.bookingId };
    if (run.phase !== undefined && CALL_SENT.has(run.phase)) {
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

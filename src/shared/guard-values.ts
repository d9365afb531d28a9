/**
 * The zod-free values of the guard's contract (names, ids, phases). Workflow code imports this
 * module, never the zod schemas (see booking-values.ts); `guard-contract.ts` re-exports it.
 */
import { WorkflowIdReusePolicy } from '@temporalio/common';
import { BOOK_ROOM_AND_GUARD_WORKFLOW, BOOK_ROOM_WORKFLOW } from './booking-values';
import { BookingPhaseKey, OrderIdKey, SupplierBookingIdKey } from './search-attributes';

export const GUARD_BOOKING_WORKFLOW = 'guardBooking';
/**
 * Visibility filter: the workflows that guard a confirmed order: the order's own (`bookRoom`, and
 * its earlier name), and the guards of earlier versions (`guardBooking`). The guard's attributes
 * and phases are only written once the order is CONFIRMED.
 */
export const GUARDING_WORKFLOWS = `WorkflowType IN ('${BOOK_ROOM_WORKFLOW}', '${BOOK_ROOM_AND_GUARD_WORKFLOW}', '${GUARD_BOOKING_WORKFLOW}')`;

/** `guard-<orderId>`: an earlier version's guard of the order (src/workflows/earlier-versions/). */
export function guardWorkflowId(orderId: string): string {
  return `guard-${orderId}`;
}

/**
 * How an order's guard is started, whoever starts it (bookRoom's hand-over, as a local activity
 * or, for runs recorded before that, a child): its id, one guard per order ever
 * (`REJECT_DUPLICATE`), and the search attributes it starts with.
 */
export function guardStart(input: { readonly orderId: string; readonly bookingId: number }) {
  return {
    workflowId: guardWorkflowId(input.orderId),
    workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
    typedSearchAttributes: [
      { key: OrderIdKey, value: input.orderId },
      { key: SupplierBookingIdKey, value: input.bookingId },
      { key: BookingPhaseKey, value: GuardPhase.CONFIRMED },
    ],
  };
}

/** The guard's phases. `BookingPhase` (the search attribute) carries them too. */
export const GuardPhase = {
  /** Confirmed and guarded: reconfirmed before check-in, cancellable by order id. */
  CONFIRMED: 'CONFIRMED',
  /** Our cancellation is running (rule 4: a 202 is polled until the supplier confirms). */
  CANCELLING: 'CANCELLING',
  /** The supplier did not confirm our cancellation by the deadline: an operator is needed. */
  CANCELLATION_PENDING: 'CANCELLATION_PENDING',
  /** Cancelled by us (final). */
  CANCELLED: 'CANCELLED',
  /** The supplier cancelled it: flagged for an operator (final). */
  CANCELLED_BY_SUPPLIER: 'CANCELLED_BY_SUPPLIER',
  /** A reconfirmation read something other than CONFIRMED (not found, pending, unreadable). */
  NEEDS_ATTENTION: 'NEEDS_ATTENTION',
  /** The stay is over and the booking stood to the end (final). */
  CHECKED_OUT: 'CHECKED_OUT',
} as const;
export type GuardPhase = (typeof GuardPhase)[keyof typeof GuardPhase];

export const FINAL_GUARD_PHASES: readonly GuardPhase[] = [
  GuardPhase.CANCELLED,
  GuardPhase.CANCELLED_BY_SUPPLIER,
  GuardPhase.CHECKED_OUT,
];

/**
 * How long before free cancellation ends the order system is told
 * (`order.free_cancellation_ending`, src/workflows/guard/guard-decisions.ts) and the operator's
 * reminder view looks ahead (src/observability/saved-queries.ts): 48 h.
 */
export const ENDING_NOTICE_MS = 48 * 3_600_000;

/** Values of the `Reconfirmation` search attribute. */
export const ReconfirmationMark = { CONFIRMED: 'CONFIRMED', FLAGGED: 'FLAGGED' } as const;
export type ReconfirmationMark = (typeof ReconfirmationMark)[keyof typeof ReconfirmationMark];

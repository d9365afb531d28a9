/**
 * A booking's decision: its outcome, the reason for people, what went wrong. One named constructor
 * per kind, so a step says which it reached, not how the record is spelled. Pure.
 */
import type { BookRoomResult, BookingError } from '../../shared/booking-contract';
import { BookingOutcome, type CancellationOutcome } from '../../shared/booking-values';
import { SUPPLIER_ACCOUNT_DISABLED } from '../../shared/supplier-accounts';
import { defined } from '../../shared/defined';
import type { EarlierReport } from './earlier-runs-decision';

/** A decision without the order id (the run adds it). */
export type Decision = Omit<BookRoomResult, 'orderId'>;

/** What a step returns once the booking has its decision; other results tell apart by `kind`. */
export type Decided = { readonly kind: 'decided'; readonly decision: Decision };
export const decided = (decision: Decision): Decided => ({ kind: 'decided', decision });

const failed = (reason: string, error: BookingError): Decision => ({
  outcome: BookingOutcome.FAILED,
  reason,
  error,
});

export const Decisions = {
  /** The input breaks a rule of the contract (rule 7): nothing was sent. */
  invalidInput: (message: string): Decision =>
    failed('invalid input', { code: 'INVALID_INPUT', message }),
  /** Nothing was sent: the order's earlier runs could not be read (rule 1). */
  earlierRunsUnknown: (message: string): Decision =>
    failed("no booking was sent: without the order's earlier runs a booking could be made twice", {
      code: 'EARLIER_RUNS_UNKNOWN',
      message: `the order's earlier runs could not be read: ${message}`,
    }),
  /** The order names an account the workers have not configured, or one that is disabled. */
  accountRefused: (supplier: string, status: 'unknown' | 'disabled'): Decision =>
    status === 'unknown'
      ? Decisions.invalidInput(
          `supplier: no account '${supplier}' is configured on the workers (SUPPLIER_ACCOUNTS); nothing was sent`,
        )
      : failed(`supplier account ${supplier} is disabled: it takes no new orders`, {
          code: SUPPLIER_ACCOUNT_DISABLED,
          message: `supplier account '${supplier}' is disabled on the workers; nothing was sent`,
        }),
  /** An earlier run of the order decided it: this run reports that decision and sends nothing. */
  decidedByEarlierRun: (orderId: string, earlier: Omit<EarlierReport, 'next'>): Decision => ({
    outcome: earlier.outcome,
    ...defined({
      bookingId: earlier.bookingId,
      supplierStatus: earlier.supplierStatus,
      price: earlier.price,
    }),
    reason: `order ${orderId} was decided by an earlier run${earlier.runId ? ` (${earlier.runId})` : ''}: this run reports that decision and sent nothing to the supplier (a new attempt takes a new order id)`,
  }),
  /**
   * The order id alone (a start that only reaches the order) found no decision to answer: nothing
   * was sent, and the order id stays free for a start with the order's input.
   */
  noOrder: (orderId: string, why: string): Decision =>
    failed(`no decision of order ${orderId} is on record`, { code: 'NO_ORDER', message: why }),
  priceCheckFailed: (error: BookingError): Decision =>
    failed(`price check failed: ${error.code}`, error),
  contractBroken: (message: string): Decision => failed(message, { code: 'CONTRACT', message }),
  notAvailable: (reason: string): Decision => ({ outcome: BookingOutcome.NOT_AVAILABLE, reason }),
  priceRejected: (reason: string): Decision => ({ outcome: BookingOutcome.PRICE_REJECTED, reason }),
  cancelledBeforeBooking: (cancelReason: string | undefined): Decision => ({
    outcome: BookingOutcome.CANCELLED,
    reason: `cancelled before any supplier booking was made${cancelReason ? `: ${cancelReason}` : ''}`,
  }),
  /** The supplier refused the booking call (rule 1: proof that nothing was booked). */
  bookingRefused: (error: BookingError): Decision =>
    failed(`booking refused: ${error.code}`, error),
  bookingRejected: (error: BookingError): Decision =>
    failed(`the supplier rejected the booking: ${error.message}`, error),
  /** An operator said the supplier holds no booking for the order (rule 1). */
  noBookingSaysOperator: (cancelRequested: boolean, error: BookingError): Decision =>
    cancelRequested
      ? {
          outcome: BookingOutcome.CANCELLED,
          reason: 'cancelled; an operator confirmed no supplier booking exists',
        }
      : failed('an operator confirmed that no supplier booking exists', error),
  notConfirmed: (reason: string): Decision => ({ outcome: BookingOutcome.NOT_CONFIRMED, reason }),
  unknownStatus: (status: string | undefined): Decision =>
    failed(`status ${String(status)}`, {
      code: 'UNKNOWN_STATUS',
      message: `status ${String(status)}`,
    }),
  confirmed: (): Decision => ({ outcome: BookingOutcome.CONFIRMED }),
  /** A final status the supplier read (supplier-outcome.ts) other than CONFIRMED. */
  supplierSays: (outcome: BookingOutcome, reason: string | undefined): Decision => ({
    outcome,
    ...(reason !== undefined ? { reason } : {}),
  }),
  /** What a cancellation left (rule 4), as the booking's decision. */
  afterCancellation: (
    outcome: BookingOutcome,
    reason: string,
    cancellation: { readonly outcome: CancellationOutcome; readonly reason?: string },
  ): Decision => ({ outcome, reason, cancellation }),
} as const;

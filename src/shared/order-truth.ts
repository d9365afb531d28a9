/**
 * The order's one current truth (`OrderTruth`) for a phase of either workflow: what the client's
 * `state` answers and what the guard reports. Pure; workflows and the client share it.
 */
import type { BookingPhase } from './booking-values';
import type { OrderTruth } from './guard-contract';
import { GuardPhase } from './guard-values';

export function truthOf(phase: BookingPhase | GuardPhase, open: boolean): OrderTruth {
  switch (phase) {
    case GuardPhase.CONFIRMED:
      return 'CONFIRMED';
    case GuardPhase.CANCELLING:
      return open ? 'CANCELLATION_PENDING' : 'CANCELLED';
    case GuardPhase.CANCELLATION_PENDING:
      return 'CANCELLATION_PENDING';
    case GuardPhase.CANCELLED:
      return 'CANCELLED';
    case GuardPhase.CANCELLED_BY_SUPPLIER:
      return 'CANCELLED_BY_SUPPLIER';
    case GuardPhase.NEEDS_ATTENTION:
      return 'NEEDS_ATTENTION';
    case GuardPhase.CHECKED_OUT:
      return 'STAY_COMPLETED';
    case 'NOT_CONFIRMED':
    case 'NOT_AVAILABLE':
    case 'PRICE_REJECTED':
    case 'FAILED':
      return phase;
    default:
      return 'PENDING';
  }
}

/** The query and updates of `bookRoom`, defined once for the workflow and its callers. */
import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type {
  ApprovePriceChange,
  BookRoomResult,
  BookingState,
  CancelRequest,
  ResolveReconciliation,
} from './booking-contract';

export const bookingStateQuery = defineQuery<BookingState>('bookingState');
export const approvePriceChangeUpdate = defineUpdate<BookingState, [ApprovePriceChange]>(
  'approvePriceChange',
);
export const cancelUpdate = defineUpdate<BookingState, [CancelRequest]>('cancel');
export const resolveReconciliationUpdate = defineUpdate<BookingState, [ResolveReconciliation]>(
  'resolveReconciliation',
);
/**
 * `bookRoomAndGuard`'s answer to its caller: the booking's decision (what `bookRoom` returns),
 * once there is one. Sent with the start (`OUTCOME_UPDATE_ID`); asking again is harmless.
 */
export const outcomeUpdate = defineUpdate<BookRoomResult>('outcome');

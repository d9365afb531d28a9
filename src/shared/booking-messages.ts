/** The query and updates of `bookRoom`, defined once for the workflow and its callers. */
import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type {
  ApprovePriceChange,
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

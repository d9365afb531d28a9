/**
 * The order workflow's query and updates, defined once for the workflow and its callers. Each
 * reaches the order at `booking-<orderId>` in every phase (until the decision the booking answers,
 * then its guard); each answers with the order's one truth (`OrderState`).
 */
import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type {
  ApprovePriceChange,
  BookRoomResult,
  CancelRequest,
  ResolveReconciliation,
} from './booking-contract';
import type { KeepRequest, OrderState } from './guard-contract';

export const bookingStateQuery = defineQuery<OrderState>('bookingState');
export const approvePriceChangeUpdate = defineUpdate<OrderState, [ApprovePriceChange]>(
  'approvePriceChange',
);
/** Cancels the order, whatever its phase (after free cancellation only with `acceptPenalty`). */
export const cancelUpdate = defineUpdate<OrderState, [CancelRequest]>('cancel');
export const resolveReconciliationUpdate = defineUpdate<OrderState, [ResolveReconciliation]>(
  'resolveReconciliation',
);
/** The order system confirms a provisional order: `autoCancelBeforePenalty` will not run. */
export const keepUpdate = defineUpdate<OrderState, [KeepRequest]>('keep');
/**
 * The booking's decision, once there is one (what the workflow's result starts with). Sent with
 * the start (`OUTCOME_UPDATE_ID`); asking again is harmless.
 */
export const outcomeUpdate = defineUpdate<BookRoomResult>('outcome');

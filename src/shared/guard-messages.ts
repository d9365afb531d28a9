/**
 * The guard's messages. The query and the cancel update share their names with `bookRoom`'s
 * (`bookingState`, `cancel`), so one call reaches an order whichever workflow holds it.
 */
import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type { GuardCancelRequest, KeepRequest, OrderState } from './guard-contract';

export const orderStateQuery = defineQuery<OrderState>('bookingState');
export const guardCancelUpdate = defineUpdate<OrderState, [GuardCancelRequest]>('cancel');
/** The order system confirms a provisional order: `autoCancelBeforePenalty` will not run. */
export const keepUpdate = defineUpdate<OrderState, [KeepRequest]>('keep');

/**
 * Follows one booking to its result, reporting each phase change (`book --wait`, the demo). The
 * result comes from the workflow itself, so the end is never missed between two queries.
 */
import { bookingWorkflowId, type BookRoomResult, type OrderState } from '../client';
import { defined } from '../shared/defined';
import { truthOf } from '../shared/order-truth';

export interface FollowOptions {
  /** Reads the live state (the `bookingState` query, with whatever deadline the caller wants). */
  readonly state: () => Promise<OrderState>;
  readonly result: () => Promise<BookRoomResult>;
  /** Called with the new state on every phase change (and once more with the final phase). */
  readonly onChange?: (state: OrderState) => void;
  /** Called when a read of the state fails (the loop goes on). */
  readonly onStateError?: (err: unknown) => void;
  /** How often the state is read. @default 250 */
  readonly intervalMs?: number;
}

/** Resolves with the result once the booking has ended. */
export async function followBooking(o: FollowOptions): Promise<BookRoomResult> {
  const intervalMs = o.intervalMs ?? 250;
  let finished: BookRoomResult | undefined;
  const result = o.result().then((r) => (finished = r));
  let lastPhase: string | undefined;
  while (finished === undefined) {
    try {
      const state = await o.state();
      if (finished === undefined && state.phase !== lastPhase) {
        lastPhase = state.phase;
        o.onChange?.(state);
      }
    } catch (err) {
      // A query can fail before the first workflow task has run, or as the workflow closes:
      // the next read (or the result) tells.
      o.onStateError?.(err);
    }
    await Promise.race([result, new Promise((r) => setTimeout(r, intervalMs))]);
  }
  const final = await result;
  if (final.outcome !== lastPhase) {
    const { orderId, outcome, bookingId, supplierStatus, price } = final;
    o.onChange?.({
      orderId,
      phase: outcome,
      truth: truthOf(outcome, false),
      holder: 'booking',
      workflowId: bookingWorkflowId(orderId),
      open: false,
      cancelRequested: false,
      outcome,
      ...defined({ bookingId, supplierStatus, price }),
    });
  }
  return final;
}

/** Cancelling an order by its id in any phase, waiting for it to settle, and `keep`. */
import {
  WithStartWorkflowOperation,
  WorkflowIdConflictPolicy,
  WorkflowIdReusePolicy,
  WorkflowUpdateFailedError,
} from '@temporalio/client';
import { bookingWorkflowId } from '../shared/booking-contract';
import { cancelUpdate, keepUpdate } from '../shared/booking-messages';
import type { OrderState } from '../shared/guard-contract';
import { OrderIdKey } from '../shared/search-attributes';
import { guardOfEarlierVersion, inTodaysWords } from './earlier-versions';
import { CancellationRefusedError } from './booking-errors';
import { orderHandle, type BookingClientSettings } from './booking-client-options';
import { orderState } from './order-state';

export interface CancelOrderOptions {
  readonly reason?: string;
  /** Cancel even after the free-cancellation deadline (the penalty is accepted). @default false */
  readonly acceptPenalty?: boolean;
}

export type OrderCancellation =
  /** The order's workflow accepted the request; the state says how far it got. */
  | { readonly kind: 'requested'; readonly state: OrderState }
  /** Nothing to cancel: already cancelled, never booked, or the stay is over. */
  | { readonly kind: 'nothing-to-cancel'; readonly state: OrderState };

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** An update the order refused, as the error that names why (`code`, else the failure's type). */
function refusal(orderId: string, err: WorkflowUpdateFailedError, code?: string) {
  const cause = err.cause as { type?: string; message?: string } | undefined;
  return new CancellationRefusedError(
    orderId,
    code ?? cause?.type ?? 'REFUSED',
    cause?.message ?? err.message,
  );
}

/** `BookingClient`'s `cancelOrder`, `cancellationSettled` and `keep`. */
export class OrderCancellations {
  constructor(private readonly settings: BookingClientSettings) {}

  async cancelOrder(orderId: string, options: CancelOrderOptions): Promise<OrderCancellation> {
    const request = {
      ...(options.reason !== undefined ? { reason: options.reason } : {}),
      ...(options.acceptPenalty ? { acceptPenalty: true } : {}),
    };
    try {
      const state = inTodaysWords(
        await this.settings.client.workflow.executeUpdateWithStart(cancelUpdate, {
          args: [request],
          startWorkflowOperation: this.reachOrder(orderId),
        }),
      );
      return state.open ? { kind: 'requested', state } : { kind: 'nothing-to-cancel', state };
    } catch (err) {
      if (!(err instanceof WorkflowUpdateFailedError)) throw err;
      const cause = err.cause as { type?: string } | undefined;
      if (cause?.type !== 'NOTHING_TO_CANCEL') throw refusal(orderId, err);
      // An earlier version's order may be held by a guard of its own: it is cancelled there.
      const earlier = await guardOfEarlierVersion(this.settings.client, orderId);
      const there = await earlier?.cancel(request).catch((e: unknown) => {
        throw e instanceof WorkflowUpdateFailedError ? refusal(orderId, e) : e;
      });
      if (there) return { kind: 'requested', state: there };
      return { kind: 'nothing-to-cancel', state: await orderState(this.settings.client, orderId) };
    }
  }

  /**
   * The start that reaches an order without booking (`bookRoom` with the order id alone): taken by
   * the running workflow (`USE_EXISTING`), else a run answering the decision (`ALLOW_DUPLICATE`).
   */
  private reachOrder(orderId: string) {
    return new WithStartWorkflowOperation(this.settings.workflow, {
      taskQueue: this.settings.taskQueue,
      workflowId: bookingWorkflowId(orderId),
      args: [{ orderId }],
      workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
      workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
      typedSearchAttributes: [{ key: OrderIdKey, value: orderId }],
      staticSummary: `Reach order ${orderId} (books nothing)`,
    });
  }

  async cancellationSettled(orderId: string, pollMs: number): Promise<OrderState> {
    for (;;) {
      const st = await orderState(this.settings.client, orderId);
      if (st.phase !== 'CANCELLING' && !(st.holder === 'booking' && st.open && st.cancelRequested))
        return st;
      await pause(pollMs);
    }
  }

  async keep(orderId: string, reason?: string): Promise<OrderState> {
    try {
      const handle = orderHandle(this.settings.client, orderId);
      return inTodaysWords(
        await handle.executeUpdate(keepUpdate, { args: [reason ? { reason } : {}] }),
      );
    } catch (err) {
      throw err instanceof WorkflowUpdateFailedError ? refusal(orderId, err, 'KEEP_REFUSED') : err;
    }
  }
}

/**
 * `deliverOrderEvents`, id `order-events-<orderId>`, on the events task queue: delivers an order's
 * events to the order system one at a time, in sequence order, each until the endpoint takes it
 * (at least once, the same `webhook-id` on every attempt). A failing endpoint is retried with
 * backoff for 72 h (order-event-decisions.ts), the order marked FAILING meanwhile and UNDELIVERED
 * after, until `events redeliver`. Events behind a failing one wait: nothing is reordered. The
 * workflow closes as soon as it has nothing left to deliver (an order's events are hours or days
 * apart); the next event starts it again (signal-with-start). A signal that arrives as it closes
 * is not lost: the server refuses the completion and the workflow delivers it first.
 */
import {
  allHandlersFinished,
  condition,
  continueAsNew,
  proxyActivities,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { OrderEventActivities } from '../../activities/order-events';
import {
  DeliveryMark,
  orderEventSignal,
  orderEventsStateQuery,
  redeliverOrderEventsUpdate,
  type OrderEvent,
  type OrderEventsState,
} from '../../shared/order-events';
import { OrderEventsDeliveryKey } from '../../shared/search-attributes';
import { DELIVER_EVENT_ACTIVITY } from '../activity-options';
import { failureFacts } from '../failure-facts';
import { enqueue, keepRetrying, retryWaitMs } from './order-event-decisions';
import { iso } from '../guard/guard-decisions';
import { waitUntil } from '../wait';

export interface DeliverOrderEventsInput {
  readonly orderId: string;
  /** What a previous run handed over with `continueAsNew`. */
  readonly carried?: { queue: OrderEvent[]; lastDelivered: number; delivered: number };
}

class DeliveryRun {
  queue: OrderEvent[];
  lastDelivered: number;
  delivered: number;
  mark: DeliveryMark = DeliveryMark.DELIVERED;
  failingSince: number | undefined;
  lastFailure: string | undefined;
  nextAttemptAt: number | undefined;
  /** `redeliverOrderEvents` asked for an attempt now. */
  redeliver = false;

  constructor(readonly input: DeliverOrderEventsInput) {
    this.queue = input.carried?.queue ?? [];
    this.lastDelivered = input.carried?.lastDelivered ?? 0;
    this.delivered = input.carried?.delivered ?? 0;
  }

  add(event: OrderEvent): void {
    this.queue = enqueue(this.queue, event, this.lastDelivered);
  }

  state(): OrderEventsState {
    return {
      orderId: this.input.orderId,
      mark: this.mark,
      pending: this.queue.map((e) => ({ id: e.id, type: e.type, sequence: e.data.sequence })),
      delivered: this.delivered,
      ...(this.failingSince !== undefined ? { failingSince: iso(this.failingSince) } : {}),
      ...(this.lastFailure !== undefined ? { lastFailure: this.lastFailure } : {}),
      ...(this.nextAttemptAt !== undefined ? { nextAttemptAt: iso(this.nextAttemptAt) } : {}),
    };
  }

  setMark(mark: DeliveryMark): void {
    if (mark === this.mark) return;
    this.mark = mark;
    upsertSearchAttributes([{ key: OrderEventsDeliveryKey, value: mark }]);
  }

  done(event: OrderEvent): void {
    this.queue = this.queue.filter((e) => e.id !== event.id);
    this.lastDelivered = Math.max(this.lastDelivered, event.data.sequence);
    this.delivered += 1;
    this.failingSince = this.lastFailure = this.nextAttemptAt = undefined;
    this.setMark(DeliveryMark.DELIVERED);
  }
}

const { deliverOrderEvent } = proxyActivities<OrderEventActivities>(DELIVER_EVENT_ACTIVITY);

export async function deliverOrderEvents(
  input: DeliverOrderEventsInput,
): Promise<OrderEventsState> {
  const run = new DeliveryRun(input);
  setHandler(orderEventSignal, (event) => run.add(event));
  setHandler(orderEventsStateQuery, () => run.state());
  setHandler(redeliverOrderEventsUpdate, () => {
    run.redeliver = true;
    return run.state();
  });
  while (run.queue.length > 0) {
    await deliverOldest(run);
    if (workflowInfo().continueAsNewSuggested) {
      await condition(allHandlersFinished);
      const { queue, lastDelivered, delivered } = run;
      return continueAsNew<typeof deliverOrderEvents>({
        orderId: input.orderId,
        carried: { queue, lastDelivered, delivered },
      });
    }
  }
  await condition(allHandlersFinished);
  return run.state();
}

/** Delivers the oldest event, however long it takes: rounds of attempts, waits between them. */
async function deliverOldest(run: DeliveryRun): Promise<void> {
  const event = run.queue[0]!;
  for (let round = 0; ; round++) {
    run.redeliver = false;
    try {
      await deliverOrderEvent(event);
      run.done(event);
      return;
    } catch (err) {
      run.failingSince ??= Date.now();
      run.lastFailure = failureFacts(err).message;
    }
    if (keepRetrying(run.failingSince, Date.now())) {
      run.setMark(DeliveryMark.FAILING);
      run.nextAttemptAt = Date.now() + retryWaitMs(round);
      await waitUntil(() => run.redeliver, {
        ms: retryWaitMs(round),
        summary: "Next delivery attempt of the order's oldest event",
      });
    } else {
      run.setMark(DeliveryMark.UNDELIVERED);
      run.nextAttemptAt = undefined;
      await condition(() => run.redeliver);
      run.failingSince = Date.now();
      round = -1;
    }
  }
}

/** `deliverOrderEvents`, the overflow (../README.md): an order's events, one at a time. */
import {
  allHandlersFinished,
  condition,
  continueAsNew,
  proxyActivities,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import {
  DeliveryMark,
  orderEventSignal,
  orderEventsStateQuery,
  redeliverOrderEventsUpdate,
  type OrderEventActivities,
  type OrderEventsState,
} from '../contract/delivery';
import type { OrderEvent } from '../contract/event';
import { OrderEventsDeliveryKey } from '../../shared/search-attributes';
import { DELIVER_EVENT_ACTIVITY } from '../../workflows/activity-options';
import { failureFacts } from '../../workflows/failure-facts';
import { waitUntil } from '../../workflows/wait';
import { enqueue, eventsState, keepRetrying, retryWaitMs } from './decisions';

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
    return eventsState({ ...this, orderId: this.input.orderId, events: this.queue });
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

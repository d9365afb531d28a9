/**
 * The hand-over to the durable path (../README.md): one signal-with-start at a time per task queue,
 * so an order's events arrive in order; each announcement returns once its signal is taken.
 */
import type { Client } from '@temporalio/client';
import {
  BreakerMark,
  DELIVER_TO_ENDPOINT_WORKFLOW,
  DeliveryMark,
  endpointDeliveryWorkflowId,
  orderEventsHandedOverSignal,
  orderEventsTaskQueue,
  type EndpointDeliveryMemo,
  type EndpointDeliverySettings,
} from '../contract/delivery';
import type { OrderEvent } from '../contract/event';
import { OrderEventsDeliveryKey } from '../../shared/search-attributes';

/** How long an event may wait for others: the booking's task waits too, so it stays short. */
export const HANDOVER_GATHER_MS = 200;
/** Events in one signal (about 400 bytes each). */
export const MAX_HANDOVER_EVENTS = 100;

interface Waiting {
  readonly event: OrderEvent;
  readonly since: number;
  readonly client: Client;
  readonly done: (err?: unknown) => void;
}

/** A hand-over per worker. `start`: the delivery workflow's input should this signal start it. */
export function createHandover(options: {
  readonly start: EndpointDeliverySettings;
  readonly gatherMs?: number;
}) {
  const gatherMs = options.gatherMs ?? HANDOVER_GATHER_MS;
  /** By booking task queue: one delivery workflow each. */
  const queues = new Map<
    string,
    { waiting: Waiting[]; sending: boolean; timer?: NodeJS.Timeout }
  >();

  function schedule(taskQueue: string): void {
    const q = queues.get(taskQueue);
    if (!q || q.sending || q.timer || q.waiting.length === 0) return;
    const full = q.waiting.length >= MAX_HANDOVER_EVENTS;
    const oldest = Math.min(...q.waiting.map((w) => w.since));
    const wait = full ? 0 : Math.max(0, oldest + gatherMs - Date.now());
    q.timer = setTimeout(() => {
      q.timer = undefined;
      void send(taskQueue);
    }, wait);
  }

  async function send(taskQueue: string): Promise<void> {
    const q = queues.get(taskQueue)!;
    const batch = q.waiting.splice(0, MAX_HANDOVER_EVENTS);
    q.sending = true;
    await signalBatch(batch, taskQueue, options.start);
    q.sending = false;
    schedule(taskQueue);
  }

  return {
    /** Resolves once the endpoint's delivery holds `event`; `since`: when its announcement began. */
    add(event: OrderEvent, client: Client, bookingTaskQueue: string, since: number): Promise<void> {
      const queue = queues.get(bookingTaskQueue) ?? { waiting: [], sending: false };
      queues.set(bookingTaskQueue, queue);
      return new Promise<void>((resolve, reject) => {
        queue.waiting.push({
          event,
          since,
          client,
          done: (err) => (err === undefined ? resolve() : reject(err as Error)),
        });
        // A full batch, or an event that waited already, may move the send earlier.
        if (queue.timer) {
          clearTimeout(queue.timer);
          queue.timer = undefined;
        }
        schedule(bookingTaskQueue);
      });
    },
  };
}

/** One signal-with-start of the endpoint's delivery with `batch`; settles each announcement. */
async function signalBatch(
  batch: readonly Waiting[],
  taskQueue: string,
  start: EndpointDeliverySettings,
): Promise<void> {
  try {
    await batch[0]!.client.workflow.signalWithStart(DELIVER_TO_ENDPOINT_WORKFLOW, {
      workflowId: endpointDeliveryWorkflowId(taskQueue),
      taskQueue: orderEventsTaskQueue(taskQueue),
      args: [start],
      signal: orderEventsHandedOverSignal,
      signalArgs: [batch.map((w) => w.event)],
      typedSearchAttributes: [{ key: OrderEventsDeliveryKey, value: DeliveryMark.DELIVERED }],
      memo: { breaker: BreakerMark.CLOSED, failingOrders: 0 } satisfies EndpointDeliveryMemo,
      staticSummary: "Order events the order system's endpoint did not take at once",
    });
    for (const w of batch) w.done();
  } catch (err) {
    for (const w of batch) w.done(err);
  }
}

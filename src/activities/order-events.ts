/**
 * Order events, the activity side: `announceOrderEvent` (a local activity of bookRoom and the
 * guard) hands an event to the order's delivery workflow with signal-with-start, and
 * `deliverOrderEvent` (on the events task queue) POSTs it to the order system, signed the Standard
 * Webhooks way. Logs name the order, the event and the HTTP status, never the body.
 */
import { Context, log } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { Webhook } from 'standardwebhooks';
import { request } from 'undici';
import {
  DELIVER_ORDER_EVENTS_WORKFLOW,
  DeliveryMark,
  orderEventSignal,
  orderEventsTaskQueue,
  orderEventsWorkflowId,
  type OrderEvent,
} from '../shared/order-events';
import { OrderEventsDeliveryKey, OrderIdKey } from '../shared/search-attributes';

/** Where events go; absent: this deployment sends none. */
export interface OrderEventsEndpoint {
  readonly url: string;
  /** `whsec_…` (Standard Webhooks), checked by the configuration. */
  readonly secret: string;
  /** One POST's timeout, ms. @default 10000 */
  readonly timeoutMs?: number;
}

/** A POST that takes longer is abandoned and retried: a slow endpoint holds no slot for long. */
export const DELIVERY_TIMEOUT_MS = 10_000;

export function createOrderEventActivities(endpoint: OrderEventsEndpoint | undefined) {
  const webhook = endpoint ? new Webhook(endpoint.secret) : undefined;
  return {
    /** Queues `event` in its order's delivery workflow, starting it when none runs. */
    async announceOrderEvent(event: OrderEvent): Promise<void> {
      const { client, info } = Context.current();
      await client.workflow.signalWithStart(DELIVER_ORDER_EVENTS_WORKFLOW, {
        workflowId: orderEventsWorkflowId(event.data.orderId),
        taskQueue: orderEventsTaskQueue(info.taskQueue),
        args: [{ orderId: event.data.orderId }],
        signal: orderEventSignal,
        signalArgs: [event],
        typedSearchAttributes: [
          { key: OrderIdKey, value: event.data.orderId },
          { key: OrderEventsDeliveryKey, value: DeliveryMark.DELIVERED },
        ],
      });
    },

    /** POSTs one event; any answer but 2xx fails the attempt (the workflow retries). */
    async deliverOrderEvent(event: OrderEvent): Promise<{ status: number }> {
      if (!endpoint || !webhook) {
        throw ApplicationFailure.retryable(
          'ORDER_EVENTS_URL is not set on this worker: the event waits for a worker that has it',
          'NOT_CONFIGURED',
        );
      }
      const body = JSON.stringify({
        type: event.type,
        timestamp: event.timestamp,
        data: event.data,
      });
      const at = new Date();
      const fields = { orderId: event.data.orderId, eventId: event.id, type: event.type };
      let status: number;
      try {
        const res = await request(endpoint.url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'webhook-id': event.id,
            'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
            'webhook-signature': webhook.sign(event.id, at, body),
          },
          body,
          signal: AbortSignal.any([
            AbortSignal.timeout(endpoint.timeoutMs ?? DELIVERY_TIMEOUT_MS),
            Context.current().cancellationSignal,
          ]),
        });
        status = res.statusCode;
        await res.body.dump();
      } catch (err) {
        const why = err instanceof Error ? err.name : 'error';
        log.warn('Order event not delivered: no answer', { ...fields, error: why });
        throw ApplicationFailure.retryable(`no answer from the order system (${why})`, 'NO_ANSWER');
      }
      if (status < 200 || status > 299) {
        log.warn('Order event not delivered', { ...fields, status });
        throw ApplicationFailure.retryable(
          `the order system answered HTTP ${status}`,
          `HTTP_${status}`,
        );
      }
      log.info('Order event delivered', { ...fields, status });
      return { status };
    },
  };
}

export type OrderEventActivities = ReturnType<typeof createOrderEventActivities>;

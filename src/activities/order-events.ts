/**
 * Order events, the activity side: `announceOrderEvent` (a local activity of bookRoom and the
 * guard) POSTs an event to the order system at once when its workflow allows it and the endpoint
 * answers (direct-delivery.ts), else hands it to the order's delivery workflow with
 * signal-with-start; `deliverOrderEvent` (on the events task queue) is that workflow's POST. Every
 * POST is signed the Standard Webhooks way. Logs name the order, the event and the HTTP status,
 * never the body.
 */
import { Context, log } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { Webhook } from 'standardwebhooks';
import { request } from 'undici';
import {
  DELIVER_ORDER_EVENTS_WORKFLOW,
  DeliveryMark,
  orderEventBody,
  orderEventSignal,
  orderEventsTaskQueue,
  orderEventsWorkflowId,
  type OrderEvent,
} from '../shared/order-events';
import { OrderEventsDeliveryKey, OrderIdKey } from '../shared/search-attributes';
import {
  afterDirect,
  ANSWERING,
  chooseDirect,
  DIRECT_DELIVERY_TIMEOUT_MS,
  type DirectDeliveryState,
} from './direct-delivery';

/** Where events go; absent: this deployment sends none. */
export interface OrderEventsEndpoint {
  readonly url: string;
  /** `whsec_…` (Standard Webhooks), checked by the configuration. */
  readonly secret: string;
  /** One POST's timeout, ms. @default 10000 */
  readonly timeoutMs?: number;
  /** How long direct attempts stop after one failed, ms (tests shorten it). @default 30000 */
  readonly directPauseMs?: number;
}

/** What the workflow asks of an announcement. */
export interface AnnounceOptions {
  /**
   * The event may be POSTed at once: nothing of this order waits in a delivery workflow (the
   * workflow knows: its first run, none of its events handed over yet). Absent: queued.
   */
  readonly direct?: boolean;
}

/** How an announced event went: delivered by this call, or queued in its delivery workflow. */
export type Announced = { readonly delivered: 'at-once' } | { readonly delivered: 'queued' };

/** A POST that takes longer is abandoned and retried: a slow endpoint holds no slot for long. */
export const DELIVERY_TIMEOUT_MS = 10_000;

export function createOrderEventActivities(endpoint: OrderEventsEndpoint | undefined) {
  const post = endpoint ? signedPoster(endpoint) : undefined;
  /** This worker's view of the endpoint for direct attempts, shared by its announcements. */
  let direct: DirectDeliveryState = ANSWERING;
  return {
    /**
     * Delivers `event` at once when `options.direct` and the endpoint answers; else queues it in
     * its order's delivery workflow, starting it when none runs.
     */
    async announceOrderEvent(event: OrderEvent, options: AnnounceOptions = {}): Promise<Announced> {
      if (options.direct && post) {
        const choice = chooseDirect(direct, Date.now());
        direct = choice.next;
        if (choice.direct) {
          const fields = logFields(event);
          const answer = await post(event, DIRECT_DELIVERY_TIMEOUT_MS);
          direct = afterDirect(answer.delivered, Date.now(), endpoint?.directPauseMs);
          if (answer.delivered) {
            log.info('Order event delivered', { ...fields, status: answer.status, direct: true });
            return { delivered: 'at-once' };
          }
          log.info('Order event not delivered at once: handed to its delivery workflow', {
            ...fields,
            answer: answer.failure,
          });
        }
      }
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
      return { delivered: 'queued' };
    },

    /** POSTs one event; any answer but 2xx fails the attempt (the workflow retries). */
    async deliverOrderEvent(event: OrderEvent): Promise<{ status: number }> {
      if (!post) {
        throw ApplicationFailure.retryable(
          'ORDER_EVENTS_URL is not set on this worker: the event waits for a worker that has it',
          'NOT_CONFIGURED',
        );
      }
      const fields = logFields(event);
      const answer = await post(event, endpoint?.timeoutMs ?? DELIVERY_TIMEOUT_MS);
      if (answer.delivered) {
        log.info('Order event delivered', { ...fields, status: answer.status });
        return { status: answer.status };
      }
      if (answer.status === undefined) {
        log.warn('Order event not delivered: no answer', { ...fields, error: answer.error });
        throw ApplicationFailure.retryable(answer.failure, 'NO_ANSWER');
      }
      log.warn('Order event not delivered', { ...fields, status: answer.status });
      throw ApplicationFailure.retryable(answer.failure, `HTTP_${answer.status}`);
    },
  };
}

/** What the logs say of an event: ids and type, never the body. */
const logFields = (event: OrderEvent) => ({
  orderId: event.data.orderId,
  eventId: event.id,
  type: event.type,
});

/** What one POST of an event got: a 2xx, another status, or no answer in time. */
type PostAnswer =
  | { readonly delivered: true; readonly status: number }
  | {
      readonly delivered: false;
      readonly status?: number;
      readonly error?: string;
      /** In words, for the delivery's `lastFailure`. */
      readonly failure: string;
    };

/** A signed POST of events to the endpoint; no answer within `timeoutMs` is a failed one. */
function signedPoster(endpoint: OrderEventsEndpoint) {
  const webhook = new Webhook(endpoint.secret);
  return async (event: OrderEvent, timeoutMs: number): Promise<PostAnswer> => {
    const body = JSON.stringify(orderEventBody(event));
    const at = new Date();
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
          AbortSignal.timeout(timeoutMs),
          Context.current().cancellationSignal,
        ]),
      });
      status = res.statusCode;
      await res.body.dump();
    } catch (err) {
      const error = err instanceof Error ? err.name : 'error';
      return { delivered: false, error, failure: `no answer from the order system (${error})` };
    }
    if (status >= 200 && status <= 299) return { delivered: true, status };
    return { delivered: false, status, failure: `the order system answered HTTP ${status}` };
  };
}

export type OrderEventActivities = ReturnType<typeof createOrderEventActivities>;

/**
 * Order events, the activity side. `announceOrderEvent` (a local activity of bookRoom and the
 * guard, in the workflow task that changed the order's truth) POSTs an event to the order system
 * at once when its workflow allows it and the endpoint answers within 1 s (direct-delivery.ts),
 * else hands it to the endpoint's delivery workflow, batched (order-event-handover.ts).
 * `deliverOrderEventRound` is that workflow's POSTs, `handOverToOrderWorkflows` its overflow to
 * orders' own delivery workflows, whose POST is `deliverOrderEvent`. Every POST is signed the
 * Standard Webhooks way (order-event-post.ts). Logs name the order, the event and the HTTP
 * status, never the body.
 */
import { Context, log } from '@temporalio/activity';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import {
  BreakerMark,
  DELIVER_ORDER_EVENTS_WORKFLOW,
  DeliveryMark,
  endpointDeliveryWorkflowId,
  orderEventSignal,
  orderEventsWorkflowId,
  type EndpointDeliveryMemo,
  type OrderEvent,
  type OrderRoundResult,
  type RoundPart,
} from '../shared/order-events';
import { OrderEventsDeliveryKey, OrderIdKey } from '../shared/search-attributes';
import {
  afterAsk,
  afterDirect,
  ANSWERING,
  chooseDirect,
  DIRECT_DELIVERY_TIMEOUT_MS,
  type DirectDeliveryState,
} from './direct-delivery';
import { createHandover } from './order-event-handover';
import { logAnswer, logFields, signedPoster, type PostAnswer } from './order-event-post';

/** Where events go; absent: this deployment sends none. */
export interface OrderEventsEndpoint {
  readonly url: string;
  /** `whsec_…` (Standard Webhooks), checked by the configuration. */
  readonly secret: string;
  /** One POST's timeout, ms. @default 10000 */
  readonly timeoutMs?: number;
  /** How long direct attempts stop after one failed, ms (tests shorten it). @default 30000 */
  readonly directPauseMs?: number;
  /**
   * The endpoint's delivery: the first wait after a failed round and before the breaker's first
   * probe, ms (tests shorten it). @default 30000
   */
  readonly firstRetryWaitMs?: number;
  /** Events the endpoint's delivery holds before new orders get their own (tests). @default 2000 */
  readonly maxHeldEvents?: number;
}

/** What the workflow asks of an announcement. */
export interface AnnounceOptions {
  /**
   * The event may be POSTed at once: nothing of this order waits in a delivery (the workflow
   * knows: its first run, none of its events handed over yet). Absent: handed over.
   */
  readonly direct?: boolean;
  /**
   * An earlier event of this order may wait in the order's own delivery workflow (handed there by
   * an earlier version, or by the endpoint's delivery when it was full): the event goes behind it
   * when that workflow runs. Absent: the order's first run has handed nothing over yet.
   */
  readonly checkOrderWorkflow?: boolean;
}

/** How an announced event went: delivered by this call, or queued for a delivery workflow. */
export type Announced = { readonly delivered: 'at-once' } | { readonly delivered: 'queued' };

/** A POST that takes longer is abandoned and retried: a slow endpoint holds no slot for long. */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** A round of the endpoint's delivery starts no POST after this long (DELIVER_ROUND_ACTIVITY). */
export const ROUND_BUDGET_MS = 45_000;
/** Orders a round POSTs side by side. */
export const ROUND_CONCURRENCY = 10;
/** Attempts of one event within a round, and the waits between them. */
const ROUND_ATTEMPT_WAITS_MS = [2_000, 4_000];

export function createOrderEventActivities(endpoint: OrderEventsEndpoint | undefined) {
  const post = endpoint ? signedPoster(endpoint) : undefined;
  const pauseMs = endpoint?.directPauseMs;
  /** This worker's view of the endpoint for direct attempts, shared by its announcements. */
  let direct: DirectDeliveryState = ANSWERING;
  const handover = createHandover({
    start: {
      ...(endpoint?.firstRetryWaitMs !== undefined
        ? { firstRetryWaitMs: endpoint.firstRetryWaitMs }
        : {}),
      ...(endpoint?.maxHeldEvents !== undefined ? { maxHeldEvents: endpoint.maxHeldEvents } : {}),
    },
  });

  /** Tries the endpoint at once when this worker's view allows; true when it took the event. */
  async function tryDirect(event: OrderEvent, client: Client, taskQueue: string): Promise<boolean> {
    if (!post) return false;
    let startedAt = Date.now();
    const choice = chooseDirect(direct, startedAt);
    direct = choice.next;
    let go = choice.choice === 'post';
    if (choice.choice === 'ask') {
      const asked = afterAsk(await breakerOpen(client, taskQueue), Date.now(), pauseMs);
      direct = asked.next;
      go = asked.post;
      startedAt = Date.now();
    }
    if (!go) return false;
    const fields = logFields(event);
    const answer = await post(event, DIRECT_DELIVERY_TIMEOUT_MS);
    direct = afterDirect(direct, startedAt, answer.delivered, Date.now(), pauseMs);
    if (answer.delivered) {
      log.info('Order event delivered', { ...fields, status: answer.status, direct: true });
      return true;
    }
    log.info("Order event not delivered at once: handed to the endpoint's delivery", {
      ...fields,
      answer: answer.failure,
    });
    return false;
  }

  /** POSTs `event` up to three times, a few seconds apart, within the round's budget. */
  async function postInRound(event: OrderEvent, until: number): Promise<PostAnswer> {
    const timeoutMs = endpoint?.timeoutMs ?? DELIVERY_TIMEOUT_MS;
    let answer = await post!(event, timeoutMs);
    logAnswer(event, answer);
    for (const waitMs of ROUND_ATTEMPT_WAITS_MS) {
      if (answer.delivered || Date.now() + waitMs > until) break;
      await Context.current().sleep(waitMs);
      answer = await post!(event, timeoutMs);
      logAnswer(event, answer);
    }
    return answer;
  }

  return {
    /**
     * Delivers `event` at once when `options.direct` and the endpoint answers; else hands it to
     * the endpoint's delivery workflow (or behind an earlier event in its order's own).
     */
    async announceOrderEvent(event: OrderEvent, options: AnnounceOptions = {}): Promise<Announced> {
      const since = Date.now();
      const { client, info } = Context.current();
      if (options.direct && (await tryDirect(event, client, info.taskQueue))) {
        return { delivered: 'at-once' };
      }
      if (options.checkOrderWorkflow && (await behindInOrderWorkflow(client, event))) {
        return { delivered: 'queued' };
      }
      await handover.add(event, client, info.taskQueue, since);
      return { delivered: 'queued' };
    },

    /**
     * One round of the endpoint's delivery: each order's events oldest first, stopping at the
     * first the endpoint does not take; orders side by side. Answers are results: it throws only
     * when this worker cannot send at all.
     */
    async deliverOrderEventRound(round: readonly RoundPart[]): Promise<OrderRoundResult[]> {
      if (!post) throw notConfigured();
      const ctx = Context.current();
      const beat = setInterval(() => ctx.heartbeat(), 5_000);
      const until = Date.now() + ROUND_BUDGET_MS;
      try {
        return await inParallel(round, ROUND_CONCURRENCY, async (part) => {
          let delivered = 0;
          for (const event of part.events) {
            if (Date.now() >= until) break;
            const answer = await postInRound(event, until);
            if (!answer.delivered)
              return { orderId: part.orderId, delivered, failure: answer.failure };
            delivered += 1;
          }
          return { orderId: part.orderId, delivered };
        });
      } finally {
        clearInterval(beat);
      }
    },

    /**
     * Events the endpoint's delivery cannot hold, to their orders' own delivery workflows
     * (signal-with-start), each order's in sequence order.
     */
    async handOverToOrderWorkflows(events: readonly OrderEvent[]): Promise<void> {
      const { client, info } = Context.current();
      for (const event of events) {
        await client.workflow.signalWithStart(DELIVER_ORDER_EVENTS_WORKFLOW, {
          workflowId: orderEventsWorkflowId(event.data.orderId),
          taskQueue: info.taskQueue,
          args: [{ orderId: event.data.orderId }],
          signal: orderEventSignal,
          signalArgs: [event],
          typedSearchAttributes: [
            { key: OrderIdKey, value: event.data.orderId },
            { key: OrderEventsDeliveryKey, value: DeliveryMark.DELIVERED },
          ],
        });
      }
    },

    /** An order's own delivery: one POST; any answer but 2xx fails the attempt (it retries). */
    async deliverOrderEvent(event: OrderEvent): Promise<{ status: number }> {
      if (!post) throw notConfigured();
      const answer = await post(event, endpoint?.timeoutMs ?? DELIVERY_TIMEOUT_MS);
      logAnswer(event, answer);
      if (answer.delivered) return { status: answer.status };
      throw ApplicationFailure.retryable(
        answer.failure,
        answer.status === undefined ? 'NO_ANSWER' : `HTTP_${answer.status}`,
      );
    },
  };
}

const notConfigured = () =>
  ApplicationFailure.retryable(
    'ORDER_EVENTS_URL is not set on this worker: the event waits for a worker that has it',
    'NOT_CONFIGURED',
  );

/**
 * Whether the endpoint's delivery says its breaker is open (its memo). Not running: closed (it
 * holds nothing). Unreadable: open, so this worker's bookings do not wait on the endpoint.
 */
async function breakerOpen(client: Client, bookingTaskQueue: string): Promise<boolean> {
  try {
    const wf = await client.workflow
      .getHandle(endpointDeliveryWorkflowId(bookingTaskQueue))
      .describe();
    if (wf.status.name !== 'RUNNING') return false;
    return (wf.memo as Partial<EndpointDeliveryMemo> | undefined)?.breaker === BreakerMark.OPEN;
  } catch (err) {
    return !(err instanceof WorkflowNotFoundError);
  }
}

/** Queues `event` in its order's own delivery workflow if that runs; false when none does. */
async function behindInOrderWorkflow(client: Client, event: OrderEvent): Promise<boolean> {
  try {
    await client.workflow
      .getHandle(orderEventsWorkflowId(event.data.orderId))
      .signal(orderEventSignal, event);
    return true;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    throw err;
  }
}

/** `fn` over `items`, at most `limit` at a time, results in the items' order. */
async function inParallel<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return results;
}

export type OrderEventActivities = ReturnType<typeof createOrderEventActivities>;

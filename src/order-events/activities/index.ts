/** The order events' activities; `deliver` is the seam's (../README.md). */
import { Context } from '@temporalio/activity';
import type {
  Announced,
  DeliveryHints,
  EndpointDeliverySettings,
  OrderEventActivities,
} from '../contract/delivery';
import type { OrderEvent } from '../contract/event';
import { directRoute } from './direct';
import { createHandover } from './handover';
import { overflowDelivery, queueInOverflow, spillToOverflow } from './overflow';
import { signedPoster, type Poster } from './post';
import { DELIVERY_TIMEOUT_MS, roundDelivery } from './rounds';

/** Where events go; absent: this deployment sends none. */
export interface OrderEventsEndpoint extends EndpointDeliverySettings {
  readonly url: string;
  /** `whsec_…` (Standard Webhooks), checked by the configuration. */
  readonly secret: string;
  /** One POST's timeout in a delivery workflow's activity, ms. @default 10000 */
  readonly timeoutMs?: number;
  /** How long direct attempts stop after one failed, ms (tests shorten it). @default 30000 */
  readonly directPauseMs?: number;
}

export function createOrderEventActivities(
  endpoint: OrderEventsEndpoint | undefined,
): OrderEventActivities {
  const post = endpoint ? signedPoster(endpoint) : undefined;
  const timeoutMs = endpoint?.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  return {
    announceOrderEvent: deliverer(endpoint, post),
    deliverOrderEventRound: roundDelivery(post, timeoutMs),
    handOverToOrderWorkflows: spillToOverflow,
    deliverOrderEvent: overflowDelivery(post, timeoutMs),
  };
}

const AT_ONCE: Announced = { delivered: 'at-once' };
const QUEUED: Announced = { delivered: 'queued' };

/** The seam, with this worker's view of the endpoint and its hand-over. */
function deliverer(endpoint: OrderEventsEndpoint | undefined, post: Poster | undefined) {
  const direct = post ? directRoute(post, endpoint?.directPauseMs) : undefined;
  const handover = createHandover({
    start: { firstRetryWaitMs: endpoint?.firstRetryWaitMs, maxHeldEvents: endpoint?.maxHeldEvents },
  });
  /** At once, else behind its order's overflow workflow, else handed over: once delivered or durable. */
  return async function deliver(event: OrderEvent, hints: DeliveryHints = {}): Promise<Announced> {
    const since = Date.now();
    const { client, info } = Context.current();
    if (hints.direct && direct && (await direct(event, client, info.taskQueue))) return AT_ONCE;
    if (hints.checkOverflow && (await queueInOverflow(client, event))) return QUEUED;
    await handover.add(event, client, info.taskQueue, since);
    return QUEUED;
  };
}

/** Delivery, as both layers share it (../README.md). Zod-free: workflows import it. */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { OrderEvent } from './event';

/** The durable path: one delivery workflow per endpoint (per task queue). */
export const DELIVER_TO_ENDPOINT_WORKFLOW = 'deliverOrderEventsToEndpoint';
export const endpointDeliveryWorkflowId = (bookingTaskQueue: string): string =>
  `order-events:${bookingTaskQueue}`;
/** The overflow: an order's own delivery, for a new order while the endpoint's is full. */
export const OVERFLOW_WORKFLOW = 'deliverOrderEvents';
export const orderEventsWorkflowId = (orderId: string): string => `events-overflow-${orderId}`;
/** The overflow's id in earlier versions: reached while any runs (src/shared/compatibility.ts). */
export const earlierOrderEventsWorkflowId = (orderId: string): string => `order-events-${orderId}`;
/** Deliveries' own task queue: a slow endpoint takes no slot or rate a supplier call needs. */
export const orderEventsTaskQueue = (bookingTaskQueue: string): string =>
  `${bookingTaskQueue}-order-events`;

/** `OrderEventsDelivery` of a delivery workflow and of each order it holds (`events list`). */
export const DeliveryMark = {
  /** Every event so far delivered (or handed over and not yet tried). */
  DELIVERED: 'DELIVERED',
  /** The endpoint failed the oldest event: retried with backoff. */
  FAILING: 'FAILING',
  /** Retried for the whole retry window: parked until `events redeliver`. */
  UNDELIVERED: 'UNDELIVERED',
} as const;
export type DeliveryMark = (typeof DeliveryMark)[keyof typeof DeliveryMark];

/** Visibility query: the delivery workflows holding orders whose events fail or are parked. */
export const ORDER_EVENTS_FAILING_QUERY = `WorkflowType IN ('${DELIVER_TO_ENDPOINT_WORKFLOW}', '${OVERFLOW_WORKFLOW}') AND ExecutionStatus = 'Running' AND OrderEventsDelivery IN ('${DeliveryMark.FAILING}', '${DeliveryMark.UNDELIVERED}')`;

/** The endpoint's breaker as its delivery workflow publishes it (workflows/endpoint-breaker.ts). */
export const BreakerMark = {
  /** Deliveries go out; workers try the endpoint directly. */
  CLOSED: 'CLOSED',
  /** The endpoint failed for every order: deliveries wait for a probe to get through. */
  OPEN: 'OPEN',
} as const;
export type BreakerMark = (typeof BreakerMark)[keyof typeof BreakerMark];

/** The memo of the endpoint's delivery workflow: read by workers and the failing-orders gauge. */
export interface EndpointDeliveryMemo {
  readonly breaker: BreakerMark;
  /** Orders it holds whose events are FAILING or UNDELIVERED. */
  readonly failingOrders: number;
}

/** An order's events as a delivery reports them (`events list`, `orderEventsState`). */
export interface OrderEventsState {
  readonly orderId: string;
  readonly mark: DeliveryMark;
  /** Events waiting, oldest first (the first is the one being delivered). */
  readonly pending: readonly { readonly id: string; readonly type: string; readonly sequence: number }[];
  readonly delivered: number;
  /** Since when the oldest event fails, and the last attempt's answer (HTTP status or error). */
  readonly failingSince?: string;
  readonly lastFailure?: string;
  readonly nextAttemptAt?: string;
}

/** What the endpoint's delivery workflow reports (`endpointEventsState`). */
export interface EndpointEventsState {
  readonly breaker: {
    readonly mark: BreakerMark;
    /** Open: since when, the last answer, when the next probe goes. */
    readonly since?: string;
    readonly lastFailure?: string;
    readonly nextProbeAt?: string;
  };
  /** Events held, of every order. */
  readonly held: number;
  /** Events delivered by this run. */
  readonly delivered: number;
  /** Every order held, oldest first. */
  readonly orders: readonly OrderEventsState[];
}

/** How the endpoint's delivery workflow is started: its waits and hold, which tests shorten. */
export interface EndpointDeliverySettings {
  /** The first wait after a failed round or before a probe, doubling to an hour. @default 30000 */
  readonly firstRetryWaitMs?: number;
  /** Events held before a new order goes to the overflow. @default 2000 */
  readonly maxHeldEvents?: number;
}

/** One order's part of a round of the endpoint's delivery: its events, oldest first. */
export interface RoundPart {
  readonly orderId: string;
  readonly events: readonly OrderEvent[];
}

/** One order's answer from a round: how many of its events went, why the next did not. */
export interface OrderRoundResult {
  readonly orderId: string;
  readonly delivered: number;
  readonly failure?: string;
}

/** The endpoint's delivery workflow: events handed over together, of any orders. */
export const orderEventsHandedOverSignal = defineSignal<[OrderEvent[]]>('orderEventsHandedOver');
export const endpointEventsStateQuery = defineQuery<EndpointEventsState>('endpointEventsState');
/** Retry one order's events now (its oldest first), whatever the breaker says. */
export const redeliverOrderUpdate = defineUpdate<OrderEventsState, [string]>('redeliverOrder');

/** An overflow workflow: one event. */
export const orderEventSignal = defineSignal<[OrderEvent]>('orderEvent');
export const orderEventsStateQuery = defineQuery<OrderEventsState>('orderEventsState');
/** Retry a parked (or failing) overflow delivery now. */
export const redeliverOrderEventsUpdate = defineUpdate<OrderEventsState>('redeliverOrderEvents');

/** What the announcing workflow knows of its order, for the route (workflows/outbox.ts). */
export interface DeliveryHints {
  /** Nothing of this order can be waiting in a delivery: the event may be POSTed at once. */
  readonly direct?: boolean;
  /** An earlier event of this order may wait in an overflow workflow: the event goes behind it. */
  readonly checkOverflow?: boolean;
}

/** How an announced event went: delivered by this call, or queued in a delivery workflow. */
export type Announced = { readonly delivered: 'at-once' } | { readonly delivered: 'queued' };

/** The order events' activities, as the workflows call them (../activities implements them). */
export interface OrderEventActivities {
  /** The seam: every event of bookRoom and its guard goes through it (a local activity). */
  announceOrderEvent(event: OrderEvent, hints?: DeliveryHints): Promise<Announced>;
  /** One round of the endpoint's delivery; the endpoint's answers are results, not failures. */
  deliverOrderEventRound(round: readonly RoundPart[]): Promise<OrderRoundResult[]>;
  /** Events the endpoint's delivery cannot hold, to their orders' overflow workflows. */
  handOverToOrderWorkflows(events: readonly OrderEvent[]): Promise<void>;
  /** An overflow workflow's POST; any answer but 2xx fails the attempt. */
  deliverOrderEvent(event: OrderEvent): Promise<{ status: number }>;
}

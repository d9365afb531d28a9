/**
 * The order events' contract: what the orchestrator pushes to the order system when an order's
 * truth changes (Standard Webhooks: `webhook-id`, `webhook-timestamp`, `webhook-signature`; body
 * `{ type, timestamp, data }`), the delivery workflow's names, and which phase means which event.
 * Pure and zod-free: the workflows import it. docs/order-events.md is the reader's version.
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { SupplierPrice } from './booking-contract';
import { BookingOutcome, BookingPhase } from './booking-values';
import type { OrderTruth } from './guard-contract';
import { GuardPhase } from './guard-values';

/**
 * The durable delivery of an endpoint: one workflow per endpoint (a deployment, its task queue,
 * sends to one `ORDER_EVENTS_URL`), id `order-events:<task queue>`, on the events task queue. It
 * holds the events the endpoint did not take at once, of every order, delivers them in batches
 * and keeps the endpoint's breaker. The id cannot be an order's: order ids have no `:`.
 */
export const DELIVER_TO_ENDPOINT_WORKFLOW = 'deliverOrderEventsToEndpoint';
export const endpointDeliveryWorkflowId = (bookingTaskQueue: string): string =>
  `order-events:${bookingTaskQueue}`;
/**
 * An order's own delivery workflow, id `order-events-<orderId>`: for an order whose events the
 * endpoint's delivery could not hold (it holds at most so many), and for orders whose events were
 * queued before the endpoint's delivery existed.
 */
export const DELIVER_ORDER_EVENTS_WORKFLOW = 'deliverOrderEvents';
export const orderEventsWorkflowId = (orderId: string): string => `order-events-${orderId}`;
/** Both delivery workflows, for visibility queries. */
export const DELIVERY_WORKFLOWS = `WorkflowType IN ('${DELIVER_TO_ENDPOINT_WORKFLOW}', '${DELIVER_ORDER_EVENTS_WORKFLOW}')`;
/**
 * Deliveries run on their own task queue, polled by the workers' second worker: a slow endpoint
 * takes no slot a supplier call needs, and deliveries do not count against the supplier's rate cap
 * (the booking task queue's activity rate).
 */
export const orderEventsTaskQueue = (bookingTaskQueue: string): string =>
  `${bookingTaskQueue}-order-events`;

export const OrderEventType = {
  CONFIRMED: 'order.confirmed',
  NOT_CONFIRMED: 'order.not_confirmed',
  CANCELLED: 'order.cancelled',
  NOT_AVAILABLE: 'order.not_available',
  PRICE_REJECTED: 'order.price_rejected',
  FAILED: 'order.failed',
  APPROVAL_REQUIRED: 'order.approval_required',
  NEEDS_RECONCILIATION: 'order.needs_reconciliation',
  STATUS_UNREADABLE: 'order.status_unreadable',
  CANCELLATION_PENDING: 'order.cancellation_pending',
  CANCELLED_BY_SUPPLIER: 'order.cancelled_by_supplier',
  NEEDS_ATTENTION: 'order.needs_attention',
  FREE_CANCELLATION_ENDING: 'order.free_cancellation_ending',
  STAY_COMPLETED: 'order.stay_completed',
} as const;
export type OrderEventType = (typeof OrderEventType)[keyof typeof OrderEventType];

/** The event a phase of either workflow announces when entered, if any. */
export function eventTypeOfPhase(phase: BookingPhase | GuardPhase): OrderEventType | undefined {
  switch (phase) {
    case BookingOutcome.CONFIRMED: // GuardPhase.CONFIRMED too: a flag cleared by a good read
      return OrderEventType.CONFIRMED;
    case BookingOutcome.NOT_CONFIRMED:
      return OrderEventType.NOT_CONFIRMED;
    case BookingOutcome.CANCELLED: // GuardPhase.CANCELLED too
      return OrderEventType.CANCELLED;
    case BookingOutcome.NOT_AVAILABLE:
      return OrderEventType.NOT_AVAILABLE;
    case BookingOutcome.PRICE_REJECTED:
      return OrderEventType.PRICE_REJECTED;
    case BookingOutcome.FAILED:
      return OrderEventType.FAILED;
    case BookingPhase.AWAITING_APPROVAL:
      return OrderEventType.APPROVAL_REQUIRED;
    case BookingPhase.NEEDS_RECONCILIATION:
      return OrderEventType.NEEDS_RECONCILIATION;
    case BookingPhase.STATUS_UNREADABLE:
      return OrderEventType.STATUS_UNREADABLE;
    case GuardPhase.CANCELLATION_PENDING:
      return OrderEventType.CANCELLATION_PENDING;
    case GuardPhase.CANCELLED_BY_SUPPLIER:
      return OrderEventType.CANCELLED_BY_SUPPLIER;
    case GuardPhase.NEEDS_ATTENTION:
      return OrderEventType.NEEDS_ATTENTION;
    case GuardPhase.CHECKED_OUT:
      return OrderEventType.STAY_COMPLETED;
    default:
      return undefined;
  }
}

/**
 * What an event says. Ids, phases, statuses, prices and dates only: never a guest's name, phone,
 * e-mail or notes.
 */
export interface OrderEventData {
  readonly orderId: string;
  readonly truth: OrderTruth;
  readonly phase: string;
  /**
   * Increases with every event of the order, across bookRoom, its guard and any later run: a
   * receiver that saw a higher one may drop a lower one. Not contiguous: compare, do not count.
   */
  readonly sequence: number;
  readonly bookingId?: number;
  readonly supplierStatus?: string;
  readonly price?: SupplierPrice;
  readonly freeCancellationUntil?: string;
  readonly reason?: string;
}

/** One event as queued for delivery: its `webhook-id` and the body's fields. */
export interface OrderEvent {
  /** `webhook-id`: the same on every attempt, unique per event. */
  readonly id: string;
  readonly type: OrderEventType;
  /** When the truth changed (ISO 8601): the body's `timestamp`. */
  readonly timestamp: string;
  readonly data: OrderEventData;
}

/** The JSON body of an event's POST (Standard Webhooks: `{ type, timestamp, data }`). */
export interface OrderEventBody {
  readonly type: OrderEventType;
  readonly timestamp: string;
  readonly data: OrderEventData;
}

/** The body an event is POSTed with; contract/orderEvent.*.schema.json describe it. */
export function orderEventBody(event: OrderEvent): OrderEventBody {
  return { type: event.type, timestamp: event.timestamp, data: event.data };
}

/** `webhook-id` of an order's event. */
export const orderEventId = (orderId: string, sequence: number): string =>
  `evt_${orderId}_${sequence}`;

/**
 * Values of the `OrderEventsDelivery` search attribute of a delivery workflow, and of each order
 * it holds (`events list`). The endpoint's delivery is `FAILING` while any order it holds is, else
 * `UNDELIVERED` while any is parked.
 */
export const DeliveryMark = {
  /** Every event so far delivered (or handed over and not yet tried). */
  DELIVERED: 'DELIVERED',
  /** The endpoint failed the oldest event: retried with backoff. */
  FAILING: 'FAILING',
  /** Retried for the whole retry window: parked until `events redeliver`. */
  UNDELIVERED: 'UNDELIVERED',
} as const;
export type DeliveryMark = (typeof DeliveryMark)[keyof typeof DeliveryMark];

/**
 * Visibility query: the delivery workflows holding orders whose events are failing or parked,
 * undelivered (an order's own workflow is one order; the endpoint's says how many in its memo).
 */
export const ORDER_EVENTS_FAILING_QUERY = `${DELIVERY_WORKFLOWS} AND ExecutionStatus = 'Running' AND OrderEventsDelivery IN ('${DeliveryMark.FAILING}', '${DeliveryMark.UNDELIVERED}')`;

/** The endpoint's breaker as its delivery workflow publishes it (endpoint-breaker.ts). */
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

/** What the delivery workflow reports (`events list`, the `orderEventsState` query). */
export interface OrderEventsState {
  readonly orderId: string;
  readonly mark: DeliveryMark;
  /** Events waiting, oldest first (the first is the one being delivered). */
  readonly pending: readonly {
    readonly id: string;
    readonly type: string;
    readonly sequence: number;
  }[];
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

/**
 * How the endpoint's delivery workflow is started (a worker's hand-over, signal-with-start): its
 * waits and its hold, which tests shorten. The workflow's input adds what a run carries across
 * `continueAsNew` (src/workflows/order-events/deliver-to-endpoint.ts).
 */
export interface EndpointDeliverySettings {
  /**
   * The wait after an order's failed round, and before the breaker's first probe; each next one
   * doubles, to an hour. Tests shorten it. @default 30000
   */
  readonly firstRetryWaitMs?: number;
  /** Events held before a new order gets a delivery workflow of its own. @default 2000 */
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

/** An order's own delivery workflow: one event. */
export const orderEventSignal = defineSignal<[OrderEvent]>('orderEvent');
export const orderEventsStateQuery = defineQuery<OrderEventsState>('orderEventsState');
/** Retry a parked (or failing) delivery now. */
export const redeliverOrderEventsUpdate = defineUpdate<OrderEventsState>('redeliverOrderEvents');

/** The endpoint's delivery workflow: events handed over together, of any orders. */
export const orderEventsHandedOverSignal = defineSignal<[OrderEvent[]]>('orderEventsHandedOver');
export const endpointEventsStateQuery = defineQuery<EndpointEventsState>('endpointEventsState');
/** Retry one order's events now (its oldest first), whatever the breaker says. */
export const redeliverOrderUpdate = defineUpdate<OrderEventsState, [string]>('redeliverOrder');

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

/** The delivery workflow: one per order, id `order-events-<orderId>`, on its own task queue. */
export const DELIVER_ORDER_EVENTS_WORKFLOW = 'deliverOrderEvents';
export const orderEventsWorkflowId = (orderId: string): string => `order-events-${orderId}`;
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

/** Values of the `OrderEventsDelivery` search attribute of a delivery workflow. */
export const DeliveryMark = {
  /** Every event so far delivered. */
  DELIVERED: 'DELIVERED',
  /** The endpoint failed the oldest event: retried with backoff. */
  FAILING: 'FAILING',
  /** Retried for the whole retry window: parked until `events redeliver`. */
  UNDELIVERED: 'UNDELIVERED',
} as const;
export type DeliveryMark = (typeof DeliveryMark)[keyof typeof DeliveryMark];

/** Visibility query: the orders whose events are failing or parked, undelivered. */
export const ORDER_EVENTS_FAILING_QUERY = `WorkflowType = '${DELIVER_ORDER_EVENTS_WORKFLOW}' AND ExecutionStatus = 'Running' AND OrderEventsDelivery IN ('${DeliveryMark.FAILING}', '${DeliveryMark.UNDELIVERED}')`;

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

export const orderEventSignal = defineSignal<[OrderEvent]>('orderEvent');
export const orderEventsStateQuery = defineQuery<OrderEventsState>('orderEventsState');
/** Retry a parked (or failing) delivery now. */
export const redeliverOrderEventsUpdate = defineUpdate<OrderEventsState>('redeliverOrderEvents');

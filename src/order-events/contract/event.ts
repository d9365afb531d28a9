/**
 * An order event, pushed to the order system when an order's truth changes, and which phase
 * announces which (docs/order-events.md). Zod-free: workflows import it.
 */
import type { SupplierPrice } from '../../shared/booking-contract';
import { BookingOutcome, BookingPhase } from '../../shared/booking-values';
import type { OrderTruth } from '../../shared/guard-contract';
import { GuardPhase } from '../../shared/guard-values';

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

/** The event each phase of bookRoom or its guard announces when entered (the others: none). */
const EVENT_OF_PHASE: Readonly<Partial<Record<BookingPhase | GuardPhase, OrderEventType>>> = {
  [BookingOutcome.CONFIRMED]: OrderEventType.CONFIRMED, // GuardPhase.CONFIRMED too: a flag cleared
  [BookingOutcome.NOT_CONFIRMED]: OrderEventType.NOT_CONFIRMED,
  [BookingOutcome.CANCELLED]: OrderEventType.CANCELLED, // GuardPhase.CANCELLED too
  [BookingOutcome.NOT_AVAILABLE]: OrderEventType.NOT_AVAILABLE,
  [BookingOutcome.PRICE_REJECTED]: OrderEventType.PRICE_REJECTED,
  [BookingOutcome.FAILED]: OrderEventType.FAILED,
  [BookingPhase.AWAITING_APPROVAL]: OrderEventType.APPROVAL_REQUIRED,
  [BookingPhase.NEEDS_RECONCILIATION]: OrderEventType.NEEDS_RECONCILIATION,
  [BookingPhase.STATUS_UNREADABLE]: OrderEventType.STATUS_UNREADABLE,
  [GuardPhase.CANCELLATION_PENDING]: OrderEventType.CANCELLATION_PENDING,
  [GuardPhase.CANCELLED_BY_SUPPLIER]: OrderEventType.CANCELLED_BY_SUPPLIER,
  [GuardPhase.NEEDS_ATTENTION]: OrderEventType.NEEDS_ATTENTION,
  [GuardPhase.CHECKED_OUT]: OrderEventType.STAY_COMPLETED,
};

/** The event a phase of either workflow announces when entered, if any. */
export function eventTypeOfPhase(phase: BookingPhase | GuardPhase): OrderEventType | undefined {
  return Object.hasOwn(EVENT_OF_PHASE, phase) ? EVENT_OF_PHASE[phase] : undefined;
}

/** What an event says: ids, phases, statuses, prices and dates, never a guest's personal data. */
export interface OrderEventData {
  readonly orderId: string;
  /** The supplier account of an order that names one. */
  readonly supplier?: string;
  readonly truth: OrderTruth;
  readonly phase: string;
  /** Increases across every run of the order (a lower one may be dropped); compare, never count. */
  readonly sequence: number;
  readonly bookingId?: number;
  readonly supplierStatus?: string;
  readonly price?: SupplierPrice;
  readonly freeCancellationUntil?: string;
  readonly reason?: string;
}

/** The JSON body of an event's POST (Standard Webhooks: `{ type, timestamp, data }`). */
export interface OrderEventBody {
  readonly type: OrderEventType;
  /** When the truth changed (ISO 8601). */
  readonly timestamp: string;
  readonly data: OrderEventData;
}

/** One event as it travels to the order system: its body and its `webhook-id`. */
export interface OrderEvent extends OrderEventBody {
  /** `webhook-id`: the same on every attempt, unique per event. */
  readonly id: string;
}

/** The body an event is POSTed with; contract/orderEvent.*.schema.json describe it. */
export function orderEventBody(event: OrderEvent): OrderEventBody {
  return { type: event.type, timestamp: event.timestamp, data: event.data };
}

/** `webhook-id` of an order's event. */
export const orderEventId = (orderId: string, sequence: number): string =>
  `evt_${orderId}_${sequence}`;

/** The order events' decisions, pure and unit-tested (test/order-events/decisions.test.ts). */
import type { DeliveryMark, OrderEventsState } from '../contract/delivery';
import type { OrderEvent } from '../contract/event';
import { isoOf } from '../../workflows/guard/guard-decisions';
import { defined } from '../../shared/defined';

/** Sequences a run may use per millisecond of its start time (a run announces a few events). */
const PER_MS = 1000;

/**
 * The last sequence before a run's first event: what it took over, and at least its start time
 * (ms) times 1,000, so a later run of the order stays above an earlier one. Both are in history:
 * a retried task announces the same sequences (the same `webhook-id`s).
 */
export function sequenceFloor(handedOver: number, runStartMs: number): number {
  return Math.max(handedOver, runStartMs * PER_MS);
}

/**
 * The queue with `event` in sequence order; unchanged when it holds the event already or the
 * event is not newer than the last one delivered (an announcement retried after it got through).
 */
export function enqueue(
  queue: readonly OrderEvent[],
  event: OrderEvent,
  lastDelivered: number,
): OrderEvent[] {
  if (event.data.sequence <= lastDelivered || queue.some((e) => e.id === event.id)) {
    return [...queue];
  }
  return [...queue, event].sort((a, b) => a.data.sequence - b.data.sequence);
}

/** The first wait after a failed round, and the longest. */
export const FIRST_RETRY_WAIT_MS = 30_000;
export const LONGEST_RETRY_WAIT_MS = 3_600_000;
/** How long an event is retried before it is parked as UNDELIVERED (at least 72 h). */
export const RETRY_WINDOW_MS = 72 * 3_600_000;

/** The wait after failed round `round` (0-based): doubling from `firstWaitMs`, at most an hour. */
export function retryWaitMs(round: number, firstWaitMs = FIRST_RETRY_WAIT_MS): number {
  return Math.min(LONGEST_RETRY_WAIT_MS, firstWaitMs * 2 ** Math.min(round, 20));
}

/** Whether an event failing since `failingSince` is retried again (else it is parked). */
export function keepRetrying(failingSince: number, nowMs: number): boolean {
  return nowMs - failingSince < RETRY_WINDOW_MS;
}

/** An order as a delivery shows it (`events list`, `orderEventsState`): times as ISO 8601. */
export function eventsState(order: {
  readonly orderId: string;
  readonly mark: DeliveryMark;
  readonly events: readonly OrderEvent[];
  readonly delivered: number;
  readonly failingSince?: number | undefined;
  readonly lastFailure?: string | undefined;
  readonly nextAttemptAt?: number | undefined;
}): OrderEventsState {
  const { failingSince, lastFailure, nextAttemptAt } = order;
  return {
    orderId: order.orderId,
    mark: order.mark,
    pending: order.events.map((e) => ({ id: e.id, type: e.type, sequence: e.data.sequence })),
    delivered: order.delivered,
    ...defined({
      failingSince: isoOf(failingSince),
      lastFailure,
      nextAttemptAt: isoOf(nextAttemptAt),
    }),
  };
}

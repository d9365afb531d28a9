/**
 * The emitting side of order events, shared by bookRoom and the guard: an outbox the run's phase
 * changes fill (synchronously, from `enter`) and one coroutine drains in order, handing each event
 * to the order's delivery workflow with a local activity. A run awaits {@link flushed} before it
 * hands over to the guard, continues as new or closes, so no event is left behind and the next
 * emitter's events come after its own.
 */
import { condition, proxyLocalActivities, workflowInfo } from '@temporalio/workflow';
import type { OrderEventActivities } from '../activities/order-events';
import {
  eventTypeOfPhase,
  orderEventId,
  type OrderEvent,
  type OrderEventData,
  type OrderEventType,
} from '../shared/order-events';
import { ANNOUNCE_EVENT_ACTIVITY } from './activity-options';
import { iso } from './guard-decisions';
import { sequenceFloor } from './order-event-decisions';

const { announceOrderEvent } = proxyLocalActivities<OrderEventActivities>(ANNOUNCE_EVENT_ACTIVITY);

export class OrderEventOutbox {
  #queue: OrderEvent[] = [];
  #draining = false;

  /** The last sequence used for this order's events. */
  lastSequence: number;

  constructor(
    readonly orderId: string,
    /** The last sequence handed over (by bookRoom to the guard, or across continueAsNew). */
    handedOver = 0,
  ) {
    this.lastSequence = sequenceFloor(handedOver, workflowInfo().runStartTime.getTime());
  }

  /** Queues the event of entering `phase`, if that phase announces one. */
  phase(phase: string, data: Omit<OrderEventData, 'orderId' | 'phase' | 'sequence'>): void {
    const type = eventTypeOfPhase(phase as Parameters<typeof eventTypeOfPhase>[0]);
    if (type) this.push(type, { ...data, phase });
  }

  /** Queues an event; the drain announces it after those before it. */
  push(type: OrderEventType, data: Omit<OrderEventData, 'orderId' | 'sequence'>): void {
    const now = Date.now();
    const sequence = ++this.lastSequence;
    this.#queue.push({
      id: orderEventId(this.orderId, sequence),
      type,
      timestamp: iso(now),
      data: { orderId: this.orderId, ...data, sequence } as OrderEventData,
    });
    void this.#drain();
  }

  async #drain(): Promise<void> {
    if (this.#draining) return;
    this.#draining = true;
    try {
      while (this.#queue.length > 0) {
        await announceOrderEvent(this.#queue[0]!);
        this.#queue.shift();
      }
    } finally {
      this.#draining = false;
    }
  }

  /** Resolves once every queued event is in its delivery workflow. */
  async flushed(): Promise<void> {
    await condition(() => this.#queue.length === 0 && !this.#draining);
  }
}

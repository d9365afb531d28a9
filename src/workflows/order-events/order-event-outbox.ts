/**
 * The emitting side of order events, shared by bookRoom and the guard: an outbox the run's phase
 * changes fill (synchronously, from `enter`) and one coroutine drains in order, one local activity
 * per event. The activity POSTs the event at once when the outbox allows it and the endpoint
 * answers, else hands it to the order's delivery workflow (activities/order-events.ts). A run
 * awaits {@link flushed} before it hands over to the guard, continues as new or closes, so no
 * event is left behind and the next emitter's events come after its own.
 *
 * In order per order: an outbox allows direct delivery only while nothing of its order can be
 * waiting in a delivery workflow, i.e. it was made by the order's first run and none of its events
 * has been queued yet. Once one is queued, every later one is queued behind it. An outbox made
 * from a handed-over sequence (a guard of its own, a run continued as new) queues every event.
 * Queued events go to the endpoint's delivery workflow, unless an earlier one of the order may
 * wait in the order's own (the announcement then checks: `checkOrderWorkflow`).
 */
import { proxyLocalActivities, workflowInfo } from '@temporalio/workflow';
import type { OrderEventActivities } from '../../activities/order-events';
import {
  eventTypeOfPhase,
  orderEventId,
  type OrderEvent,
  type OrderEventData,
  type OrderEventType,
} from '../../shared/order-events';
import { ANNOUNCE_EVENT_ACTIVITY } from '../activity-options';
import { iso } from '../guard/guard-decisions';
import { sequenceFloor } from './order-event-decisions';

const { announceOrderEvent } = proxyLocalActivities<OrderEventActivities>(ANNOUNCE_EVENT_ACTIVITY);

export class OrderEventOutbox {
  #queue: OrderEvent[] = [];
  /** The drain in flight, one local activity per event: resolves once the queue is empty. */
  #drain: Promise<void> | undefined;

  /** The last sequence used for this order's events. */
  lastSequence: number;

  /** Events may still be POSTed at once: see the module's comment. */
  #direct: boolean;

  /** An earlier event of the order may wait in the order's own delivery workflow. */
  #check: boolean;

  constructor(
    readonly orderId: string,
    /** The last sequence handed over (by bookRoom to the guard, or across continueAsNew). */
    handedOver = 0,
    options: { readonly firstRun?: boolean } = {},
  ) {
    this.lastSequence = sequenceFloor(handedOver, workflowInfo().runStartTime.getTime());
    this.#direct = options.firstRun === true;
    this.#check = !this.#direct;
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
    this.#drain ??= this.#announceFirst();
  }

  /** Announces the queue's first event, then the next, until the queue is empty. */
  #announceFirst(): Promise<void> {
    const options = {
      ...(this.#direct ? { direct: true } : {}),
      ...(this.#check ? { checkOrderWorkflow: true } : {}),
    };
    return announceOrderEvent(this.#queue[0]!, options).then(
      (announced) => {
        // A history recorded before direct delivery has no answer: its events were queued.
        if (announced?.delivered !== 'at-once') this.#direct = false;
        // Handed over: the endpoint's delivery may pass the order on to its own workflow.
        this.#check = !this.#direct;
        this.#queue.shift();
        if (this.#queue.length > 0) return this.#announceFirst();
        this.#drain = undefined;
      },
      (err: unknown) => {
        // The announcement retries until it answers, so only a cancelled one fails: the event
        // stays first in the queue, and the next push drains again.
        this.#drain = undefined;
        throw err;
      },
    );
  }

  /**
   * Resolves once every queued event is delivered or in its delivery workflow, those queued
   * while it waited included.
   */
  flushed(): Promise<void> {
    const drain = this.#drain;
    return drain ? drain.then(() => this.flushed()) : Promise.resolve();
  }
}

/**
 * The seam (../README.md): `deliver` fills the outbox synchronously, one coroutine drains it in
 * order; a run awaits {@link flushed} before it continues as new or closes.
 */
import { proxyLocalActivities, workflowInfo } from '@temporalio/workflow';
import type { OrderEventActivities } from '../contract/delivery';
import {
  eventTypeOfPhase,
  orderEventId,
  type OrderEvent,
  type OrderEventData,
  type OrderEventType,
} from '../contract/event';
import { ANNOUNCE_EVENT_ACTIVITY } from '../../workflows/activity-options';
import { iso } from '../../workflows/guard/guard-decisions';
import { sequenceFloor } from './decisions';

const { announceOrderEvent } = proxyLocalActivities<OrderEventActivities>(ANNOUNCE_EVENT_ACTIVITY);

export class OrderEventOutbox {
  #queue: OrderEvent[] = [];
  /** The drain in flight, one local activity per event: resolves once the queue is empty. */
  #drain: Promise<void> | undefined;

  /** The last sequence used for this order's events. */
  lastSequence: number;

  /** Events may still be POSTed at once (README: the seam): order per order is kept. */
  #direct: boolean;

  constructor(
    readonly orderId: string,
    /** The last sequence handed over (by bookRoom to the guard, or across continueAsNew). */
    handedOver = 0,
    options: { readonly firstRun?: boolean; readonly supplier?: string | undefined } = {},
  ) {
    this.lastSequence = sequenceFloor(handedOver, workflowInfo().runStartTime.getTime());
    this.#direct = options.firstRun === true;
    this.#supplier = options.supplier !== undefined ? { supplier: options.supplier } : {};
  }

  /** The order's account, in each event of an order that names one. */
  readonly #supplier: { readonly supplier?: string };

  /** Delivers the event of entering `phase`, if that phase announces one. */
  phase(phase: string, data: Omit<OrderEventData, 'orderId' | 'phase' | 'sequence'>): void {
    const type = eventTypeOfPhase(phase as Parameters<typeof eventTypeOfPhase>[0]);
    if (type) this.deliver(type, { ...data, phase });
  }

  /** The seam: queues an event; the drain announces it after those before it. */
  deliver(type: OrderEventType, data: Omit<OrderEventData, 'orderId' | 'sequence'>): void {
    const now = Date.now();
    const sequence = ++this.lastSequence;
    this.#queue.push({
      id: orderEventId(this.orderId, sequence),
      type,
      timestamp: iso(now),
      data: { orderId: this.orderId, ...this.#supplier, ...data, sequence } as OrderEventData,
    });
    this.#drain ??= this.#announceFirst();
  }

  /** Announces the queue's first event, then the next, until the queue is empty. */
  #announceFirst(): Promise<void> {
    const hints = this.#direct ? { direct: true } : { checkOverflow: true };
    return announceOrderEvent(this.#queue[0]!, hints).then(
      (announced) => {
        // A history recorded before direct delivery has no answer: its events were queued.
        if (announced?.delivered !== 'at-once') this.#direct = false;
        this.#queue.shift();
        if (this.#queue.length > 0) return this.#announceFirst();
        this.#drain = undefined;
      },
      (err: unknown) => {
        // The announcement retries until it answers, so only a cancelled one fails: the event
        // stays first in the queue, and the next `deliver` drains again.
        this.#drain = undefined;
        throw err;
      },
    );
  }

  /** Resolves once every queued event (those queued meanwhile too) is delivered or durable. */
  flushed(): Promise<void> {
    const drain = this.#drain;
    return drain ? drain.then(() => this.flushed()) : Promise.resolve();
  }
}

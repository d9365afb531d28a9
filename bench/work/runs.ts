/**
 * How the `work` part starts its runs: a confirmed booking through `BookingClient` (its guard
 * after it, unless `BENCH_GUARD=0`, a diagnosis of what the guard costs), or the two-activity
 * control; each timed, and the first five orders kept for their histories.
 */
import { randomUUID } from 'node:crypto';
import { benchBookingInput, NO_GUARD } from '../shared/bookings';
import type { BenchSettings } from '../shared/settings';
import type { PartStack } from '../shared/stack';
import type { Kind } from '../shared/windows';

/** A run the part timed: its workflow id, its start call and its answer (epoch ms). */
export interface TimedRun {
  readonly id: string;
  readonly startedAt: number;
  readonly resultAt: number;
}

export class WorkRuns {
  readonly #s: BenchSettings['work'];
  readonly #stack: PartStack;
  /** The first five orders, for their histories. */
  readonly samples: string[] = [];
  #last: string | undefined;
  #timed: TimedRun[] = [];

  constructor(s: BenchSettings['work'], stack: PartStack) {
    this.#s = s;
    this.#stack = stack;
  }

  /** Starts a two-activity control. */
  control() {
    return this.#stack.temporal.client.workflow.start('controlTwoStep', {
      taskQueue: this.#stack.taskQueue,
      workflowId: `control2-${randomUUID()}`,
      args: ['x'],
    });
  }

  /** The runs timed since the last call. */
  takeTimed(): TimedRun[] {
    const taken = this.#timed;
    this.#timed = [];
    return taken;
  }

  async one(kind: Kind): Promise<boolean> {
    const startedAt = Date.now();
    if (kind === 'booking') {
      const { bookings } = this.#stack;
      const input = benchBookingInput('instant', this.#s.guard ? {} : NO_GUARD);
      const started = await bookings.startBooking(input);
      const ok = (await bookings.result(started)).outcome === 'CONFIRMED';
      if (this.samples.length < 5) this.samples.push(input.orderId);
      this.#last = input.orderId;
      this.#timed.push({ id: `booking-${input.orderId}`, startedAt, resultAt: Date.now() });
      return ok;
    }
    const handle = await this.control();
    await handle.result();
    this.#timed.push({ id: handle.workflowId, startedAt, resultAt: Date.now() });
    return true;
  }

  /**
   * Waits (up to 2 s) until the last order's guard has done its first task and waits: the order's
   * workflow has no activity or workflow task pending (its guard's first read runs after the
   * task that answered the caller).
   */
  async lastGuardWaiting(): Promise<void> {
    if (!this.#last || !this.#s.guard) return;
    const handle = this.#stack.temporal.client.workflow.getHandle(`booking-${this.#last}`);
    const until = Date.now() + 2_000;
    while (Date.now() < until) {
      const d = await handle.describe().catch(() => undefined);
      if (d && !d.raw.pendingActivities?.length && !d.raw.pendingWorkflowTask) return;
      await new Promise((r) => setTimeout(r, 5));
    }
  }
}

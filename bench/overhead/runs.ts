/**
 * The overhead part's three kinds of run, each timed start to answer: a booking through the
 * product's `BookingClient` (or, for the eager-start experiment, the same start with
 * `requestEagerStart`), the same two supplier calls made directly with the hotel API client, and
 * the no-op control workflow. The last booking and control runs are kept for their histories.
 */
import { randomUUID } from 'node:crypto';
import { Client, WorkflowIdConflictPolicy, WorkflowIdReusePolicy } from '@temporalio/client';
import { HotelApiClient } from '../../src/hotel-api';
import {
  BOOK_ROOM_WORKFLOW,
  bookingWorkflowId,
  type BookRoomInput,
  type BookRoomResult,
} from '../../src/shared/booking-contract';
import { outcomeUpdate } from '../../src/shared/booking-messages';
import { NO_GUARD, benchBookingInput, directBooking } from '../shared/bookings';
import type { BenchSettings } from '../shared/settings';
import type { PartStack } from '../shared/stack';
import { benchHotelApiConfig } from '../shared/supplier';
import { meanSteps, runSteps, type Step } from '../shared/timeline';
import { benchDataConverter } from '../shared/worker';

/** A measured run: its workflow id and when it was started and answered (epoch ms). */
export interface Run {
  readonly workflowId: string;
  readonly startedAt: number;
  readonly resultAt: number;
}

/** The runs of the part on `stack`; `close()` closes the direct calls' client. */
export class OverheadRuns {
  readonly #settings: BenchSettings['overhead'];
  readonly #stack: PartStack;
  readonly #direct: HotelApiClient;
  /** A client on the in-process worker's connection, for the eager-start experiment. */
  readonly #eagerClient: Client | undefined;
  /** The last booking and control runs, for the step breakdown. */
  readonly last: { workflow?: Run; control?: Run } = {};

  constructor(settings: BenchSettings['overhead'], stack: PartStack) {
    this.#settings = settings;
    this.#stack = stack;
    this.#direct = new HotelApiClient(benchHotelApiConfig(stack.sim.baseUrl));
    const connection = stack.workers[0]?.nativeConnection;
    this.#eagerClient =
      settings.eagerStart && connection
        ? new Client({ connection, dataConverter: benchDataConverter() })
        : undefined;
  }

  /** The bench's booking; without its guard only when `BENCH_GUARD=0` (diagnosis). */
  input(): BookRoomInput {
    return benchBookingInput('instant', this.#settings.guard ? {} : NO_GUARD);
  }

  /** What BookingClient.startBooking sends, plus requestEagerStart. */
  async #eagerBooking(client: Client, input: BookRoomInput): Promise<BookRoomResult> {
    const handle = await client.workflow.start(BOOK_ROOM_WORKFLOW, {
      taskQueue: this.#stack.taskQueue,
      workflowId: bookingWorkflowId(input.orderId),
      args: [input],
      workflowIdConflictPolicy: WorkflowIdConflictPolicy.FAIL,
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      requestEagerStart: true,
    });
    return handle.executeUpdate(outcomeUpdate);
  }

  /** One bookRoom, start to result; the product's client path unless eager start is on. */
  async viaWorkflow(input: BookRoomInput): Promise<number> {
    const startedAt = Date.now();
    const t0 = performance.now();
    let result: BookRoomResult;
    if (this.#eagerClient) {
      result = await this.#eagerBooking(this.#eagerClient, input);
    } else {
      const started = await this.#stack.bookings.startBooking(input);
      result = await this.#stack.bookings.result(started);
    }
    const ms = performance.now() - t0;
    const workflowId = bookingWorkflowId(input.orderId);
    this.last.workflow = { workflowId, startedAt, resultAt: Date.now() };
    if (result.outcome !== 'CONFIRMED') {
      throw new Error(`bookRoom ${input.orderId} ended ${result.outcome}: ${result.reason ?? ''}`);
    }
    return ms;
  }

  async viaControl(): Promise<number> {
    const startedAt = Date.now();
    const t0 = performance.now();
    const workflowId = `control-${randomUUID()}`;
    const client = this.#eagerClient ?? this.#stack.temporal.client;
    const handle = await client.workflow.start('controlNoop', {
      taskQueue: this.#stack.taskQueue,
      workflowId,
      args: ['x'],
      ...(this.#eagerClient ? { requestEagerStart: true } : {}),
    });
    await handle.result();
    const ms = performance.now() - t0;
    this.last.control = { workflowId, startedAt, resultAt: Date.now() };
    return ms;
  }

  async viaClient(input: BookRoomInput): Promise<number> {
    const t0 = performance.now();
    await directBooking(this.#direct, input);
    return performance.now() - t0;
  }

  /** One run of each kind, unmeasured (JIT, connections, caches). */
  async warm(): Promise<void> {
    await this.viaWorkflow(this.input());
    await this.viaClient(this.input());
    await this.viaControl();
  }

  /** Mean ms per step of `runs`, from their histories. */
  async steps(runs: readonly Run[]): Promise<Record<Step, number>> {
    const client = this.#stack.temporal.client;
    const each = await Promise.all(
      runs.map(async (r) => {
        const history = await client.workflow.getHandle(r.workflowId).fetchHistory();
        return runSteps(history.events ?? [], r.startedAt, r.resultAt);
      }),
    );
    return meanSteps(each);
  }

  close(): Promise<void> {
    return this.#direct.close();
  }
}

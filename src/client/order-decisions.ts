/**
 * Starting an order is asking for its decision: the order's workflow is started with its `outcome`
 * update (update-with-start), and `result` waits for the answer, asked of the run that took it.
 */
import { randomUUID } from 'node:crypto';
import {
  WithStartWorkflowOperation,
  WorkflowExecutionAlreadyStartedError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  WorkflowUpdateStage,
  type WorkflowExecutionDescription,
  type WorkflowStartOptions,
  WorkflowIdConflictPolicy,
  WorkflowIdReusePolicy,
  type WorkflowHandle,
} from '@temporalio/client';
import {
  OUTCOME_UPDATE_ID,
  BookingPhase,
  bookingWorkflowId,
  type BookingOutcome,
  type BookRoomInput,
  type BookRoomParams,
  type BookRoomResult,
} from '../shared/booking-contract';
import { outcomeUpdate } from '../shared/booking-messages';
import {
  BookingOutcomeKey,
  BookingPhaseKey,
  CheckInDateKey,
  OrderIdKey,
} from '../shared/search-attributes';
import { cutAtDeadline } from './temporal-not-answering';
import { validateBookRoomInput } from './booking-input';
import { orderHandle, type BookingClientSettings } from './booking-client-options';

/**
 * How long `startBooking` waits for a worker to take the `outcome` update sent with the start (its
 * first workflow task) before it returns anyway: the start is durable, and `result` asks again.
 */
const OUTCOME_ACCEPT_WAIT_MS = 10_000;
/** How far this machine's clock may be behind the server's when a start's own run is told apart. */
const START_CLOCK_MARGIN_MS = 5_000;
/** How many started bookings' `outcome` update ids a client keeps for `result` (oldest dropped). */
const SENT_OUTCOMES_KEPT = 10_000;

export type StartStatus = 'STARTED' | 'ALREADY_RUNNING' | 'ALREADY_FINISHED';

export interface StartedBooking {
  readonly orderId: string;
  readonly workflowId: string;
  readonly runId: string | undefined;
  /** `STARTED` for a new workflow; otherwise the existing one was found and nothing was started. */
  readonly status: StartStatus;
  /**
   * The existing workflow's decision, once it has one: an order that decided CONFIRMED stays
   * `ALREADY_RUNNING` (its guard holds it until check-out) with its outcome here.
   */
  readonly outcome?: BookingOutcome;
}

/** An `outcome` update a start sent, and the run that took it (unknown if none took it in time). */
interface SentOutcome {
  readonly updateId: string;
  readonly runId?: string;
}

async function describeIfExists(
  handle: WorkflowHandle,
): Promise<WorkflowExecutionDescription | undefined> {
  try {
    return await handle.describe();
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return undefined;
    throw err;
  }
}

/** `BookingClient`'s `startBooking` and `result`, and what the first leaves the second. */
export class OrderDecisions {
  /**
   * The `outcome` update each start of this client sent, by workflow id, with the run that took it
   * when known, until `result` takes it.
   */
  private readonly sentOutcomes = new Map<string, SentOutcome>();

  constructor(private readonly settings: BookingClientSettings) {}

  async startBooking(input: BookRoomInput): Promise<StartedBooking> {
    const valid = validateBookRoomInput(input, this.settings.orderIdField);
    const workflowId = bookingWorkflowId(valid.orderId);
    const options = {
      taskQueue: this.settings.taskQueue,
      workflowId,
      args: [valid] as [BookRoomParams],
      workflowIdConflictPolicy: WorkflowIdConflictPolicy.FAIL,
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      typedSearchAttributes: [
        { key: OrderIdKey, value: valid.orderId },
        { key: BookingPhaseKey, value: BookingPhase.PRICE_CHECK },
        ...(valid.checkIn
          ? [{ key: CheckInDateKey, value: new Date(`${valid.checkIn}T00:00:00Z`) }]
          : []),
      ],
      staticSummary: `Book option for order ${valid.orderId}`,
    };
    try {
      const runId = await this.startWithOutcome(options);
      return { orderId: valid.orderId, workflowId, runId, status: 'STARTED' };
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
      const description = await this.settings.client.workflow.getHandle(workflowId).describe();
      const outcome = description.typedSearchAttributes.get(BookingOutcomeKey);
      return {
        orderId: valid.orderId,
        workflowId,
        runId: description.runId,
        status: description.status.name === 'RUNNING' ? 'ALREADY_RUNNING' : 'ALREADY_FINISHED',
        ...(outcome !== undefined ? { outcome: outcome as BookingOutcome } : {}),
      };
    }
  }

  /**
   * Starts the order's workflow with its `outcome` update (update-with-start: the update rides in
   * the first workflow task, so asking for the decision costs no task of its own). Waits for a
   * worker to accept it for {@link OUTCOME_ACCEPT_WAIT_MS} at most; the start stands either way.
   */
  private async startWithOutcome(
    options: WorkflowStartOptions & { workflowIdConflictPolicy: WorkflowIdConflictPolicy },
  ): Promise<string | undefined> {
    const { client, workflow } = this.settings;
    const start = new WithStartWorkflowOperation(workflow, options);
    // Its own id: a second caller's update with the same id would be taken as this one's retry,
    // and its start reported as this one (the server answers a known update id before the policy).
    const updateId = `${OUTCOME_UPDATE_ID}-${randomUUID()}`;
    const sentAt = Date.now();
    const sent = client.connection.withDeadline(Date.now() + OUTCOME_ACCEPT_WAIT_MS, () =>
      client.workflow.startUpdateWithStart(outcomeUpdate, {
        updateId,
        waitForStage: WorkflowUpdateStage.ACCEPTED,
        startWorkflowOperation: start,
      }),
    );
    // Taken or not, it is settled here (a refused start rejects it too, with the same error).
    const settled = sent.catch(() => undefined);
    try {
      // The start's own answer: started, or refused (already started).
      await start.workflowHandle();
    } catch (err) {
      if (!cutAtDeadline(err)) throw err;
      // Temporal holds the start's answer until a worker takes the update: no worker took it in
      // time (DEADLINE_EXCEEDED, or CANCELLED when the server's end of the deadline came first).
      // The run tells whether this call started it (its start time is this call's).
      const run = await describeIfExists(client.workflow.getHandle(options.workflowId));
      if (!run || run.type !== workflow) throw err;
      if (run.startTime.getTime() < sentAt - START_CLOCK_MARGIN_MS)
        throw new WorkflowExecutionAlreadyStartedError(
          'Workflow execution already started',
          options.workflowId,
          workflow,
        );
      this.rememberOutcome(options.workflowId, { updateId, runId: run.runId });
      return run.runId;
    }
    // Undefined when no worker took the update in time: the workflow runs (its run id unknown
    // here), and `result` asks for the decision again.
    const runId = (await settled)?.workflowRunId;
    this.rememberOutcome(options.workflowId, { updateId, ...(runId ? { runId } : {}) });
    return runId;
  }

  private rememberOutcome(workflowId: string, sent: SentOutcome): void {
    this.sentOutcomes.set(workflowId, sent);
    if (this.sentOutcomes.size > SENT_OUTCOMES_KEPT)
      this.sentOutcomes.delete(this.sentOutcomes.keys().next().value!);
  }

  async result(orderId: string): Promise<BookRoomResult> {
    const handle = orderHandle(this.settings.client, orderId);
    const sent = this.sentOutcomes.get(handle.workflowId);
    this.sentOutcomes.delete(handle.workflowId);
    const asks = [
      // The update this client sent with the start: waiting for it costs the workflow nothing,
      // and asked of the run that took it, the server finds that run without reading which run
      // is the workflow id's current one.
      ...(sent
        ? [
            () =>
              handle
                .getUpdateHandle<BookRoomResult>(
                  sent.updateId,
                  sent.runId ? { workflowRunId: sent.runId } : {},
                )
                .result(),
          ]
        : []),
      () => handle.executeUpdate(outcomeUpdate, { updateId: OUTCOME_UPDATE_ID }),
    ];
    for (const ask of asks) {
      try {
        return await ask();
      } catch (err) {
        // Not there (not taken in time, another run, closed) or not this workflow's (an earlier
        // version's bookRoom has no such update).
        if (!(err instanceof WorkflowUpdateFailedError || err instanceof WorkflowNotFoundError))
          throw err;
      }
    }
    return (await handle.result()) as BookRoomResult;
  }
}

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
import {
  describeIfExists,
  orderHandle,
  type BookingClientSettings,
} from './booking-client-options';

/** How long `startBooking` waits for a worker to take its `outcome` update (`result` asks on). */
const OUTCOME_ACCEPT_WAIT_MS = 10_000;
/** The run's details (user metadata, never decoded by a list) name the start's `outcome` update. */
export const startDetails = (updateId: string): string =>
  `Started with its outcome update ${updateId} (BookingClient).`;
const START_UPDATE = /outcome update (outcome-[0-9a-f-]{36})/;

/** The `outcome` update a run's start carried, when BookingClient started it. */
export async function startUpdateOf(
  run: WorkflowExecutionDescription,
): Promise<string | undefined> {
  return START_UPDATE.exec((await run.staticDetails()) ?? '')?.[1];
}

export type StartStatus = 'STARTED' | 'ALREADY_RUNNING' | 'ALREADY_FINISHED';

export interface StartedBooking {
  readonly orderId: string;
  readonly workflowId: string;
  readonly runId: string | undefined;
  /** `STARTED` for a new workflow; otherwise the existing one was found and nothing was started. */
  readonly status: StartStatus;
  /** The existing workflow's decision, if any (a CONFIRMED order stays `ALREADY_RUNNING`). */
  readonly outcome?: BookingOutcome;
  /** `STARTED`: the id of the `outcome` update the start carried, for {@link OrderDecisions.result}. */
  readonly outcomeUpdateId?: string;
}

/**
 * `BookingClient`'s `startBooking` and `result`: the start carries the `outcome` update under an
 * id of its own, also written in the run's details ({@link startDetails}), so the run says which
 * start made it and `result`, in any process, waits for that update.
 */
export class OrderDecisions {
  constructor(private readonly settings: BookingClientSettings) {}

  async startBooking(input: BookRoomInput): Promise<StartedBooking> {
    const valid = validateBookRoomInput(input, this.settings.orderIdField);
    const workflowId = bookingWorkflowId(valid.orderId);
    // Its own id: a second caller's update with the same id would be taken as this one's retry,
    // and its start reported as this one (the server answers a known update id before the policy).
    const updateId = `${OUTCOME_UPDATE_ID}-${randomUUID()}`;
    const options = {
      taskQueue: this.settings.taskQueue,
      workflowId,
      args: [valid] as [BookRoomParams],
      workflowIdConflictPolicy: WorkflowIdConflictPolicy.FAIL,
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      staticDetails: startDetails(updateId),
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
      const runId = await this.startWithOutcome(options, updateId);
      return {
        orderId: valid.orderId,
        workflowId,
        runId,
        status: 'STARTED',
        outcomeUpdateId: updateId,
      };
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
   * Starts the order's workflow with its `outcome` update (it rides in the first workflow task).
   * Temporal holds the start's answer until a worker accepts the update; after
   * {@link OUTCOME_ACCEPT_WAIT_MS} the run's details say whether this call started it.
   */
  private async startWithOutcome(
    options: WorkflowStartOptions & { workflowIdConflictPolicy: WorkflowIdConflictPolicy },
    updateId: string,
  ): Promise<string | undefined> {
    const { client, workflow } = this.settings;
    const start = new WithStartWorkflowOperation(workflow, options);
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
      // No worker took the update in time (DEADLINE_EXCEEDED, or CANCELLED when the server's end
      // of the deadline came first): the run's details, if it exists, say whose start made it.
      if (!cutAtDeadline(err)) throw err;
      const run = await describeIfExists(client.workflow.getHandle(options.workflowId));
      if (!run || run.type !== workflow) throw err;
      if ((await startUpdateOf(run)) !== updateId)
        throw new WorkflowExecutionAlreadyStartedError(
          'Workflow execution already started',
          options.workflowId,
          workflow,
        );
      return run.runId;
    }
    // Undefined when no worker took the update in time: the workflow runs (its run id unknown
    // here), and `result` asks for the decision again.
    return (await settled)?.workflowRunId;
  }

  async result(order: string | StartedBooking): Promise<BookRoomResult> {
    const started = typeof order === 'string' ? undefined : order;
    const handle = orderHandle(this.settings.client, started?.orderId ?? (order as string));
    let sent = started?.outcomeUpdateId;
    let runId = started?.runId;
    if (sent === undefined) {
      const run = await handle.describe();
      if (run.status.name !== 'RUNNING') return (await handle.result()) as BookRoomResult;
      sent = await startUpdateOf(run);
      runId = run.runId;
    }
    const asks = [
      // The update the start sent: waiting for it costs the workflow nothing.
      ...(sent !== undefined
        ? [
            () =>
              handle
                .getUpdateHandle<BookRoomResult>(sent, runId ? { workflowRunId: runId } : {})
                .result(),
          ]
        : []),
      () => handle.executeUpdate(outcomeUpdate, { updateId: OUTCOME_UPDATE_ID }),
    ];
    for (const ask of asks) {
      try {
        return await ask();
      } catch (err) {
        // Not there (closed meanwhile, aborted by its closing task) or not this workflow's (an
        // earlier version's bookRoom has no such update).
        if (!(err instanceof WorkflowUpdateFailedError || err instanceof WorkflowNotFoundError))
          throw err;
      }
    }
    return (await handle.result()) as BookRoomResult;
  }
}

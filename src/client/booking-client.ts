/**
 * The typed client for upstream order systems: start a booking (idempotent per order), await it,
 * read its state, approve, cancel, resolve, and cancel a supplier booking by id. Input is
 * validated with zod before anything starts; a bad input throws {@link BookingInputError} naming
 * the fields, and nothing is started or sent.
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
  type Client,
  type WorkflowHandle,
} from '@temporalio/client';
import type { BOOK_ROOM_AND_GUARD_WORKFLOW, BookingOutcome } from '../shared/booking-contract';
import {
  BOOK_ROOM_WORKFLOW,
  BookRoomInputSchema,
  OUTCOME_UPDATE_ID,
  BookingPhase,
  CANCEL_BOOKING_WORKFLOW,
  CancelBookingInputSchema,
  ResolveReconciliationSchema,
  bookingWorkflowId,
  cancellationWorkflowId,
  toFieldIssues,
  bookRoomInputRuleIssues,
  type BookRoomInput,
  type OrderResult,
  type BookRoomParams,
  type BookRoomResult,
  type CancelBookingInput,
  type CancelBookingResult,
  type FieldIssue,
  type ResolveReconciliation,
} from '../shared/booking-contract';
import {
  approvePriceChangeUpdate,
  bookingStateQuery,
  cancelUpdate,
  outcomeUpdate,
  resolveReconciliationUpdate,
} from '../shared/booking-messages';
import {
  BookingOutcomeKey,
  BookingPhaseKey,
  CheckInDateKey,
  inEveryDivision,
  OrderIdKey,
  SupplierBookingIdKey,
} from '../shared/search-attributes';
import { cutAtDeadline } from './temporal-not-answering';
import { DEFAULT_ORDER_ID_FIELD, DEFAULT_TASK_QUEUE } from '../config/defaults';
import type { OrderState } from '../shared/guard-contract';
import { keepUpdate } from '../shared/booking-messages';
import { truthOf } from '../shared/order-truth';
import { guardOfEarlierVersion, handedToGuardOfItsOwn } from './earlier-versions';
import {
  DELIVER_TO_ENDPOINT_WORKFLOW,
  DeliveryMark,
  endpointDeliveryWorkflowId,
  endpointEventsStateQuery,
  ORDER_EVENTS_FAILING_QUERY,
  orderEventsStateQuery,
  orderEventsTaskQueue,
  orderEventsWorkflowId,
  redeliverOrderEventsUpdate,
  redeliverOrderUpdate,
  type OrderEventsState,
} from '../shared/order-events';

/** The custom field that carries the order id when none is configured. */

/** Bad input: nothing was started, nothing was sent. `issues` name the fields. */
export class BookingInputError extends Error {
  constructor(
    readonly issues: readonly FieldIssue[],
    what = 'booking input',
  ) {
    super(`Invalid ${what}: ${issues.map((i) => `${i.field}: ${i.message}`).join('; ')}`);
    this.name = 'BookingInputError';
  }
}

/** A cancellation (or `keep`) the order refused, e.g. after free cancellation ended. */
export class CancellationRefusedError extends Error {
  constructor(
    readonly orderId: string,
    /** `PENALTY`, `CHECK_IN_PASSED`, `ENDED`, `KEEP_REFUSED`. */
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'CancellationRefusedError';
  }
}

export interface CancelOrderOptions {
  readonly reason?: string;
  /** Cancel even after the free-cancellation deadline (the penalty is accepted). @default false */
  readonly acceptPenalty?: boolean;
}

export type OrderCancellation =
  /** The order's workflow accepted the request; the state says how far it got. */
  | { readonly kind: 'requested'; readonly state: OrderState }
  /** Nothing to cancel: already cancelled, never booked, or the stay is over. */
  | { readonly kind: 'nothing-to-cancel'; readonly state: OrderState };

/** The workflow type a client starts: `bookRoom`, or its earlier name (the same code). */
export type BookingWorkflow = typeof BOOK_ROOM_WORKFLOW | typeof BOOK_ROOM_AND_GUARD_WORKFLOW;

/**
 * How long `startBooking` waits for a worker to take the `outcome` update sent with the start (its
 * first workflow task) before it returns anyway: the start is durable, and `result` asks again.
 */
const OUTCOME_ACCEPT_WAIT_MS = 10_000;
/** How far this machine's clock may be behind the server's when a start's own run is told apart. */
const START_CLOCK_MARGIN_MS = 5_000;
/** How many started bookings' `outcome` update ids a client keeps for `result` (oldest dropped). */
const SENT_OUTCOMES_KEPT = 10_000;

/** An `outcome` update a start sent, and the run that took it (unknown if none took it in time). */
interface SentOutcome {
  readonly updateId: string;
  readonly runId?: string;
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

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

/** The order's last state, once its workflow has closed. */
function closedOrderState(orderId: string, result: OrderResult): OrderState {
  if (result.guard) return { ...result.guard.state, open: false };
  return {
    orderId,
    phase: result.outcome,
    truth: truthOf(result.outcome, false),
    holder: 'bookRoom',
    workflowId: bookingWorkflowId(orderId),
    open: false,
    outcome: result.outcome,
    cancelRequested: result.cancellation !== undefined,
    ...(result.bookingId !== undefined ? { bookingId: result.bookingId } : {}),
    ...(result.supplierStatus !== undefined ? { supplierStatus: result.supplierStatus } : {}),
    ...(result.price !== undefined ? { price: result.price } : {}),
    ...(result.error !== undefined ? { lastError: { ...result.error, at: '' } } : {}),
  };
}

/** An update the order refused, as the error that names why. */
function refusal(orderId: string, err: WorkflowUpdateFailedError): CancellationRefusedError {
  const cause = err.cause as { type?: string; message?: string } | undefined;
  return new CancellationRefusedError(
    orderId,
    cause?.type ?? 'REFUSED',
    cause?.message ?? err.message,
  );
}

export interface BookingClientOptions {
  readonly client: Client;
  /** The workflow type to start; both names run the one order workflow. @default 'bookRoom' */
  readonly workflow?: BookingWorkflow;
  /** @default 'hotel-booking' */
  readonly taskQueue?: string;
  /**
   * The custom field reserved for the order id (`BOOKING_ORDER_ID_FIELD`). Every start carries it
   * in the input (`orderIdField`), and the worker books with it. @default DEFAULT_ORDER_ID_FIELD
   */
  readonly orderIdField?: string;
}

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

/**
 * Validates a `bookRoom` input (JSON `null` in an optional field counts as absent) and returns it
 * as the workflow will read it, carrying the order-id field it was validated against
 * (`input.orderIdField`, else `orderIdField`), so the worker books with that same field.
 * Throws {@link BookingInputError} naming every bad field.
 */
export function validateBookRoomInput(
  input: unknown,
  orderIdField = DEFAULT_ORDER_ID_FIELD,
): BookRoomParams {
  const parsed = BookRoomInputSchema.safeParse(input);
  if (parsed.success) {
    const issues = bookRoomInputRuleIssues(parsed.data, orderIdField);
    if (issues.length > 0) throw new BookingInputError(issues);
    return { ...parsed.data, orderIdField: parsed.data.orderIdField ?? orderIdField };
  }
  const issues = toFieldIssues(parsed.error);
  const raw = input as { customFields?: unknown; orderIdField?: unknown } | null | undefined;
  const field = typeof raw?.orderIdField === 'string' ? raw.orderIdField : orderIdField;
  const fields = raw?.customFields;
  if (fields && typeof fields === 'object' && field in fields) {
    issues.push({
      field: `customFields.${field}`,
      message: 'reserved: the order id travels to the supplier in this field',
    });
  }
  throw new BookingInputError(issues);
}

export class BookingClient {
  readonly client: Client;
  readonly taskQueue: string;
  readonly orderIdField: string;
  readonly workflow: BookingWorkflow;
  /**
   * The `outcome` update each start of this client sent, by workflow id, with the run that took it
   * when known, until `result` takes it.
   */
  private readonly sentOutcomes = new Map<string, SentOutcome>();

  constructor(options: BookingClientOptions) {
    this.client = options.client;
    this.workflow = options.workflow ?? BOOK_ROOM_WORKFLOW;
    this.taskQueue = options.taskQueue ?? DEFAULT_TASK_QUEUE;
    this.orderIdField = options.orderIdField ?? DEFAULT_ORDER_ID_FIELD;
  }

  /**
   * Starts the order's workflow (`booking-<orderId>`) with its `outcome` update, once per order: a
   * running workflow is reused and a finished one is reported, never restarted (so never a second
   * supplier booking). The workflow receives the validated input: nulls removed, defaults applied,
   * `orderIdField` set.
   */
  async startBooking(input: BookRoomInput): Promise<StartedBooking> {
    const valid = validateBookRoomInput(input, this.orderIdField);
    const workflowId = bookingWorkflowId(valid.orderId);
    const options = {
      taskQueue: this.taskQueue,
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
      const description = await this.client.workflow.getHandle(workflowId).describe();
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
    const start = new WithStartWorkflowOperation(this.workflow, options);
    // Its own id: a second caller's update with the same id would be taken as this one's retry,
    // and its start reported as this one (the server answers a known update id before the policy).
    const updateId = `${OUTCOME_UPDATE_ID}-${randomUUID()}`;
    const sentAt = Date.now();
    const sent = this.client.connection.withDeadline(Date.now() + OUTCOME_ACCEPT_WAIT_MS, () =>
      this.client.workflow.startUpdateWithStart(outcomeUpdate, {
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
      const run = await describeIfExists(this.client.workflow.getHandle(options.workflowId));
      if (!run || run.type !== this.workflow) throw err;
      if (run.startTime.getTime() < sentAt - START_CLOCK_MARGIN_MS)
        throw new WorkflowExecutionAlreadyStartedError(
          'Workflow execution already started',
          options.workflowId,
          this.workflow,
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

  /** The workflow handle of an order's booking. */
  handle(orderId: string): WorkflowHandle {
    return this.client.workflow.getHandle(bookingWorkflowId(orderId));
  }

  private rememberOutcome(workflowId: string, sent: SentOutcome): void {
    this.sentOutcomes.set(workflowId, sent);
    if (this.sentOutcomes.size > SENT_OUTCOMES_KEPT)
      this.sentOutcomes.delete(this.sentOutcomes.keys().next().value!);
  }

  /**
   * Waits for the booking's decision (however it ended): the `outcome` update while the workflow
   * runs (it may live on as the order's guard), the workflow's result once it has closed.
   */
  async result(orderId: string): Promise<BookRoomResult> {
    const handle = this.handle(orderId);
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

  /** The order's live state (the `bookingState` query): its workflow must be running. */
  async bookingState(orderId: string): Promise<OrderState> {
    return this.handle(orderId).query(bookingStateQuery);
  }

  /**
   * The order's one current truth, in every phase: the live state while its workflow runs, the
   * last one once it has closed (check-out, cancelled, or decided without a guard).
   */
  async state(orderId: string): Promise<OrderState> {
    const handle = this.handle(orderId);
    if ((await handle.describe()).status.name === 'RUNNING') return handle.query(bookingStateQuery);
    const result = (await handle.result()) as OrderResult;
    const earlier = handedToGuardOfItsOwn(result)
      ? await guardOfEarlierVersion(this.client, orderId)
      : undefined;
    return earlier ? earlier.state() : closedOrderState(orderId, result);
  }

  /**
   * Cancels the order by its id, in whatever phase, any time before check-in, open or closed: one
   * `cancel` update sent with a start of the order id alone (update-with-start, `USE_EXISTING`).
   * A running workflow takes it; a closed order is reached by a new run that books nothing and
   * cancels a supplier booking the order still holds (its guard was off, or it never confirmed).
   * After the free-cancellation deadline only with `acceptPenalty: true`; a refusal is a
   * {@link CancellationRefusedError} naming why. Resolves once the request is accepted; the state
   * says how far it got (`CANCELLING`, then `CANCELLED` or `CANCELLATION_PENDING`).
   */
  async cancelOrder(orderId: string, options: CancelOrderOptions = {}): Promise<OrderCancellation> {
    const request = {
      ...(options.reason !== undefined ? { reason: options.reason } : {}),
      ...(options.acceptPenalty ? { acceptPenalty: true } : {}),
    };
    let state: OrderState;
    try {
      state = await this.client.workflow.executeUpdateWithStart(cancelUpdate, {
        args: [request],
        startWorkflowOperation: this.reachOrder(orderId),
      });
    } catch (err) {
      if (!(err instanceof WorkflowUpdateFailedError)) throw err;
      const cause = err.cause as { type?: string } | undefined;
      if (cause?.type !== 'NOTHING_TO_CANCEL') throw refusal(orderId, err);
      // An earlier version's order may be held by a guard of its own: it is cancelled there.
      const earlier = await guardOfEarlierVersion(this.client, orderId);
      const there = await earlier?.cancel(request).catch((e: unknown) => {
        throw e instanceof WorkflowUpdateFailedError ? refusal(orderId, e) : e;
      });
      if (there) return { kind: 'requested', state: there };
      return { kind: 'nothing-to-cancel', state: await this.state(orderId) };
    }
    return state.open ? { kind: 'requested', state } : { kind: 'nothing-to-cancel', state };
  }

  /**
   * The start that reaches an order without booking: `bookRoom` with the order id alone. Taken by
   * the running workflow when there is one (`USE_EXISTING`), else a run that answers the order's
   * decision (`ALLOW_DUPLICATE`).
   */
  private reachOrder(orderId: string) {
    return new WithStartWorkflowOperation(this.workflow, {
      taskQueue: this.taskQueue,
      workflowId: bookingWorkflowId(orderId),
      args: [{ orderId }],
      workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
      workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
      typedSearchAttributes: [{ key: OrderIdKey, value: orderId }],
      staticSummary: `Reach order ${orderId} (books nothing)`,
    });
  }

  /**
   * Waits until the order's cancellation is no longer in flight and returns the state
   * (`CANCELLED`, `CANCELLATION_PENDING`, or the decision the order ended with).
   */
  async cancellationSettled(orderId: string, pollMs = 500): Promise<OrderState> {
    for (;;) {
      const st = await this.state(orderId);
      if (st.phase !== 'CANCELLING' && !(st.holder === 'bookRoom' && st.open && st.cancelRequested))
        return st;
      await pause(pollMs);
    }
  }

  /** A provisional order is confirmed by the order system: `autoCancelBeforePenalty` will not run. */
  async keep(orderId: string, reason?: string): Promise<OrderState> {
    try {
      return await this.handle(orderId).executeUpdate(keepUpdate, {
        args: [reason ? { reason } : {}],
      });
    } catch (err) {
      if (err instanceof WorkflowUpdateFailedError) {
        const cause = err.cause as { message?: string } | undefined;
        throw new CancellationRefusedError(orderId, 'KEEP_REFUSED', cause?.message ?? err.message);
      }
      throw err;
    }
  }

  /** Approves or rejects a price or policy change that awaits a decision. */
  async approvePriceChange(orderId: string, approve: boolean): Promise<OrderState> {
    return this.handle(orderId).executeUpdate(approvePriceChangeUpdate, { args: [{ approve }] });
  }

  /** Resolves a booking waiting in `NEEDS_RECONCILIATION`. */
  async resolveReconciliation(
    orderId: string,
    resolution: ResolveReconciliation,
  ): Promise<OrderState> {
    const parsed = ResolveReconciliationSchema.safeParse(resolution);
    if (!parsed.success) throw new BookingInputError(toFieldIssues(parsed.error), 'resolution');
    return this.handle(orderId).executeUpdate(resolveReconciliationUpdate, { args: [parsed.data] });
  }

  /**
   * Orders whose events the order system has not taken (failing, or parked undelivered): those
   * the endpoint's delivery holds, and those in delivery workflows of their own.
   */
  async *failingOrderEvents(): AsyncIterable<OrderEventsState> {
    // This deployment's orders: the task queue separates deployments sharing one namespace.
    const query = `${ORDER_EVENTS_FAILING_QUERY} AND TaskQueue = '${orderEventsTaskQueue(this.taskQueue).replaceAll("'", "\\'")}'`;
    for await (const wf of this.client.workflow.list({ query: inEveryDivision(query) })) {
      const handle = this.client.workflow.getHandle(wf.workflowId);
      if (wf.type !== DELIVER_TO_ENDPOINT_WORKFLOW) {
        yield await handle.query(orderEventsStateQuery);
        continue;
      }
      const { orders } = await handle.query(endpointEventsStateQuery);
      yield* orders.filter((o) => o.mark !== DeliveryMark.DELIVERED);
    }
  }

  /**
   * Retries the order's undelivered events now (after the order system's endpoint recovered), in
   * the delivery that holds them. None does: `WorkflowNotFoundError`.
   */
  async redeliverOrderEvents(orderId: string): Promise<OrderEventsState> {
    try {
      return await this.client.workflow
        .getHandle(orderEventsWorkflowId(orderId))
        .executeUpdate(redeliverOrderEventsUpdate);
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError)) throw err;
    }
    const endpointId = endpointDeliveryWorkflowId(this.taskQueue);
    try {
      return await this.client.workflow
        .getHandle(endpointId)
        .executeUpdate(redeliverOrderUpdate, { args: [orderId] });
    } catch (err) {
      // Refused by its validator: the endpoint's delivery does not hold the order.
      if (!(err instanceof WorkflowUpdateFailedError)) throw err;
      throw new WorkflowNotFoundError(
        `order ${orderId} has no events waiting in a delivery`,
        endpointId,
        undefined,
      );
    }
  }

  /**
   * Starts `cancelBooking` for a supplier booking id. A cancellation already running is reused;
   * one that finished may run again (cancelling twice is harmless).
   */
  async startCancellation(input: CancelBookingInput): Promise<WorkflowHandle> {
    const parsed = CancelBookingInputSchema.safeParse(input);
    if (!parsed.success)
      throw new BookingInputError(toFieldIssues(parsed.error), 'cancellation input');
    return this.client.workflow.start(CANCEL_BOOKING_WORKFLOW, {
      taskQueue: this.taskQueue,
      workflowId: cancellationWorkflowId(input.bookingId),
      args: [input],
      workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
      workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
      typedSearchAttributes: [
        { key: SupplierBookingIdKey, value: input.bookingId },
        ...(input.orderId ? [{ key: OrderIdKey, value: input.orderId }] : []),
      ],
      staticSummary: `Cancel supplier booking ${input.bookingId}${input.orderId ? ` (order ${input.orderId})` : ''}`,
    });
  }

  /** Cancels a supplier booking by id and waits for the outcome. */
  async cancelByBookingId(input: CancelBookingInput): Promise<CancelBookingResult> {
    return (await (await this.startCancellation(input)).result()) as CancelBookingResult;
  }

  /**
   * Bookings matching a visibility query, e.g. `BookingPhase = 'NEEDS_RECONCILIATION'`, whatever
   * their namespace division (a starter of any SDK may set one: Temporal's default filter would
   * leave them out).
   */
  async *list(
    query: string,
  ): AsyncIterable<{ workflowId: string; status: string; phase?: string; bookingId?: number }> {
    for await (const wf of this.client.workflow.list({ query: inEveryDivision(query) })) {
      const phase = wf.typedSearchAttributes.get(BookingPhaseKey);
      const bookingId = wf.typedSearchAttributes.get(SupplierBookingIdKey);
      yield {
        workflowId: wf.workflowId,
        status: wf.status.name,
        ...(phase !== undefined ? { phase } : {}),
        ...(bookingId !== undefined ? { bookingId } : {}),
      };
    }
  }
}

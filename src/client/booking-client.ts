/**
 * The typed client for upstream order systems: start a booking (idempotent per order), await it,
 * read its state, approve, cancel, resolve, and cancel a supplier booking by id. Input is
 * validated with zod before anything starts; a bad input throws {@link BookingInputError} naming
 * the fields, and nothing is started or sent.
 */
import {
  WorkflowExecutionAlreadyStartedError,
  WorkflowIdConflictPolicy,
  WorkflowIdReusePolicy,
  type Client,
  type WorkflowHandle,
} from '@temporalio/client';
import {
  BOOK_ROOM_WORKFLOW,
  BookRoomInputSchema,
  BookingPhase,
  CANCEL_BOOKING_WORKFLOW,
  CancelBookingInputSchema,
  ResolveReconciliationSchema,
  bookingWorkflowId,
  cancellationWorkflowId,
  toFieldIssues,
  bookRoomInputRuleIssues,
  type BookRoomInput,
  type BookRoomParams,
  type BookRoomResult,
  type BookingState,
  type CancelBookingInput,
  type CancelBookingResult,
  type FieldIssue,
  type ResolveReconciliation,
} from '../shared/booking-contract';
import {
  approvePriceChangeUpdate,
  bookingStateQuery,
  cancelUpdate,
  resolveReconciliationUpdate,
} from '../shared/booking-messages';
import {
  BookingPhaseKey,
  CheckInDateKey,
  OrderIdKey,
  SupplierBookingIdKey,
} from '../shared/search-attributes';
import { DEFAULT_TASK_QUEUE } from '../shared/task-queue';

/** The custom field that carries the order id when none is configured. */
const DEFAULT_ORDER_ID_FIELD = 'custom_field_10';

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

export interface BookingClientOptions {
  readonly client: Client;
  /** @default 'hotel-booking' */
  readonly taskQueue?: string;
  /**
   * The custom field reserved for the order id (`BOOKING_ORDER_ID_FIELD`). Every start carries it
   * in the input (`orderIdField`), and the worker books with it. @default 'custom_field_10'
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

  constructor(options: BookingClientOptions) {
    this.client = options.client;
    this.taskQueue = options.taskQueue ?? DEFAULT_TASK_QUEUE;
    this.orderIdField = options.orderIdField ?? DEFAULT_ORDER_ID_FIELD;
  }

  /**
   * Starts `bookRoom` for `input.orderId`, once per order: a running workflow is reused and a
   * finished one is reported, never restarted (so never a second supplier booking). The workflow
   * receives the validated input: nulls removed, defaults applied, `orderIdField` set.
   */
  async startBooking(input: BookRoomInput): Promise<StartedBooking> {
    const valid = validateBookRoomInput(input, this.orderIdField);
    const workflowId = bookingWorkflowId(valid.orderId);
    try {
      const handle = await this.client.workflow.start(BOOK_ROOM_WORKFLOW, {
        taskQueue: this.taskQueue,
        workflowId,
        args: [valid],
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
      });
      return {
        orderId: valid.orderId,
        workflowId,
        runId: handle.firstExecutionRunId,
        status: 'STARTED',
      };
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
      const description = await this.client.workflow.getHandle(workflowId).describe();
      return {
        orderId: valid.orderId,
        workflowId,
        runId: description.runId,
        status: description.status.name === 'RUNNING' ? 'ALREADY_RUNNING' : 'ALREADY_FINISHED',
      };
    }
  }

  /** The workflow handle of an order's booking. */
  handle(orderId: string): WorkflowHandle {
    return this.client.workflow.getHandle(bookingWorkflowId(orderId));
  }

  /** Waits for the booking's result (however it ended). */
  async result(orderId: string): Promise<BookRoomResult> {
    return (await this.handle(orderId).result()) as BookRoomResult;
  }

  /** The live state: phase, supplier status, booking id, price, last error. */
  async state(orderId: string): Promise<BookingState> {
    return this.handle(orderId).query(bookingStateQuery);
  }

  /** Approves or rejects a price or policy change that awaits a decision. */
  async approvePriceChange(orderId: string, approve: boolean): Promise<BookingState> {
    return this.handle(orderId).executeUpdate(approvePriceChangeUpdate, { args: [{ approve }] });
  }

  /** Requests cancellation, in any phase; resolves once the workflow accepted it. */
  async cancel(orderId: string, reason?: string): Promise<BookingState> {
    return this.handle(orderId).executeUpdate(cancelUpdate, { args: [reason ? { reason } : {}] });
  }

  /** Resolves a booking waiting in `NEEDS_RECONCILIATION`. */
  async resolveReconciliation(
    orderId: string,
    resolution: ResolveReconciliation,
  ): Promise<BookingState> {
    const parsed = ResolveReconciliationSchema.safeParse(resolution);
    if (!parsed.success) throw new BookingInputError(toFieldIssues(parsed.error), 'resolution');
    return this.handle(orderId).executeUpdate(resolveReconciliationUpdate, { args: [parsed.data] });
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

  /** Bookings matching a visibility query, e.g. `BookingPhase = 'NEEDS_RECONCILIATION'`. */
  async *list(
    query: string,
  ): AsyncIterable<{ workflowId: string; status: string; phase?: string; bookingId?: number }> {
    for await (const wf of this.client.workflow.list({ query })) {
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

/**
 * The typed client for upstream order systems: start a booking (idempotent per order), await it,
 * read its state, approve, cancel, resolve, and cancel a supplier booking by id. A bad input
 * throws {@link BookingInputError} naming the fields, and nothing is started or sent. One facade
 * over a class per larger concern (order-decisions, order-state, order-cancellation,
 * order-events-admin).
 */
import {
  WorkflowIdConflictPolicy,
  WorkflowIdReusePolicy,
  type Client,
  type WorkflowHandle,
} from '@temporalio/client';
import {
  BOOK_ROOM_WORKFLOW,
  CANCEL_BOOKING_WORKFLOW,
  cancellationWorkflowId,
  type BookRoomInput,
  type BookRoomResult,
  type CancelBookingInput,
  type CancelBookingResult,
  type ResolveReconciliation,
} from '../shared/booking-contract';
import { approvePriceChangeUpdate, resolveReconciliationUpdate } from '../shared/booking-messages';
import type { OrderState } from '../shared/guard-contract';
import { OrderIdKey, SupplierAccountKey, SupplierBookingIdKey } from '../shared/search-attributes';
import type { OrderEventsState } from '../order-events/contract/delivery';
import { DEFAULT_ORDER_ID_FIELD, DEFAULT_TASK_QUEUE } from '../config/defaults';
import { BookingInputError, CancellationRefusedError } from './booking-errors';
import { checkCancelBookingInput, validResolution } from './booking-input';
import {
  orderHandle,
  type BookingClientOptions,
  type BookingClientSettings,
  type BookingWorkflow,
} from './booking-client-options';
import { OrderDecisions, type StartedBooking } from './order-decisions';
import { liveOrderState, listBookings, orderState } from './order-state';
import {
  OrderCancellations,
  type CancelOrderOptions,
  type OrderCancellation,
} from './order-cancellation';
import { inTodaysWords } from './earlier-versions';
import { OrderEventsAdmin } from './order-events-admin';

export { BookingInputError, CancellationRefusedError };
export { validateBookRoomInput } from './booking-input';
export type { BookingClientOptions, BookingWorkflow } from './booking-client-options';
export type { StartStatus, StartedBooking } from './order-decisions';
export type { CancelOrderOptions, OrderCancellation } from './order-cancellation';

export class BookingClient implements BookingClientSettings {
  readonly client: Client;
  readonly taskQueue: string;
  readonly orderIdField: string;
  readonly workflow: BookingWorkflow;
  // Each part keeps the facade as its settings, read when it is called.
  private readonly decisions = new OrderDecisions(this);
  private readonly cancellations = new OrderCancellations(this);
  private readonly orderEvents = new OrderEventsAdmin(this);

  constructor(options: BookingClientOptions) {
    this.client = options.client;
    this.workflow = options.workflow ?? BOOK_ROOM_WORKFLOW;
    this.taskQueue = options.taskQueue ?? DEFAULT_TASK_QUEUE;
    this.orderIdField = options.orderIdField ?? DEFAULT_ORDER_ID_FIELD;
  }

  /**
   * Starts the order's workflow (`booking-<orderId>`) with its `outcome` update, once per order: a
   * running or finished one is reported, never restarted (so never a second supplier booking).
   * The workflow receives the validated input: nulls removed, defaults applied, `orderIdField` set.
   */
  startBooking(input: BookRoomInput): Promise<StartedBooking> {
    return this.decisions.startBooking(input);
  }

  /** The workflow handle of an order's booking. */
  handle(orderId: string): WorkflowHandle {
    return orderHandle(this.client, orderId);
  }

  /**
   * Waits for the booking's decision: the `outcome` update while the workflow runs (it may live on
   * as the order's guard), its result once closed. Given what `startBooking` returned, it waits
   * for that start's update without reading the run first.
   */
  result(order: string | StartedBooking): Promise<BookRoomResult> {
    return this.decisions.result(order);
  }

  /** The order's live state (the `bookingState` query): its workflow must be running. */
  bookingState(orderId: string): Promise<OrderState> {
    return liveOrderState(this.client, orderId);
  }

  /**
   * The order's one current truth, in every phase: the live state while its workflow runs, the
   * last one once it has closed (check-out, cancelled, or decided without a guard).
   */
  state(orderId: string): Promise<OrderState> {
    return orderState(this.client, orderId);
  }

  /**
   * Cancels the order by its id, in any phase before check-in, open or closed: a `cancel` update
   * with a start of the order id alone (update-with-start, `USE_EXISTING`), so a closed order is
   * reached by a new run that books nothing. After the free-cancellation deadline only with
   * `acceptPenalty: true`; a refusal is a {@link CancellationRefusedError} naming why. Resolves
   * once accepted; the state says how far it got (`CANCELLING`, `CANCELLED`,
   * `CANCELLATION_PENDING`).
   */
  cancelOrder(orderId: string, options: CancelOrderOptions = {}): Promise<OrderCancellation> {
    return this.cancellations.cancelOrder(orderId, options);
  }

  /**
   * Waits until the order's cancellation is no longer in flight and returns the state
   * (`CANCELLED`, `CANCELLATION_PENDING`, or the decision the order ended with).
   */
  cancellationSettled(orderId: string, pollMs = 500): Promise<OrderState> {
    return this.cancellations.cancellationSettled(orderId, pollMs);
  }

  /** A provisional order is confirmed by the order system: `autoCancelBeforePenalty` will not run. */
  keep(orderId: string, reason?: string): Promise<OrderState> {
    return this.cancellations.keep(orderId, reason);
  }

  /** Approves or rejects a price or policy change that awaits a decision. */
  async approvePriceChange(orderId: string, approve: boolean): Promise<OrderState> {
    const handle = this.handle(orderId);
    return inTodaysWords(
      await handle.executeUpdate(approvePriceChangeUpdate, { args: [{ approve }] }),
    );
  }

  /** Resolves a booking waiting in `NEEDS_RECONCILIATION`. */
  async resolveReconciliation(
    orderId: string,
    resolution: ResolveReconciliation,
  ): Promise<OrderState> {
    const valid = validResolution(resolution);
    const handle = this.handle(orderId);
    return inTodaysWords(
      await handle.executeUpdate(resolveReconciliationUpdate, { args: [valid] }),
    );
  }

  /** Orders whose events the order system has not taken (failing, or parked undelivered). */
  failingOrderEvents(): AsyncIterable<OrderEventsState> {
    return this.orderEvents.failingOrderEvents();
  }

  /**
   * Retries the order's undelivered events now (after the order system's endpoint recovered), in
   * the delivery that holds them. None does: `WorkflowNotFoundError`.
   */
  redeliverOrderEvents(orderId: string): Promise<OrderEventsState> {
    return this.orderEvents.redeliverOrderEvents(orderId);
  }

  /**
   * Starts `cancelBooking` for a supplier booking id. A cancellation already running is reused;
   * one that finished may run again (cancelling twice is harmless).
   */
  async startCancellation(input: CancelBookingInput): Promise<WorkflowHandle> {
    checkCancelBookingInput(input);
    return this.client.workflow.start(CANCEL_BOOKING_WORKFLOW, {
      taskQueue: this.taskQueue,
      workflowId: cancellationWorkflowId(input.bookingId, input.supplier ?? undefined),
      args: [input],
      workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
      workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
      typedSearchAttributes: [
        { key: SupplierBookingIdKey, value: input.bookingId },
        ...(input.orderId ? [{ key: OrderIdKey, value: input.orderId }] : []),
        ...(input.supplier ? [{ key: SupplierAccountKey, value: input.supplier }] : []),
      ],
      staticSummary: `Cancel supplier booking ${input.bookingId}${input.orderId ? ` (order ${input.orderId})` : ''}`,
    });
  }

  /** Cancels a supplier booking by id and waits for the outcome. */
  async cancelByBookingId(input: CancelBookingInput): Promise<CancelBookingResult> {
    return (await (await this.startCancellation(input)).result()) as CancelBookingResult;
  }

  /**
   * Bookings matching a visibility query, e.g. `BookingPhase = 'NEEDS_RECONCILIATION'`, in every
   * namespace division (Temporal's default filter would leave out those a starter set one for).
   */
  list(
    query: string,
  ): AsyncIterable<{ workflowId: string; status: string; phase?: string; bookingId?: number }> {
    return listBookings(this.client, query);
  }
}

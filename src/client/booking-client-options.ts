/** What a booking client is made with, and what each of its parts works with. */
import {
  WorkflowNotFoundError,
  type Client,
  type WorkflowExecutionDescription,
  type WorkflowHandle,
} from '@temporalio/client';
import {
  bookingWorkflowId,
  type BOOK_ROOM_AND_GUARD_WORKFLOW,
  type BOOK_ROOM_WORKFLOW,
} from '../shared/booking-contract';

/** The workflow type a client starts: `bookRoom`, or its earlier name (the same code). */
export type BookingWorkflow = typeof BOOK_ROOM_WORKFLOW | typeof BOOK_ROOM_AND_GUARD_WORKFLOW;

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

/** {@link BookingClientOptions} with the defaults applied: what every part of the client reads. */
export type BookingClientSettings = Required<BookingClientOptions>;

/** The workflow handle of an order's booking. */
export function orderHandle(client: Client, orderId: string): WorkflowHandle {
  return client.workflow.getHandle(bookingWorkflowId(orderId));
}

/** The workflow's description, or undefined when there is no such workflow. */
export async function describeIfExists(
  handle: WorkflowHandle,
): Promise<WorkflowExecutionDescription | undefined> {
  try {
    return await handle.describe();
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return undefined;
    throw err;
  }
}

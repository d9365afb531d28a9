/** Cancelling a supplier booking by its id (`cancelBooking`), apart from any order's workflow. */
import {
  WorkflowIdConflictPolicy,
  WorkflowIdReusePolicy,
  type WorkflowHandle,
} from '@temporalio/client';
import {
  CANCEL_BOOKING_WORKFLOW,
  cancellationWorkflowId,
  type CancelBookingInput,
  type CancelBookingResult,
} from '../shared/booking-contract';
import { OrderIdKey, SupplierAccountKey, SupplierBookingIdKey } from '../shared/search-attributes';
import { checkCancelBookingInput } from './booking-input';
import type { BookingClientSettings } from './booking-client-options';

/** `BookingClient`'s `startCancellation` and `cancelByBookingId`. */
export class SupplierCancellations {
  constructor(private readonly settings: BookingClientSettings) {}

  async startCancellation(input: CancelBookingInput): Promise<WorkflowHandle> {
    checkCancelBookingInput(input);
    return this.settings.client.workflow.start(CANCEL_BOOKING_WORKFLOW, {
      taskQueue: this.settings.taskQueue,
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

  async cancelByBookingId(input: CancelBookingInput): Promise<CancelBookingResult> {
    return (await (await this.startCancellation(input)).result()) as CancelBookingResult;
  }
}

/** One order's truth in every phase (live while its workflow runs, else its last), and lists. */
import type { Client } from '@temporalio/client';
import { bookingWorkflowId, type OrderResult } from '../shared/booking-contract';
import { bookingStateQuery } from '../shared/booking-messages';
import { defined } from '../shared/defined';
import type { OrderState } from '../shared/guard-contract';
import { truthOf } from '../shared/order-truth';
import {
  BookingPhaseKey,
  inEveryDivision,
  SupplierBookingIdKey,
} from '../shared/search-attributes';
import { guardOfEarlierVersion, handedToGuardOfItsOwn, inTodaysWords } from './earlier-versions';
import { orderHandle } from './booking-client-options';

/** The order's last state, once its workflow has closed. */
function closedOrderState(orderId: string, result: OrderResult): OrderState {
  if (result.guard) return inTodaysWords({ ...result.guard.state, open: false });
  return {
    orderId,
    phase: result.outcome,
    truth: truthOf(result.outcome, false),
    holder: 'booking',
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

/** `BookingClient`'s `bookingState`. */
export async function liveOrderState(client: Client, orderId: string): Promise<OrderState> {
  return inTodaysWords(await orderHandle(client, orderId).query(bookingStateQuery));
}

/** `BookingClient`'s `state`. */
export async function orderState(client: Client, orderId: string): Promise<OrderState> {
  const handle = orderHandle(client, orderId);
  if ((await handle.describe()).status.name === 'RUNNING')
    return inTodaysWords(await handle.query(bookingStateQuery));
  const result = (await handle.result()) as OrderResult;
  const earlier = handedToGuardOfItsOwn(result)
    ? await guardOfEarlierVersion(client, orderId)
    : undefined;
  return earlier ? earlier.state() : closedOrderState(orderId, result);
}

/** `BookingClient`'s `list`. */
export async function* listBookings(
  client: Client,
  query: string,
): AsyncIterable<{ workflowId: string; status: string; phase?: string; bookingId?: number }> {
  for await (const wf of client.workflow.list({ query: inEveryDivision(query) })) {
    yield defined({
      workflowId: wf.workflowId,
      status: wf.status.name,
      phase: wf.typedSearchAttributes.get(BookingPhaseKey),
      bookingId: wf.typedSearchAttributes.get(SupplierBookingIdKey),
    });
  }
}

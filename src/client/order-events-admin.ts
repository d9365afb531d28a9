/** Orders whose events the order system has not taken, redelivered (docs/order-events.md). */
import { WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import {
  DELIVER_TO_ENDPOINT_WORKFLOW,
  DeliveryMark,
  endpointDeliveryWorkflowId,
  endpointEventsStateQuery,
  earlierOrderEventsWorkflowId,
  ORDER_EVENTS_FAILING_QUERY,
  orderEventsStateQuery,
  orderEventsTaskQueue,
  orderEventsWorkflowId,
  redeliverOrderEventsUpdate,
  redeliverOrderUpdate,
  type OrderEventsState,
} from '../order-events/contract/delivery';
import { inEveryDivision } from '../shared/search-attributes';
import type { BookingClientSettings } from './booking-client-options';

/** `BookingClient`'s `failingOrderEvents` and `redeliverOrderEvents`. */
export class OrderEventsAdmin {
  constructor(private readonly settings: BookingClientSettings) {}

  async *failingOrderEvents(): AsyncIterable<OrderEventsState> {
    const { client, taskQueue } = this.settings;
    // This deployment's orders: the task queue separates deployments sharing one namespace.
    const query = `${ORDER_EVENTS_FAILING_QUERY} AND TaskQueue = '${orderEventsTaskQueue(taskQueue).replaceAll("'", "\\'")}'`;
    for await (const wf of client.workflow.list({ query: inEveryDivision(query) })) {
      const handle = client.workflow.getHandle(wf.workflowId);
      if (wf.type !== DELIVER_TO_ENDPOINT_WORKFLOW) {
        yield await handle.query(orderEventsStateQuery);
        continue;
      }
      const { orders } = await handle.query(endpointEventsStateQuery);
      yield* orders.filter((o) => o.mark !== DeliveryMark.DELIVERED);
    }
  }

  async redeliverOrderEvents(orderId: string): Promise<OrderEventsState> {
    const { client, taskQueue } = this.settings;
    // The order's overflow, under today's id or an earlier version's (docs/earlier-versions.md).
    for (const id of [orderEventsWorkflowId(orderId), earlierOrderEventsWorkflowId(orderId)]) {
      try {
        return await client.workflow.getHandle(id).executeUpdate(redeliverOrderEventsUpdate);
      } catch (err) {
        if (!(err instanceof WorkflowNotFoundError)) throw err;
      }
    }
    const endpointId = endpointDeliveryWorkflowId(taskQueue);
    try {
      return await client.workflow
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
}

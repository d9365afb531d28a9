/**
 * The overflow's activities (../README.md). Workflows an earlier version started under the id
 * before (`earlierOrderEventsWorkflowId`, src/shared/compatibility.ts) are still reached, first.
 */
import { Context } from '@temporalio/activity';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import {
  DeliveryMark,
  earlierOrderEventsWorkflowId,
  orderEventSignal,
  orderEventsWorkflowId,
  OVERFLOW_WORKFLOW,
} from '../contract/delivery';
import type { OrderEvent } from '../contract/event';
import { OrderEventsDeliveryKey, OrderIdKey } from '../../shared/search-attributes';
import { logAnswer, posterOf, type Poster } from './post';

/** Queues `event` in its order's running overflow workflow (earlier id first); false when none runs. */
export async function queueInOverflow(
  client: Client,
  event: OrderEvent,
  ids = [earlierOrderEventsWorkflowId, orderEventsWorkflowId],
): Promise<boolean> {
  for (const id of ids) {
    try {
      await client.workflow.getHandle(id(event.data.orderId)).signal(orderEventSignal, event);
      return true;
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError)) throw err;
    }
  }
  return false;
}

/** `handOverToOrderWorkflows`: each event to its order's overflow workflow, in order. */
export async function spillToOverflow(events: readonly OrderEvent[]): Promise<void> {
  const { client, info } = Context.current();
  await spill(client, info.taskQueue, events);
}

/** Spills `events` to their orders' overflow workflows (started on `taskQueue` when none runs). */
export async function spill(
  client: Client,
  taskQueue: string,
  events: readonly OrderEvent[],
): Promise<void> {
  for (const event of events) {
    if (await queueInOverflow(client, event, [earlierOrderEventsWorkflowId])) continue;
    const orderId = event.data.orderId;
    await client.workflow.signalWithStart(OVERFLOW_WORKFLOW, {
      workflowId: orderEventsWorkflowId(orderId),
      taskQueue,
      args: [{ orderId }],
      signal: orderEventSignal,
      signalArgs: [event],
      typedSearchAttributes: [
        { key: OrderIdKey, value: orderId },
        { key: OrderEventsDeliveryKey, value: DeliveryMark.DELIVERED },
      ],
    });
  }
}

/** `deliverOrderEvent`, an overflow workflow's POST: any answer but 2xx fails the attempt. */
export function overflowDelivery(post: Poster | undefined, timeoutMs: number) {
  return async (event: OrderEvent): Promise<{ status: number }> => {
    const answer = await posterOf(post)(event, timeoutMs);
    logAnswer(event, answer);
    if (answer.delivered) return { status: answer.status };
    throw ApplicationFailure.retryable(
      answer.failure,
      answer.status === undefined ? 'NO_ANSWER' : `HTTP_${answer.status}`,
    );
  };
}

/**
 * Saved state changes of the order-event deliveries, counted directly in their histories.
 *
 * An answering endpoint's events are POSTed by a local activity in the task that decided (their
 * marker is written with that task's other events: no state change of their own); what delivering
 * events can add on the server is the delivery workflows, on the events task queue
 * `<task queue>-order-events`: the endpoint's delivery (`order-events:<task queue>`, every run of
 * it, continue-as-new included) and orders' own (`events-overflow-<orderId>`). Each of their state
 * changes, one write of the workflow's state by the server, shows in the history as one event of
 * {@link STATE_CHANGES}: the start, each workflow task started and completed (or failed, timed
 * out), each activity started and ended, each timer fired, each signal (a hand-over of events;
 * one that starts the workflow is the start's own write). On a booking this count gives 11, where
 * the server's own metrics (the `work` part) count 10–11 saved state changes per booking.
 *
 * Read after the part's windows, through the client (visibility lists the runs, `fetchHistory`
 * reads each): a count of what the deliveries wrote, not a difference of two noisy server totals.
 */
import { temporal } from '@temporalio/proto';
import type { Client } from '@temporalio/client';
import {
  endpointDeliveryWorkflowId,
  orderEventsTaskQueue,
} from '../../src/order-events/contract/delivery';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
const ET = temporal.api.enums.v1.EventType;

/** The events that each stand for one saved state change of their workflow. */
export const STATE_CHANGES: ReadonlySet<temporal.api.enums.v1.EventType> = new Set([
  ET.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED,
  ET.EVENT_TYPE_WORKFLOW_TASK_STARTED,
  ET.EVENT_TYPE_WORKFLOW_TASK_COMPLETED,
  ET.EVENT_TYPE_WORKFLOW_TASK_FAILED,
  ET.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT,
  ET.EVENT_TYPE_ACTIVITY_TASK_STARTED,
  ET.EVENT_TYPE_ACTIVITY_TASK_COMPLETED,
  ET.EVENT_TYPE_ACTIVITY_TASK_FAILED,
  ET.EVENT_TYPE_ACTIVITY_TASK_TIMED_OUT,
  ET.EVENT_TYPE_ACTIVITY_TASK_CANCELED,
  ET.EVENT_TYPE_TIMER_FIRED,
  ET.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED,
  ET.EVENT_TYPE_WORKFLOW_EXECUTION_CANCEL_REQUESTED,
  ET.EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED,
  ET.EVENT_TYPE_WORKFLOW_EXECUTION_TIMED_OUT,
]);

/** The saved state changes a history shows. Pure. */
export function stateChangesOf(events: readonly HistoryEvent[]): number {
  let n = 0;
  events.forEach((e, i) => {
    if (!STATE_CHANGES.has(e.eventType ?? ET.EVENT_TYPE_UNSPECIFIED)) return;
    // A signal that started the workflow (signal-with-start) is written with the start.
    const startSignal =
      e.eventType === ET.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED &&
      events[i - 1]?.eventType === ET.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED;
    if (!startSignal) n += 1;
  });
  return n;
}

/**
 * Every run of the delivery workflows of booking task queue `taskQueue`, and their state changes:
 * the runs visibility lists on the events task queue, and the endpoint's delivery's current run
 * should visibility not show it yet.
 */
export async function deliveryStateChanges(
  client: Client,
  taskQueue: string,
): Promise<{ runs: number; stateChanges: number }> {
  const runs = new Map<string, { workflowId: string; runId: string }>();
  const query = `TaskQueue = '${orderEventsTaskQueue(taskQueue)}'`;
  for await (const run of client.workflow.list({ query })) {
    runs.set(run.runId, { workflowId: run.workflowId, runId: run.runId });
  }
  const endpointId = endpointDeliveryWorkflowId(taskQueue);
  const current = await client.workflow
    .getHandle(endpointId)
    .describe()
    .catch(() => undefined);
  if (current) runs.set(current.runId, { workflowId: endpointId, runId: current.runId });
  let stateChanges = 0;
  for (const { workflowId, runId } of runs.values()) {
    const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
    stateChanges += stateChangesOf(history.events ?? []);
  }
  return { runs: runs.size, stateChanges };
}

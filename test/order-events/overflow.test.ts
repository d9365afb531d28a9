/**
 * The overflow's activities against a real dev server (no worker: the workflows they reach keep
 * each signal in their histories): an order's events go behind a running overflow workflow of the
 * earlier id first, then of today's; a spilled event starts today's id only when no workflow of
 * the earlier id runs (the end-to-end spill: test/events/order-event-delivery.test.ts).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { queueInOverflow, spill } from '../../src/order-events/activities/overflow';
import {
  earlierOrderEventsWorkflowId,
  orderEventsWorkflowId,
  OVERFLOW_WORKFLOW,
} from '../../src/order-events/contract/delivery';
import { orderEventId, type OrderEvent } from '../../src/order-events/contract/event';
import { connectTemporal, uniqueTaskQueue, type TestTemporal } from '../helpers/temporal';

const event = (orderId: string, sequence = 1): OrderEvent => ({
  id: orderEventId(orderId, sequence),
  type: 'order.confirmed',
  timestamp: '2027-01-01T00:00:00.000Z',
  data: { orderId, truth: 'CONFIRMED', phase: 'CONFIRMED', sequence },
});

describe('the overflow', () => {
  let t: TestTemporal;
  const queue = uniqueTaskQueue('overflow');
  const started: string[] = [];
  before(async () => {
    t = await connectTemporal();
  });
  after(async () => {
    for (const id of started)
      await t.client.workflow
        .getHandle(id)
        .terminate('test over')
        .catch(() => undefined);
    await t.close();
  });

  /** A running overflow workflow under `workflowId` (no worker runs it). */
  async function running(workflowId: string): Promise<void> {
    await t.client.workflow.start(OVERFLOW_WORKFLOW, { workflowId, taskQueue: queue, args: [{}] });
    started.push(workflowId);
  }
  /** The event ids each signal to `workflowId` carried; undefined when it does not exist. */
  async function signalled(workflowId: string): Promise<string[] | undefined> {
    const history = await t.client.workflow
      .getHandle(workflowId)
      .fetchHistory()
      .catch(() => undefined);
    if (!history) return undefined;
    return (history.events ?? [])
      .filter((e) => e.workflowExecutionSignaledEventAttributes)
      .map((e) => e.workflowExecutionSignaledEventAttributes!.signalName ?? '?');
  }
  const orderId = (tag: string) => `${tag}-${Math.random().toString(36).slice(2, 10)}`;

  it("queues an event behind its order's overflow workflow: the earlier id's first, then today's", async () => {
    const a = orderId('both');
    await running(earlierOrderEventsWorkflowId(a));
    await running(orderEventsWorkflowId(a));
    assert.equal(await queueInOverflow(t.client, event(a)), true);
    assert.equal((await signalled(earlierOrderEventsWorkflowId(a)))?.length, 1);
    assert.equal((await signalled(orderEventsWorkflowId(a)))?.length, 0);

    const b = orderId('today');
    await running(orderEventsWorkflowId(b));
    assert.equal(await queueInOverflow(t.client, event(b)), true);
    assert.equal((await signalled(orderEventsWorkflowId(b)))?.length, 1);

    assert.equal(await queueInOverflow(t.client, event(orderId('none'))), false);
  });

  it("spills to a running workflow of the earlier id, else starts today's", async () => {
    const a = orderId('earlier');
    const b = orderId('new');
    await running(earlierOrderEventsWorkflowId(a));
    await spill(t.client, queue, [event(a), event(b)]);
    started.push(orderEventsWorkflowId(b));
    assert.equal((await signalled(earlierOrderEventsWorkflowId(a)))?.length, 1);
    assert.equal(await signalled(orderEventsWorkflowId(a)), undefined, 'no second workflow for a');
    assert.equal((await signalled(orderEventsWorkflowId(b)))?.length, 1);
    const run = await t.client.workflow.getHandle(orderEventsWorkflowId(b)).describe();
    assert.equal(run.taskQueue, queue);
    assert.equal(run.type, OVERFLOW_WORKFLOW);
  });
});

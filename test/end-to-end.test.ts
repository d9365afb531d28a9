import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { temporal } from '@temporalio/proto';
import { createControlActivities } from '../bench/control';
import {
  connectTemporal,
  uniqueTaskQueue,
  withWorker,
  type TestTemporal,
} from './helpers/temporal';

describe('end to end on a real Temporal dev server', () => {
  let t: TestTemporal;
  before(async () => {
    t = await connectTemporal();
  });
  after(async () => {
    await t.close();
  });

  it('runs a real workflow that calls a real activity on a real worker', async () => {
    const taskQueue = uniqueTaskQueue('e2e');
    const result = await withWorker(t, { taskQueue, activities: createControlActivities() }, () =>
      t.client.workflow.execute('controlNoop', {
        taskQueue,
        workflowId: `e2e-${taskQueue}`,
        args: ['ping'],
      }),
    );
    assert.equal(result, 'ping');
    const history = await t.client.workflow.getHandle(`e2e-${taskQueue}`).fetchHistory();
    const completed = (history.events ?? []).filter(
      (e) => e.eventType === temporal.api.enums.v1.EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED,
    );
    assert.equal(completed.length, 1, 'the activity ran once on the worker');
  });
});

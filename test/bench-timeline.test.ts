/**
 * The bench's step breakdown (bench/timeline.ts) on a real history: the steps of a run add up to its
 * end-to-end time, and the time goes where the history says it went.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { meanSteps, runSteps, STEPS } from '../bench/timeline';
import {
  connectTemporal,
  uniqueTaskQueue,
  withWorker,
  type TestTemporal,
} from './helpers/temporal';

/** An activity that takes a known time, so it must show up as activity execution. */
const SLOW_MS = 150;
const activities = {
  async noop(input: string): Promise<string> {
    await new Promise((r) => setTimeout(r, SLOW_MS));
    return input;
  },
};

describe('bench step breakdown', () => {
  let t: TestTemporal;
  before(async () => {
    t = await connectTemporal();
  });
  after(async () => {
    await t.close();
  });

  it('charges every millisecond of a real run to one step, the activity where it ran', async () => {
    const taskQueue = uniqueTaskQueue('timeline');
    const workflowId = `timeline-${taskQueue}`;
    const { startedAt, resultAt } = await withWorker(t, { taskQueue, activities }, async () => {
      const startedAt = Date.now();
      await t.client.workflow.execute('controlNoop', { taskQueue, workflowId, args: ['x'] });
      return { startedAt, resultAt: Date.now() };
    });
    const history = await t.client.workflow.getHandle(workflowId).fetchHistory();
    const steps = runSteps(history.events ?? [], startedAt, resultAt);

    const total = STEPS.reduce((sum, s) => sum + steps[s], 0);
    // Event times are whole ms on the server's clock, the same machine's as ours.
    assert.ok(Math.abs(total - (resultAt - startedAt)) <= 2, `${total} vs ${resultAt - startedAt}`);
    assert.ok(steps.activityExecution >= SLOW_MS - 2, `activity ${steps.activityExecution} ms`);
    assert.ok(steps.activityExecution < resultAt - startedAt);
    assert.ok(steps.workflowTaskExecution > 0, 'two workflow tasks ran');

    // The mean of one run is that run (rounded to 0.1 ms).
    const mean = meanSteps([steps]);
    for (const s of STEPS) assert.ok(Math.abs(mean[s] - steps[s]) <= 0.05, s);
  });
});

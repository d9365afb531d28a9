/**
 * The bench's step breakdown (bench/shared/timeline.ts) on a real history: the steps of a run add up to its
 * end-to-end time, and the time goes where the history says it went.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { temporal } from '@temporalio/proto';
import { meanSteps, runSteps, STEPS } from '../bench/shared/timeline';
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

  it('ends a bookRoomAndGuard run at its outcome update: the guard after it is not the caller’s time', () => {
    const file = join(
      __dirname,
      'histories',
      'book-room-and-guard',
      'book-and-guard-cancelled.json',
    );
    const events =
      temporal.api.history.v1.History.fromObject(JSON.parse(readFileSync(file, 'utf8'))).events ??
      [];
    const ms = (e: (typeof events)[number]) =>
      Number(e.eventTime?.seconds ?? 0) * 1000 + Math.round((e.eventTime?.nanos ?? 0) / 1e6);
    const ET = temporal.api.enums.v1.EventType;
    const answered = events.findIndex(
      (e) => e.eventType === ET.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_COMPLETED,
    );
    assert.ok(answered > 0 && answered < events.length - 1, 'the guard went on after the answer');
    const startedAt = ms(events[0]!);
    const resultAt = ms(events[answered]!);
    const steps = runSteps(events, startedAt, resultAt);
    const total = STEPS.reduce((sum, s) => sum + steps[s], 0);
    assert.equal(total, resultAt - startedAt);
    // The booking call only, not the guard's read that follows the answer.
    const bookingCall = events.findIndex(
      (e) => e.eventType === ET.EVENT_TYPE_ACTIVITY_TASK_COMPLETED,
    );
    assert.equal(steps.activityExecution, ms(events[bookingCall]!) - ms(events[bookingCall - 1]!));
  });
});

/**
 * The bench's count of promises and sandbox entries per step of a booking (bench/promises/steps.ts,
 * bench/promises/count.ts): observations are attributed to the activation they happen in, each
 * activation is named by the events that led to it, the booking's window ends at the guard's first
 * wait; and a replay of a recorded history counts the same on every run.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { countPromises, PROMISE_COUNT_HISTORY } from '../bench/promises/count';
import {
  bookingWindow,
  promiseCountFigures,
  stepsOf,
  type Observed,
  type ObservedCommand,
  type ObservedJob,
} from '../bench/promises/steps';
import { testWorkflowBundle } from './helpers/temporal';

const promise = (site?: string): Observed =>
  site === undefined ? { kind: 'promise' } : { kind: 'promise', site };
const entry = (call: string): Observed => ({ kind: 'entry', call });
const activate = (historyLength: number, ...jobs: ObservedJob[]): Observed => ({
  kind: 'entry',
  call: 'activate',
  activation: { historyLength, jobs },
});
const commands = (...list: ObservedCommand[]): Observed => ({ kind: 'commands', commands: list });

/** A booking's replay as bench/promises/count.ts notes it: four activations, then the eviction. */
const booking: Observed[] = [
  entry('initRuntime'),
  promise('src/a.ts:1 order'),
  entry('initialize'),
  activate(
    3,
    { variant: 'initializeWorkflow' },
    { variant: 'doUpdate', name: 'outcome', protocolInstanceId: 'u1' },
  ),
  promise('src/a.ts:1 order'),
  promise('src/a.ts:2 book'),
  entry('tryUnblockConditions'),
  entry('concludeActivation'),
  commands(
    { variant: 'updateResponse', protocolInstanceId: 'u1', response: 'accepted' },
    { variant: 'scheduleLocalActivity', seq: 1, activityType: 'priceCheck' },
  ),
  activate(3, { variant: 'resolveActivity', seq: 1, result: 'completed' }),
  promise(),
  entry('concludeActivation'),
  commands({ variant: 'scheduleActivity', seq: 2, activityType: 'createBooking' }),
  activate(14, { variant: 'resolveActivity', seq: 2, result: 'completed' }),
  promise('src/b.ts:9 guard'),
  entry('concludeActivation'),
  commands(
    { variant: 'scheduleActivity', seq: 3, activityType: 'readTerms' },
    { variant: 'updateResponse', protocolInstanceId: 'u1', response: 'completed' },
  ),
  activate(22, { variant: 'resolveActivity', seq: 3, result: 'failed' }),
  promise('src/b.ts:12 watch'),
  promise('src/b.ts:12 watch'),
  entry('tryUnblockConditions'),
  entry('concludeActivation'),
  commands({ variant: 'startTimer', seq: 1 }, { variant: 'upsertWorkflowSearchAttributes' }),
  activate(27, { variant: 'fireTimer', seq: 1 }),
  promise(),
  entry('concludeActivation'),
  commands({ variant: 'completeWorkflowExecution' }),
  entry('dispose'),
  promise(),
];

describe('bench: promises and sandbox entries per step of a booking', () => {
  // The replay worker's state changes stay out of the test's output.
  before(() => Runtime.install({ logger: new DefaultLogger('WARN') }));

  it('attributes every promise and entry to the activation it happens in, creating the workflow to the first', () => {
    const steps = stepsOf(booking);
    assert.deepEqual(
      steps.map((s) => [s.activation, s.workflowTask, s.promises, s.entries]),
      [
        [1, 1, 3, 5],
        [2, 1, 1, 2],
        [3, 2, 1, 2],
        [4, 3, 2, 3],
        [5, 4, 1, 2],
        [undefined, undefined, 1, 1],
      ],
    );
    assert.deepEqual(steps[0]!.sites, { 'src/a.ts:1 order': 2, 'src/a.ts:2 book': 1 });
  });

  it('names each activation by the events that led to it and by what it left', () => {
    const steps = stepsOf(booking);
    assert.deepEqual(
      steps.map((s) => s.after),
      [
        'start, update outcome',
        'local activity completed: priceCheck',
        'activity completed: createBooking',
        'activity failed: readTerms',
        'timer fired',
        'eviction',
      ],
    );
    assert.equal(steps[0]!.then, 'update outcome accepted, local activity priceCheck');
    assert.equal(steps[2]!.then, 'activity readTerms, update outcome completed');
    assert.deepEqual(steps[2]!.updatesCompleted, ['outcome']);
    assert.equal(steps[4]!.endsWorkflow, true);
  });

  it("a second batch of one activation's jobs stays in that activation", () => {
    const steps = stepsOf([
      activate(3, { variant: 'signalWorkflow', name: 'ping' }),
      promise(),
      activate(3, { variant: 'doUpdate', name: 'cancel', protocolInstanceId: 'u2' }),
      promise(),
      entry('concludeActivation'),
      commands(),
    ]);
    assert.equal(steps.length, 1);
    assert.equal(steps[0]!.after, 'signal ping, update cancel');
    assert.equal(steps[0]!.promises, 2);
    assert.equal(steps[0]!.then, 'nothing');
  });

  it("the booking's window ends at the first activation from its decision on that waits", () => {
    const steps = stepsOf(booking);
    assert.deepEqual(bookingWindow(steps, 'outcome'), {
      throughActivation: 4,
      reachedFirstWait: true,
      promises: 7,
      activations: 4,
      workflowTasks: 3,
      entries: 12,
    });
    // Without its decision the replay never reaches the guard: every activation counts.
    const undecided = bookingWindow(steps, 'another update');
    assert.equal(undecided.reachedFirstWait, false);
    assert.equal(undecided.activations, 5);
    assert.equal(undecided.promises, 8);
  });

  it("reports the window's totals and each of its activations' promises under the README's names", () => {
    const steps = stepsOf(booking);
    const figures = promiseCountFigures({
      history: 'h',
      steps,
      window: bookingWindow(steps, 'outcome'),
    });
    assert.equal(
      figures['Promises created in workflow code per confirmed booking (guard to its first wait)'],
      7,
    );
    assert.equal(figures['Activations per confirmed booking (guard to its first wait)'], 4);
    assert.equal(figures['Workflow tasks per confirmed booking (guard to its first wait)'], 3);
    assert.equal(figures['Sandbox entries per confirmed booking (guard to its first wait)'], 12);
    assert.equal(
      figures[
        "Promises created in workflow code, confirmed booking's activation 3 (workflow task 2): after activity completed: createBooking"
      ],
      1,
    );
    // Only the window's activations have a row.
    assert.equal(Object.keys(figures).length, 4 + 4);
    assert.deepEqual(promiseCountFigures(undefined), {});
  });

  it('a replay of a recorded confirmed booking counts the same on every run', async () => {
    const { code } = await testWorkflowBundle();
    const first = await countPromises(code, PROMISE_COUNT_HISTORY, { sites: true });
    const second = await countPromises(code, PROMISE_COUNT_HISTORY, { sites: true });
    assert.deepEqual(second, first);
    // The booking's steps: the start with the price check (local) and then the booking call in
    // one workflow task, the decision with the guard's start, the guard's first read and wait.
    assert.deepEqual(
      first.steps.filter((s) => s.activation !== undefined).map((s) => s.after),
      [
        'start, update outcome',
        'local activity completed: earlierRunsAndPriceCheck',
        'activity completed: createBooking',
        'activity completed: readBookingTerms',
        'update cancel',
        'activity completed: cancelBooking',
      ],
    );
    assert.equal(first.window.reachedFirstWait, true);
    assert.equal(first.window.throughActivation, 4);
    assert.equal(first.window.workflowTasks, 3);
    for (const s of first.steps) {
      assert.ok(s.entries > 0, `activation ${String(s.activation)}: no sandbox entry`);
      // Every promise is named by the line that created it.
      const named = Object.values(s.sites).reduce((n, k) => n + k, 0);
      assert.equal(named, s.promises, `activation ${String(s.activation)}`);
    }
    assert.ok(first.window.promises > 0);
  });
});

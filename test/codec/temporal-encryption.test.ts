/**
 * Hard rule 8 on a real Temporal server: with the data converter on client and worker, neither a
 * workflow's data nor a failure message is stored in clear, and the encrypted history replays.
 * Needs the run's dev server: `npm test -- test/codec/temporal-encryption.test.ts`.
 */
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Client, WorkflowFailedError } from '@temporalio/client';
import { ActivityFailure, ApplicationFailure, type DataConverter } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import {
  bundleWorkflowCode,
  ReplayError,
  Worker,
  type WorkerOptions,
  type WorkflowBundle,
} from '@temporalio/worker';
import { parseEnv } from '../../src/config';
import { createControlActivities } from '../../bench/control';
import {
  createDataConverter,
  loadEncryptionConfig,
  workflowBundleConverterOptions,
} from '../../src/codec';
import { BENCH_WORKFLOWS_PATH } from '../../bench/control';
import { connectTemporal, uniqueTaskQueue, type TestTemporal } from '../helpers/temporal';

type History = temporal.api.history.v1.IHistory;
const EventType = temporal.api.enums.v1.EventType;

const noop = () => undefined;
const quietLogger = { log: noop, trace: noop, debug: noop, info: noop, warn: noop, error: noop };

/** Every way the sentinel could sit in clear in a history: raw payload bytes or a string field. */
function inClear(history: History, sentinel: string): boolean {
  const History = temporal.api.history.v1.History;
  const bytes = Buffer.from(History.encode(history).finish());
  // Every string field, bytes as base64 (common's historyToJSON trips over its own protobufjs copy).
  const json = JSON.stringify(
    History.toObject(History.fromObject(history), { bytes: String, enums: String, longs: String }),
  );
  return bytes.includes(sentinel) || json.includes(sentinel);
}

function eventOf(history: History, type: temporal.api.enums.v1.EventType) {
  const event = history.events?.find((e) => e.eventType === type);
  assert.ok(event, `history has a ${EventType[type]} event`);
  return event;
}

describe(
  'payload encryption on a real Temporal server',
  {
    skip:
      process.env.TEMPORAL_ADDRESS === undefined &&
      'needs a Temporal server: npm test -- test/codec/temporal-encryption.test.ts',
  },
  () => {
    let t: TestTemporal;
    /** Reads what the server stores, as anyone with access to Temporal (or its database) would. */
    let rawClient: Client;
    let bundle: WorkflowBundle;
    let dataConverter: DataConverter;

    before(async () => {
      const keys = `test-${randomUUID().slice(0, 8)}:${randomBytes(32).toString('base64')}`;
      dataConverter = createDataConverter(
        loadEncryptionConfig(parseEnv({ PAYLOAD_ENCRYPTION_KEYS: keys })),
      );
      t = await connectTemporal({ dataConverter });
      rawClient = new Client({ connection: t.connection, namespace: 'default' });
      // The shared test bundle is built without our failure converter; this one is built the way
      // production must build it (see src/codec/data-converter.ts).
      bundle = await bundleWorkflowCode({
        workflowsPath: BENCH_WORKFLOWS_PATH,
        ...workflowBundleConverterOptions,
        logger: quietLogger,
      });
    });
    after(async () => {
      await t.close();
    });

    async function runOnEncryptingWorker<T>(
      taskQueue: string,
      activities: WorkerOptions['activities'],
      fn: () => Promise<T>,
    ): Promise<T> {
      const worker = await Worker.create({
        connection: t.nativeConnection,
        namespace: 'default',
        taskQueue,
        workflowBundle: bundle,
        activities,
        dataConverter,
      });
      return worker.runUntil(fn);
    }

    it('stores workflow input, activity input and results only encrypted, and replays them', async () => {
      const sentinel = `SENTINEL-guest-${randomUUID()}`;
      const taskQueue = uniqueTaskQueue('codec-ok');
      const workflowId = `codec-ok-${taskQueue}`;
      const result = await runOnEncryptingWorker(taskQueue, createControlActivities(), () =>
        t.client.workflow.execute('controlNoop', { taskQueue, workflowId, args: [sentinel] }),
      );
      assert.equal(result, sentinel, 'the codec client reads the result back');

      const history = await rawClient.workflow.getHandle(workflowId).fetchHistory();
      eventOf(history, EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED);
      assert.equal(inClear(history, sentinel), false, 'the sentinel is nowhere in clear');
      const started = eventOf(history, EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED);
      const input = started.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
      assert.equal(Buffer.from(input?.metadata?.encoding ?? []).toString(), 'binary/encrypted');

      await Worker.runReplayHistory(
        { workflowBundle: bundle, dataConverter, replayName: 'codec-ok' },
        history,
        workflowId,
      );
    });

    it('stores an activity failure message and the workflow failure only encrypted, and replays them', async () => {
      const sentinel = `SENTINEL-failure-${randomUUID()}`;
      const taskQueue = uniqueTaskQueue('codec-fail');
      const workflowId = `codec-fail-${taskQueue}`;
      const activities = {
        async noop(): Promise<string> {
          throw ApplicationFailure.nonRetryable(sentinel, 'GuestDataError');
        },
      };
      const err = await runOnEncryptingWorker(taskQueue, activities, () =>
        t.client.workflow.execute('controlNoop', { taskQueue, workflowId, args: ['input'] }).then(
          () => assert.fail('the workflow should fail'),
          (e: unknown) => e,
        ),
      );
      assert.ok(err instanceof WorkflowFailedError);
      assert.ok(err.cause instanceof ActivityFailure);
      assert.ok(err.cause.cause instanceof ApplicationFailure);
      assert.equal(err.cause.cause.message, sentinel, 'the codec client decodes the message');

      const history = await rawClient.workflow.getHandle(workflowId).fetchHistory();
      const activityFailed = eventOf(history, EventType.EVENT_TYPE_ACTIVITY_TASK_FAILED);
      const workflowFailed = eventOf(history, EventType.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED);
      assert.equal(
        activityFailed.activityTaskFailedEventAttributes?.failure?.message,
        'Encoded failure',
      );
      const failure = workflowFailed.workflowExecutionFailedEventAttributes?.failure;
      assert.equal(failure?.message, 'Encoded failure');
      assert.equal(failure?.cause?.message, 'Encoded failure');
      assert.equal(inClear(history, sentinel), false, 'the failure message is nowhere in clear');

      await Worker.runReplayHistory(
        { workflowBundle: bundle, dataConverter, replayName: 'codec-fail' },
        history,
        workflowId,
      );
    });

    it('cannot replay an encrypted history without the codec', async () => {
      const taskQueue = uniqueTaskQueue('codec-replay');
      const workflowId = `codec-replay-${taskQueue}`;
      await runOnEncryptingWorker(taskQueue, createControlActivities(), () =>
        t.client.workflow.execute('controlNoop', { taskQueue, workflowId, args: ['x'] }),
      );
      const history = await rawClient.workflow.getHandle(workflowId).fetchHistory();
      await assert.rejects(
        Worker.runReplayHistory(
          { workflowBundle: bundle, replayName: 'codec-replay' },
          history,
          workflowId,
        ),
        // The workflow cannot even read its input: "Unknown encoding: binary/encrypted".
        (err: unknown) => err instanceof ReplayError && /workflow task failure/.test(err.message),
      );
    });

    it('finds the sentinel in clear when nothing encrypts, so the checks above can fail', async () => {
      const sentinel = `SENTINEL-control-${randomUUID()}`;
      const taskQueue = uniqueTaskQueue('codec-control');
      const workflowId = `codec-control-${taskQueue}`;
      const worker = await Worker.create({
        connection: t.nativeConnection,
        namespace: 'default',
        taskQueue,
        workflowBundle: bundle,
        activities: {
          async noop(): Promise<string> {
            throw ApplicationFailure.nonRetryable(sentinel);
          },
        },
      });
      await worker.runUntil(() =>
        rawClient.workflow
          .execute('controlNoop', { taskQueue, workflowId, args: [`${sentinel}-input`] })
          .catch(() => undefined),
      );
      const history = await rawClient.workflow.getHandle(workflowId).fetchHistory();
      assert.equal(inClear(history, `${sentinel}-input`), true, 'clear input is detected');
      const activityFailed = eventOf(history, EventType.EVENT_TYPE_ACTIVITY_TASK_FAILED);
      assert.equal(activityFailed.activityTaskFailedEventAttributes?.failure?.message, sentinel);
    });
  },
);

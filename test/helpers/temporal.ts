/**
 * Test access to the run's Temporal server (started by test/run.ts) and a worker per test on its
 * own task queue, with the workflow bundle built once for the whole run.
 */
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import {
  NativeConnection,
  Runtime,
  Worker,
  type WorkerOptions,
  type WorkflowBundle,
} from '@temporalio/worker';
import { temporalConnectionOptions } from '../../src/client/connection-options';
import { loadTemporalSecurity } from '../../src/config/temporal-security';
import { createDataConverter } from '../../src/codec/data-converter';
import { developmentKey } from '../../src/config/codec';
import { loadWorkflowBundle } from '../../src/workflow-bundle';

/** The data converter every test client and worker uses: encryption with the development key. */
export const testDataConverter = createDataConverter({ keys: [developmentKey()] });

let runtimeInstalled = false;
/** Keeps the Rust core's logs out of test output unless something is wrong. */
function installQuietRuntime() {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  Runtime.install({
    logger: {
      log: () => undefined,
      trace: () => undefined,
      debug: () => undefined,
      info: () => undefined,
      warn: () => undefined,
      error: (msg, meta) => console.error('[temporal]', msg, meta ?? ''),
    },
  });
}

/**
 * Registers `namespace` on the run's server with `retentionDays` of retention, and waits until the
 * frontend's namespace cache has it (up to 30 s). For a test whose workflow ids are fixed by the
 * product (one per country, say) and would otherwise meet another file's in `default`.
 */
export async function registerTestNamespace(
  connection: Connection,
  namespace: string,
  retentionDays: number,
): Promise<void> {
  await connection.workflowService.registerNamespace({
    namespace,
    workflowExecutionRetentionPeriod: msToTs(retentionDays * 86_400_000),
  });
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      await connection.workflowService.describeNamespace({ namespace });
      return;
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

export function temporalAddress(): string {
  const address = process.env.TEMPORAL_ADDRESS;
  if (!address) throw new Error('TEMPORAL_ADDRESS is not set: run the suite with `npm test`.');
  return address;
}

/** A task queue no other test uses. */
export function uniqueTaskQueue(name: string): string {
  return `test-${name}-${randomUUID().slice(0, 8)}`;
}

export interface TestTemporal {
  readonly client: Client;
  readonly connection: Connection;
  readonly nativeConnection: NativeConnection;
  close(): Promise<void>;
}

export async function connectTemporal(
  clientOptions: Partial<ConstructorParameters<typeof Client>[0]> = {},
): Promise<TestTemporal> {
  installQuietRuntime();
  // TLS and credentials as the run's environment gives them (the suite on the cluster).
  const options = temporalConnectionOptions({
    ...loadTemporalSecurity(process.env),
    address: temporalAddress(),
  });
  const connection = await Connection.connect(options);
  const nativeConnection = await NativeConnection.connect(options);
  const client = new Client({
    connection,
    namespace: 'default',
    dataConverter: testDataConverter,
    ...clientOptions,
  });
  return {
    client,
    connection,
    nativeConnection,
    async close() {
      await connection.close();
      await nativeConnection.close();
    },
  };
}

/**
 * Creates a worker on `taskQueue` with the shared workflow bundle, runs `fn` while it polls,
 * and shuts it down afterwards, even when `fn` throws.
 */
export async function withWorker<T>(
  t: TestTemporal,
  options: Omit<WorkerOptions, 'connection' | 'workflowBundle' | 'workflowsPath'>,
  fn: (worker: Worker) => Promise<T>,
): Promise<T> {
  const worker = await Worker.create({
    connection: t.nativeConnection,
    namespace: 'default',
    workflowBundle: await testWorkflowBundle(),
    dataConverter: testDataConverter,
    ...options,
  });
  return worker.runUntil(() => fn(worker));
}

let bundle: Promise<WorkflowBundle> | undefined;
/** The run's workflow bundle (test/run.ts builds it once: `WORKFLOW_BUNDLE_PATH`), loaded once. */
export function testWorkflowBundle(): Promise<WorkflowBundle> {
  bundle ??= loadWorkflowBundle(process.env.WORKFLOW_BUNDLE_PATH);
  return bundle;
}

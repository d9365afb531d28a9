/**
 * The booking worker as the bench runs it: the production builder (`createBookingWorker`, with
 * its defaults), the production data converter (encrypted payloads), a prebuilt bundle, the real
 * hotel API client towards the bench's simulator. Used in a child process (worker-child.ts) and,
 * for the eager-start experiment, in the bench's own process.
 */
import { NativeConnection, Runtime, type Worker, type WorkerOptions } from '@temporalio/worker';
import { createBookingWorker, createOrderEventsWorker } from '../../src/build-worker';
import { temporalConnectionOptions } from '../../src/client/connection-options';
import { createDataConverter } from '../../src/codec/data-converter';
import { developmentKey } from '../../src/config/codec';
import { loadTemporalSecurity } from '../../src/config/temporal-security';
import { HotelApiClient } from '../../src/hotel-api';
import { loadWorkflowBundle } from '../../src/workflow-bundle';
import { createControlActivities } from '../control';
import { loadBenchAccounts, startAccountWorkers } from './account-workers';
import { benchHotelApiConfig } from './supplier';

export interface BenchWorkerInit {
  readonly address: string;
  readonly taskQueue: string;
  /** The simulator's base URL (without /api/v1). */
  readonly supplierUrl: string;
  readonly bundlePath: string;
  /** `TEMPORAL_TLS_*` variables (paths to PEM files) when the server wants mTLS: the cluster. */
  readonly temporalEnv?: Readonly<Record<string, string>>;
  /** Serve the SDK's Prometheus metrics on this port. */
  readonly metricsPort?: number;
  /** Extra `WorkerOptions` (JSON-able), for experiments. */
  readonly overrides?: Partial<WorkerOptions>;
  /** Order events on (`ORDER_EVENTS_URL`): announced, and delivered by a second worker. */
  readonly orderEvents?: { readonly url: string; readonly secret: string };
  /** `SUPPLIER_MAX_CALLS_PER_SECOND` and `SUPPLIER_LOCAL_CALLS_PER_SECOND`, as users set them. */
  readonly supplierCap?: SupplierCap;
  /**
   * `SUPPLIER_ACCOUNTS`: further supplier accounts, as the worker process runs them
   * (account-workers.ts); as there, no supplier read is then local unless `supplierCap` says so.
   */
  readonly supplierAccounts?: string;
}

/** A fleet-wide supplier cap and this worker's local budget (calls per second). */
export interface SupplierCap {
  readonly perSecond: number;
  readonly localPerWorker: number;
}

export interface BenchWorker {
  readonly worker: Worker;
  readonly connection: NativeConnection;
  /** Poll lateness samples (ms) since the last {@link BenchWorker.takeLateness}. */
  takeLateness(): number[];
  /** When each of those polls started (epoch ms), in the same order. */
  takeLatenessTimes(): number[];
  stop(): Promise<void>;
}

let runtimeInstalled = false;

/** Installs the SDK runtime once per process: errors to stderr, metrics when asked. */
export function installBenchRuntime(metricsPort?: number): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  const quiet = () => undefined;
  Runtime.install({
    logger: {
      log: quiet,
      trace: quiet,
      debug: quiet,
      info: quiet,
      warn: quiet,
      error: (msg, meta) => console.error('[bench worker]', msg, meta ?? ''),
    },
    ...(metricsPort !== undefined
      ? {
          telemetryOptions: {
            metrics: { prometheus: { bindAddress: `127.0.0.1:${metricsPort}` } },
          },
        }
      : {}),
  });
}

/** The data converter of every party in the bench: the product's, with the development key. */
export const benchDataConverter = () => createDataConverter({ keys: [developmentKey()] });

/** A native connection to the worker's server: plaintext to the dev server, mTLS to the cluster. */
async function connect(init: BenchWorkerInit): Promise<NativeConnection> {
  const problems: string[] = [];
  const security = loadTemporalSecurity(init.temporalEnv ?? {}, problems);
  if (problems.length > 0) throw new Error(problems.join('; '));
  return NativeConnection.connect(
    temporalConnectionOptions({ ...security, address: init.address }),
  );
}

/** Poll lateness samples and when each poll started, taken (and emptied) together or apart. */
function latenessLog() {
  let lateness: number[] = [];
  let times: number[] = [];
  return {
    note(ms: number) {
      lateness.push(ms);
      times.push(Date.now());
    },
    takeLateness(): number[] {
      const taken = lateness;
      lateness = [];
      return taken;
    },
    takeLatenessTimes(): number[] {
      const taken = times;
      times = [];
      return taken;
    },
  };
}

/** The order events worker beside the booking worker, when events are on. */
async function eventsWorkerOf(init: BenchWorkerInit, connection: NativeConnection) {
  if (!init.orderEvents) return undefined;
  return createOrderEventsWorker({
    connection,
    taskQueue: init.taskQueue,
    endpoint: init.orderEvents,
    workflowBundle: await loadWorkflowBundle(init.bundlePath),
    dataConverter: benchDataConverter(),
    shutdownGraceTime: '1s',
  });
}

/** Runs `worker` until it stops, logging why; the promise never rejects. */
function runLogged(worker: Worker, name: string): Promise<void> {
  return worker.run().catch((err: unknown) => console.error(`[${name}] stopped with`, err));
}

export async function startBenchWorker(init: BenchWorkerInit): Promise<BenchWorker> {
  installBenchRuntime(init.metricsPort);
  const connection = await connect(init);
  const defaultApi = benchHotelApiConfig(init.supplierUrl);
  const hotelApi = new HotelApiClient(defaultApi);
  const accounts =
    init.supplierAccounts !== undefined
      ? loadBenchAccounts(init.supplierAccounts, defaultApi, init.supplierCap?.perSecond)
      : undefined;
  const log = latenessLog();
  const worker = await createBookingWorker({
    connection,
    taskQueue: init.taskQueue,
    hotelApi,
    workflowBundle: await loadWorkflowBundle(init.bundlePath),
    dataConverter: benchDataConverter(),
    extraActivities: createControlActivities(),
    shutdownGraceTime: '2s',
    onPollLateness: (ms) => log.note(ms),
    ...(init.overrides ? { overrides: init.overrides } : {}),
    ...(init.orderEvents ? { orderEvents: init.orderEvents } : {}),
    ...(init.supplierCap
      ? {
          maxActivitiesPerSecond: init.supplierCap.perSecond,
          localCallsPerSecond: init.supplierCap.localPerWorker,
        }
      : {}),
    ...(accounts ? { accounts, localCallsPerSecond: init.supplierCap?.localPerWorker ?? 0 } : {}),
  });
  const accountWorkers = accounts
    ? await startAccountWorkers({
        connection,
        taskQueue: init.taskQueue,
        accounts,
        dataConverter: benchDataConverter(),
      })
    : undefined;
  const eventsWorker = await eventsWorkerOf(init, connection);
  const eventsRunning = eventsWorker ? runLogged(eventsWorker, 'bench events worker') : undefined;
  const running = runLogged(worker, 'bench worker');
  return {
    worker,
    connection,
    takeLateness: log.takeLateness,
    takeLatenessTimes: log.takeLatenessTimes,
    async stop() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      if (eventsWorker?.getState() === 'RUNNING') eventsWorker.shutdown();
      await accountWorkers?.stop();
      await running;
      await eventsRunning;
      await hotelApi.close();
      await connection.close();
    },
  };
}

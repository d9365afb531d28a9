/**
 * The booking worker as the bench runs it: the production builder (`createBookingWorker`, with
 * its defaults), the production data converter (encrypted payloads), a prebuilt bundle, the real
 * hotel API client towards the bench's simulator. Used in a child process (worker-child.ts) and,
 * for the eager-start experiment, in the bench's own process.
 */
import { NativeConnection, Runtime, type Worker, type WorkerOptions } from '@temporalio/worker';
import { createBookingWorker, createOrderEventsWorker } from '../src/build-worker';
import { createControlActivities } from './control';
import { createDataConverter } from '../src/codec/data-converter';
import { developmentKey } from '../src/config/codec';
import { HotelApiClient } from '../src/hotel-api';
import { loadWorkflowBundle } from '../src/workflow-bundle';
import { benchHotelApiConfig } from './bench-config';
import { temporalConnectionOptions } from '../src/client/connection-options';
import { loadTemporalSecurity } from '../src/config/temporal-security';

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

export async function startBenchWorker(init: BenchWorkerInit): Promise<BenchWorker> {
  installBenchRuntime(init.metricsPort);
  // The dev server is plaintext, the cluster mTLS: options from the one connection module.
  const problems: string[] = [];
  const security = loadTemporalSecurity(init.temporalEnv ?? {}, problems);
  if (problems.length > 0) throw new Error(problems.join('; '));
  const connection = await NativeConnection.connect(
    temporalConnectionOptions({ ...security, address: init.address }),
  );
  const hotelApi = new HotelApiClient(benchHotelApiConfig(init.supplierUrl));
  let lateness: number[] = [];
  let latenessTimes: number[] = [];
  const worker = await createBookingWorker({
    connection,
    taskQueue: init.taskQueue,
    hotelApi,
    workflowBundle: await loadWorkflowBundle(init.bundlePath),
    dataConverter: benchDataConverter(),
    extraActivities: createControlActivities(),
    shutdownGraceTime: '2s',
    onPollLateness: (ms) => {
      lateness.push(ms);
      latenessTimes.push(Date.now());
    },
    ...(init.overrides ? { overrides: init.overrides } : {}),
    ...(init.orderEvents ? { orderEvents: init.orderEvents } : {}),
    ...(init.supplierCap
      ? {
          maxActivitiesPerSecond: init.supplierCap.perSecond,
          localCallsPerSecond: init.supplierCap.localPerWorker,
        }
      : {}),
  });
  const eventsWorker = init.orderEvents
    ? await createOrderEventsWorker({
        connection,
        taskQueue: init.taskQueue,
        endpoint: init.orderEvents,
        workflowBundle: await loadWorkflowBundle(init.bundlePath),
        dataConverter: benchDataConverter(),
        shutdownGraceTime: '1s',
      })
    : undefined;
  const eventsRunning = eventsWorker
    ?.run()
    .catch((err: unknown) => console.error('[bench events worker] stopped with', err));
  const running = worker.run();
  running.catch((err: unknown) => console.error('[bench worker] stopped with', err));
  return {
    worker,
    connection,
    takeLateness() {
      const taken = lateness;
      lateness = [];
      return taken;
    },
    takeLatenessTimes() {
      const taken = latenessTimes;
      latenessTimes = [];
      return taken;
    },
    async stop() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      if (eventsWorker?.getState() === 'RUNNING') eventsWorker.shutdown();
      await running.catch(() => undefined);
      await eventsRunning;
      await hotelApi.close();
      await connection.close();
    },
  };
}

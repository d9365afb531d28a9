/**
 * The bench's one stack starter: what a part runs against, started for it and stopped after it.
 * A Temporal service (a dev server of the part's own on a fresh SQLite file, or a service the
 * caller started: the cluster), the simulator in a child process, the part's workers (the
 * compiled worker, each in a child process) on a task queue of its own, and a `BookingClient` on
 * that queue. A worker may run further supplier accounts (`SUPPLIER_ACCOUNTS`), each a company of
 * the simulator, added to it as the worker starts. `stop()` stops what was started in reverse order; a start that fails half-way stops
 * what it had started before it rethrows.
 *
 * The pieces are tools/'s: the dev server (tools/temporal-server/dev-server.ts), the cluster
 * (tools/temporal-server/cluster.ts), the simulator (tools/simulator/). What is the bench's own is
 * that every process runs apart (its CPU and RSS read from `/proc`) and the worker is compiled.
 */
import { randomUUID } from 'node:crypto';
import type { WorkerOptions } from '@temporalio/worker';
import { BookingClient, type BookingWorkflow } from '../../src/client';
import {
  startSimulatorChild,
  startWorker,
  type SimulatorChild,
  type WorkerHandle,
  type WorkerStart,
} from './children';
import type { CompiledWorker } from './compiled-worker';
import { startBenchTemporal, type BenchTarget } from './temporal';

/**
 * What every part takes from the run: the compiled worker, its workflow bundle, worker options,
 * node arguments, the dev servers' dynamic config, and the run's log.
 */
export interface PartContext {
  readonly compiledWorker: CompiledWorker;
  readonly bundlePath: string;
  readonly overrides: Partial<WorkerOptions>;
  readonly workerNodeArgs: readonly string[];
  readonly serverDynamicConfig: Readonly<Record<string, string>>;
  readonly log: (line: string) => void;
}

/** What a worker gets besides the run's: the options of a part's experiment or setting. */
export type WorkerExtras = Pick<
  WorkerStart,
  'inProcess' | 'orderEvents' | 'supplierCap' | 'accounts'
>;

export interface StackOptions {
  /** Names the task queue: `bench-<name>-<random>`. */
  readonly name: string;
  /** The simulator's latency at start, ms. */
  readonly latencyMs: number;
  /** Run on this service (the caller starts and stops it) instead of a dev server of its own. */
  readonly on?: BenchTarget;
  /** The own dev server's dynamic config over the run's (a baseline without a setting). */
  readonly dynamicConfig?: Readonly<Record<string, string>>;
  /** Worker processes started on the task queue. @default 1 */
  readonly workers?: number;
  readonly worker?: WorkerExtras;
  /** The bookings' workflow type (`BENCH_WORKFLOW`), the client's default unless set. */
  readonly workflow?: BookingWorkflow;
}

export interface PartStack {
  readonly temporal: BenchTarget;
  /** The own dev server's Prometheus endpoint ('' on a service the caller started). */
  readonly metricsUrl: string;
  readonly sim: SimulatorChild;
  readonly taskQueue: string;
  /** The workers started so far, the first one first (stopped ones included). */
  readonly workers: readonly WorkerHandle[];
  /** A `BookingClient` on the stack's task queue. */
  readonly bookings: BookingClient;
  /** A `BookingClient` on another task queue of the same service. */
  bookingsOn(taskQueue: string): BookingClient;
  /** Starts one more worker, on the stack's task queue unless told another. */
  startWorker(extras?: WorkerExtras, taskQueue?: string): Promise<WorkerHandle>;
  /** Stops every worker started so far (the simulator and the server stay). */
  stopWorkers(): Promise<void>;
  /** Stops the workers, the simulator and the own dev server. Safe to call twice. */
  stop(): Promise<void>;
}

/** A fresh task queue for the part `name`. */
export const partTaskQueue = (name: string) => `bench-${name}-${randomUUID().slice(0, 8)}`;

/** Starts the part's stack; resolves once its workers poll. */
export async function startPartStack(ctx: PartContext, o: StackOptions): Promise<PartStack> {
  const cleanups: (() => Promise<void>)[] = [];
  const stopAll = async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  };
  try {
    let temporal = o.on;
    let metricsUrl = '';
    if (!temporal) {
      const own = await startBenchTemporal({ ...ctx.serverDynamicConfig, ...o.dynamicConfig });
      cleanups.push(() => own.close());
      temporal = own;
      metricsUrl = own.metricsUrl;
    }
    const sim = await startSimulatorChild(o.latencyMs);
    cleanups.push(() => sim.stop());
    const taskQueue = partTaskQueue(o.name);
    const workers: WorkerHandle[] = [];
    const stopWorkers = async () => void (await Promise.all(workers.map((w) => w.stop())));
    cleanups.push(stopWorkers);
    const on = temporal;
    const addWorker = async (extras = o.worker, queue = taskQueue) => {
      // Each further account is a company of the simulator.
      for (const a of extras?.accounts ?? []) await sim.addCompany(a.company);
      const worker = await startWorker({
        ...workerStart(ctx, on, queue, sim.baseUrl),
        ...extras,
      });
      workers.push(worker);
      return worker;
    };
    for (let i = 0; i < (o.workers ?? 1); i++) await addWorker();
    const bookingsOn = (queue: string) =>
      new BookingClient({ client: on.client, taskQueue: queue, ...optional(o.workflow) });
    let stopping: Promise<void> | undefined;
    return {
      temporal,
      metricsUrl,
      sim,
      taskQueue,
      workers,
      bookings: bookingsOn(taskQueue),
      bookingsOn,
      startWorker: addWorker,
      stopWorkers,
      stop: () => (stopping ??= stopAll()),
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
}

const optional = (workflow: BookingWorkflow | undefined) => (workflow ? { workflow } : {});

/** A worker of the run (compiled, bundle, options) on `taskQueue` of `temporal`. */
function workerStart(
  ctx: PartContext,
  temporal: Pick<BenchTarget, 'address' | 'temporalEnv'>,
  taskQueue: string,
  supplierUrl: string,
): WorkerStart {
  return {
    address: temporal.address,
    temporalEnv: temporal.temporalEnv,
    taskQueue,
    supplierUrl,
    bundlePath: ctx.bundlePath,
    overrides: ctx.overrides,
    compiled: ctx.compiledWorker,
    nodeArgs: ctx.workerNodeArgs,
  };
}

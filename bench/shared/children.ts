/**
 * The processes a part drives: the simulated supplier and the booking worker, each in a child
 * process of its own (its own event loop, its own `/proc/<pid>`), driven over IPC (child-ipc.ts).
 * The worker child is the compiled worker on plain node (compiled-worker.ts), with the image's V8
 * flags; for the eager-start experiment it runs in the bench's own process instead.
 */
import { join } from 'node:path';
import type { NativeConnection, WorkerOptions } from '@temporalio/worker';
import { workerNodeFlags } from '../../src/build-worker';
import { freePort } from '../../tools/temporal-server/dev-server';
import type { CompanyFaultPatch, RequestStats } from '../../tools/simulator';
import { ChildHandle } from './child-ipc';
import type { CompiledWorker } from './compiled-worker';
import { supplierAccountsJson, type BenchAccount, type BenchCompany } from './supplier';
import { startBenchWorker, type BenchWorkerInit, type SupplierCap } from './worker';

export interface SimulatorChild {
  readonly baseUrl: string;
  readonly pid: number;
  setLatency(ms: number): Promise<void>;
  bookings(): Promise<number>;
  /** The simulator's request counts. */
  requests(): Promise<RequestStats>;
  /** When the first price check of each option id arrived (epoch ms), or null: none yet. */
  priceCheckArrivals(optionIds: readonly string[]): Promise<(number | null)[]>;
  /** Adds a company (a supplier account's), active; a known key is left as it is. */
  addCompany(company: BenchCompany): Promise<void>;
  /** Sets (`{ hang: true }`) or clears (`null`) a company's own faults. */
  setCompanyFaults(key: string, patch: CompanyFaultPatch | null): Promise<void>;
  /** Requests hanging now, by company key. */
  hangingRequests(): Promise<Record<string, number>>;
  /** Requests that authenticated as the company `key` so far, however answered. */
  companyRequests(key: string): Promise<number>;
  stop(): Promise<void>;
}

export async function startSimulatorChild(latencyMs: number): Promise<SimulatorChild> {
  const child = await ChildHandle.fork(join(__dirname, 'sim-child.ts'));
  const baseUrl = await child.request<string>('baseUrl');
  await child.request('setLatency', latencyMs);
  return {
    baseUrl,
    pid: child.pid,
    setLatency: async (ms) => void (await child.request('setLatency', ms)),
    bookings: () => child.request<number>('bookings'),
    requests: () => child.request<RequestStats>('requests'),
    priceCheckArrivals: (optionIds) =>
      child.request<(number | null)[]>('priceCheckArrivals', optionIds),
    addCompany: async (company) => void (await child.request('addCompany', company)),
    setCompanyFaults: async (key, patch) =>
      void (await child.request('setCompanyFaults', { key, patch })),
    hangingRequests: () => child.request<Record<string, number>>('hangingRequests'),
    companyRequests: (key) => child.request<number>('companyRequests', key),
    stop: () => child.stop(),
  };
}

export interface WorkerHandle {
  /** The worker's process (the bench's own when in process). */
  readonly pid: number;
  /** Set when the worker runs in the bench's process (eager start needs it). */
  readonly nativeConnection: NativeConnection | undefined;
  /** The SDK's Prometheus endpoint of the worker process, when it has one. */
  readonly metricsUrl: string | undefined;
  takeLateness(): Promise<number[]>;
  /** When the polls returned by the last {@link WorkerHandle.takeLateness} started (epoch ms). */
  takeLatenessTimes(): Promise<number[]>;
  /** `process.memoryUsage()` of the worker process. */
  memory(): Promise<NodeJS.MemoryUsage>;
  /** Stops the worker; a second call does nothing. */
  stop(): Promise<void>;
}

/** What a worker is started with: where, on which task queue, and what it runs. */
export interface WorkerStart {
  readonly address: string;
  readonly taskQueue: string;
  readonly supplierUrl: string;
  readonly bundlePath: string;
  readonly overrides: Partial<WorkerOptions>;
  /** `TEMPORAL_TLS_*` variables of the connection (the cluster's mTLS). */
  readonly temporalEnv?: Readonly<Record<string, string>>;
  readonly inProcess?: boolean;
  /** The compiled worker child the process runs (compiled-worker.ts). */
  readonly compiled: CompiledWorker;
  /** Extra node arguments of the worker process (e.g. `--cpu-prof`). */
  readonly nodeArgs?: readonly string[];
  /** Order events on, to this endpoint. */
  readonly orderEvents?: { readonly url: string; readonly secret: string };
  /** A supplier cap as users set it (worker.ts). */
  readonly supplierCap?: SupplierCap;
  /** Supplier accounts besides the default one, at `supplierUrl` (`SUPPLIER_ACCOUNTS`). */
  readonly accounts?: readonly BenchAccount[];
}

/** Calls `stop` once, however often the returned function is called. */
function once(stop: () => Promise<void>): () => Promise<void> {
  let stopping: Promise<void> | undefined;
  return () => (stopping ??= stop());
}

/** The worker in the bench's own process, from the sources (eager start needs that). */
async function startInProcess(init: BenchWorkerInit): Promise<WorkerHandle> {
  const w = await startBenchWorker(init);
  return {
    pid: process.pid,
    nativeConnection: w.connection,
    metricsUrl: undefined,
    takeLateness: () => Promise.resolve(w.takeLateness()),
    takeLatenessTimes: () => Promise.resolve(w.takeLatenessTimes()),
    memory: () => Promise.resolve(process.memoryUsage()),
    stop: once(() => w.stop()),
  };
}

/**
 * Starts a worker, by default in a child process of plain node running the compiled worker (as
 * production runs `node dist/worker.js`), with its own Prometheus metrics port; `inProcess` runs
 * it from the sources in the bench's own process.
 */
export async function startWorker(s: WorkerStart): Promise<WorkerHandle> {
  const init: BenchWorkerInit = {
    address: s.address,
    taskQueue: s.taskQueue,
    supplierUrl: s.supplierUrl,
    bundlePath: s.bundlePath,
    overrides: s.overrides,
    ...(s.temporalEnv ? { temporalEnv: s.temporalEnv } : {}),
    ...(s.orderEvents ? { orderEvents: s.orderEvents } : {}),
    ...(s.supplierCap ? { supplierCap: s.supplierCap } : {}),
    ...(s.accounts ? { supplierAccounts: supplierAccountsJson(s.accounts, s.supplierUrl) } : {}),
  };
  if (s.inProcess) return startInProcess(init);
  const metricsPort = await freePort();
  // The worker's V8 flags on its command line, as the image sets them (NODE_OPTIONS), then the run's.
  const nodeArgs = [...workerNodeFlags(), ...(s.nodeArgs ?? [])];
  const child = await ChildHandle.fork(s.compiled.module, nodeArgs, s.compiled.env);
  try {
    await child.request('start', { ...init, metricsPort });
  } catch (err) {
    await child.stop();
    throw err;
  }
  return {
    pid: child.pid,
    nativeConnection: undefined,
    metricsUrl: `http://127.0.0.1:${metricsPort}/metrics`,
    takeLateness: () => child.request<number[]>('takeLateness'),
    takeLatenessTimes: () => child.request<number[]>('takeLatenessTimes'),
    memory: () => child.request<NodeJS.MemoryUsage>('memory'),
    stop: once(() => child.stop()),
  };
}

/**
 * What each bench part starts for itself: a Temporal dev server on a fresh SQLite file (WAL,
 * headless, the realistic local setup), the simulator in a child process, a worker in a child
 * process, and a client with the product's data converter. Everything is stopped and the temp
 * directory (with the DB) dropped by `close()`.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import type { NativeConnection, WorkerOptions } from '@temporalio/worker';
import { freePort, startDevServer, type DevServer } from '../tools/temporal-server/dev-server';
import { bundleWorkflows } from '../src/workflow-bundle';
import { BENCH_WORKFLOWS_PATH } from './control';
import type { RequestStats } from '../tools/simulator';
import { ChildHandle } from './child-ipc';
import {
  benchDataConverter,
  startBenchWorker,
  type BenchWorker,
  type SupplierCap,
} from './bench-worker';
import type { CompiledWorker } from './compiled-worker';
import { temporalConnectionOptions } from '../src/client/connection-options';
import { workerNodeFlags } from '../src/build-worker';

/**
 * Bundles the workflows once for the whole bench run, the way production does at image build
 * time (`bundleWorkflows`: the failure converter compiled in), and returns the bundle's path.
 */
export async function bundleOnce(dir: string): Promise<string> {
  const { code } = await bundleWorkflows(BENCH_WORKFLOWS_PATH);
  const path = join(dir, 'workflow-bundle.js');
  writeFileSync(path, code);
  return path;
}

/** A Temporal service a part runs against: the bench's dev server or the cluster (bench/cluster.ts). */
export interface BenchTarget {
  readonly address: string;
  readonly client: Client;
  /** The `TEMPORAL_TLS_*` variables a worker process connects with (none for the dev server). */
  readonly temporalEnv: Readonly<Record<string, string>>;
  /** The server's processes, by name, whose CPU a part reports. */
  readonly serverPids: Readonly<Record<string, number>>;
  /**
   * Processes whose CPU counts with all their descendants' (PostgreSQL: the postmaster and a
   * backend per connection), by name; reported beside {@link serverPids}.
   */
  readonly serverProcessTrees?: Readonly<Record<string, number>>;
}

export interface BenchTemporal extends BenchTarget {
  readonly server: DevServer;
  /** The server's own Prometheus endpoint. */
  readonly metricsUrl: string;
  close(): Promise<void>;
}

/**
 * A dev server on a fresh SQLite file in a temp dir, and a client to it. `dynamicConfig` goes over
 * the product's (a baseline without one of its settings, an experiment).
 */
export async function startBenchTemporal(
  dynamicConfig: Readonly<Record<string, string>> = {},
): Promise<BenchTemporal> {
  const dir = mkdtempSync(join(tmpdir(), 'hbo-bench-'));
  const server = await startDevServer({
    headless: true,
    dbFile: join(dir, 'temporal.db'),
    dynamicConfig,
  });
  const connection = await Connection.connect(
    temporalConnectionOptions({ address: server.address }),
  );
  const client = new Client({ connection, dataConverter: benchDataConverter() });
  return {
    server,
    address: server.address,
    temporalEnv: {},
    serverPids: server.pid !== undefined ? { server: server.pid } : {},
    metricsUrl: server.metricsUrl,
    client,
    async close() {
      await connection.close();
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface SimulatorChild {
  readonly baseUrl: string;
  readonly pid: number;
  setLatency(ms: number): Promise<void>;
  bookings(): Promise<number>;
  /** The simulator's request counts. */
  requests(): Promise<RequestStats>;
  /** When the first price check of each option id arrived (epoch ms), or null: none yet. */
  priceCheckArrivals(optionIds: readonly string[]): Promise<(number | null)[]>;
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
  stop(): Promise<void>;
}

export interface WorkerStart {
  readonly address: string;
  readonly taskQueue: string;
  readonly supplierUrl: string;
  readonly bundlePath: string;
  readonly overrides: Partial<WorkerOptions>;
  /** `TEMPORAL_TLS_*` variables of the connection (the cluster's mTLS). */
  readonly temporalEnv?: Readonly<Record<string, string>>;
  readonly inProcess?: boolean;
  /** The compiled worker child the process runs (bench/compiled-worker.ts). */
  readonly compiled: CompiledWorker;
  /** Extra node arguments of the worker process (e.g. `--cpu-prof`). */
  readonly nodeArgs?: readonly string[];
  /** Order events on, to this endpoint. */
  readonly orderEvents?: { readonly url: string; readonly secret: string };
  /** A supplier cap as users set it (bench-worker.ts). */
  readonly supplierCap?: SupplierCap;
}

/**
 * What every part's worker takes from the run: the compiled worker, its workflow bundle, worker
 * options, node arguments.
 */
export interface PartWorkerContext {
  readonly compiledWorker: CompiledWorker;
  readonly bundlePath: string;
  readonly overrides: Partial<WorkerOptions>;
  readonly workerNodeArgs: readonly string[];
}

/** A part's worker on `taskQueue` of `temporal`, calling the simulator at `supplierUrl`. */
export function partWorker(
  ctx: PartWorkerContext,
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

/**
 * Starts a worker, by default in a child process of plain node running the compiled worker (as
 * production runs `node dist/worker.js`), with its own Prometheus metrics port; `inProcess` runs
 * it from the sources in the bench's own process (eager start needs that).
 */
export async function startWorker(s: WorkerStart): Promise<WorkerHandle> {
  const init = {
    address: s.address,
    taskQueue: s.taskQueue,
    supplierUrl: s.supplierUrl,
    bundlePath: s.bundlePath,
    overrides: s.overrides,
    ...(s.temporalEnv ? { temporalEnv: s.temporalEnv } : {}),
    ...(s.orderEvents ? { orderEvents: s.orderEvents } : {}),
    ...(s.supplierCap ? { supplierCap: s.supplierCap } : {}),
  };
  if (s.inProcess) {
    const w: BenchWorker = await startBenchWorker(init);
    return {
      pid: process.pid,
      nativeConnection: w.connection,
      metricsUrl: undefined,
      takeLateness: () => Promise.resolve(w.takeLateness()),
      takeLatenessTimes: () => Promise.resolve(w.takeLatenessTimes()),
      memory: () => Promise.resolve(process.memoryUsage()),
      stop: () => w.stop(),
    };
  }
  const metricsPort = await freePort();
  // The worker's V8 flags on its command line, as the image sets them (NODE_OPTIONS), then the run's.
  const nodeArgs = [...workerNodeFlags(), ...(s.nodeArgs ?? [])];
  const child = await ChildHandle.fork(s.compiled.module, nodeArgs, s.compiled.env);
  await child.request('start', { ...init, metricsPort });
  return {
    pid: child.pid,
    nativeConnection: undefined,
    metricsUrl: `http://127.0.0.1:${metricsPort}/metrics`,
    takeLateness: () => child.request<number[]>('takeLateness'),
    takeLatenessTimes: () => child.request<number[]>('takeLatenessTimes'),
    memory: () => child.request<NodeJS.MemoryUsage>('memory'),
    stop: () => child.stop(),
  };
}

/** VmRSS of a process, in MiB (Linux `/proc/<pid>/status`). */
export function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
  if (!m) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(m[1]) / 1024;
}

/**
 * The fields of `/proc/<pid>/stat` after the command name (`state` is [0], `ppid` [1]); undefined
 * when the process is gone.
 */
export function statFields(pid: number | string): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** utime + stime of a process, in seconds (`/proc/<pid>/stat`, in clock ticks of 10 ms). */
export function cpuSeconds(pid: number): number {
  const f = statFields(pid);
  return f ? (Number(f[11]) + Number(f[12])) / 100 : NaN;
}

/**
 * CPU seconds of a process and all its descendants: each live one's utime + stime, plus the
 * cutime + cstime of each (its children that ended and were waited for), so a backend that ends
 * between two readings still counts. NaN when the root is gone.
 */
export function treeCpuSeconds(root: number): number {
  const children = new Map<number, number[]>();
  const fields = new Map<number, string[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const f = statFields(name);
    if (!f) continue;
    const pid = Number(name);
    fields.set(pid, f);
    const parent = Number(f[1]);
    const siblings = children.get(parent);
    if (siblings) siblings.push(pid);
    else children.set(parent, [pid]);
  }
  if (!fields.has(root)) return NaN;
  let ticks = 0;
  const todo = [root];
  for (let pid = todo.pop(); pid !== undefined; pid = todo.pop()) {
    const f = fields.get(pid)!;
    ticks += Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
    todo.push(...(children.get(pid) ?? []));
  }
  return ticks / 100;
}

/** The samples of metric `name` in a Prometheus text: each one's label text and value. */
function* metricSamples(text: string, name: string): Generator<{ labels: string; value: number }> {
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const m = /^([a-zA-Z_:][\w:]*)(\{([^}]*)\})?\s+(\S+)/.exec(line);
    if (m && m[1] === name) yield { labels: m[3] ?? '', value: Number(m[4]) };
  }
}

/** Parses Prometheus text: the sum of a metric's samples whose labels include `match`. */
export function metricSum(text: string, name: string, match: Record<string, string> = {}): number {
  let sum = 0;
  for (const { labels, value } of metricSamples(text, name)) {
    if (Object.entries(match).every(([k, v]) => labels.includes(`${k}="${v}"`))) sum += value;
  }
  return sum;
}

/**
 * The samples of metric `name` in a Prometheus text, summed by the value of their label `by`
 * (samples without it are left out): e.g. `persistence_requests` by `operation`.
 */
export function metricSumsBy(text: string, name: string, by: string): Map<string, number> {
  const sums = new Map<string, number>();
  const label = new RegExp(`(?:^|,)${by}="([^"]*)"`);
  for (const { labels, value } of metricSamples(text, name)) {
    const key = label.exec(labels)?.[1];
    if (key !== undefined) sums.set(key, (sums.get(key) ?? 0) + value);
  }
  return sums;
}

export async function scrape(url: string | undefined): Promise<string> {
  if (!url) return '';
  try {
    const res = await fetch(url);
    return await res.text();
  } catch {
    return '';
  }
}

/**
 * What `npm run bench` measures and how long: defaults for the full and the `--quick` run, each
 * overridable by an environment knob. The bench's entry point (run.ts) is the only reader of
 * `process.env` and argv; every part receives plain numbers.
 */
import {
  BOOK_ROOM_AND_GUARD_WORKFLOW,
  BOOK_ROOM_WORKFLOW,
  type BookingWorkflow,
} from '../src/client';
import { DEFAULT_POLLING } from '../src/config/defaults';
import type { HotelApiConfig } from '../src/hotel-api/client';
import { durationToMs } from '../src/shared/duration';

/** The supplier account the bench's simulator accepts and its clients sign with. */
export const BENCH_COMPANY = { key: 'bench-key', secret: 'bench-secret-0123456789' } as const;

/** The hotel API client configuration of the worker and of the direct-call baseline. */
export function benchHotelApiConfig(baseUrl: string): HotelApiConfig {
  return {
    baseUrl,
    key: BENCH_COMPANY.key,
    secret: BENCH_COMPANY.secret,
    // The production defaults (src/config/).
    timeouts: { bookingMs: 120_000, readMs: 15_000, searchMs: 15_000 },
    clockCorrection: true,
    maxConnections: 64,
  };
}

export const PARTS = [
  'promises',
  'overhead',
  'throughput',
  'events',
  'work',
  'scale',
  'ahead',
  'client',
  'simulator',
  'cluster',
] as const;
export type Part = (typeof PARTS)[number];

export interface BenchSettings {
  readonly quick: boolean;
  readonly parts: readonly Part[];
  /** Where the results go ({@link outputFor}). */
  readonly output: string;
  readonly overhead: {
    /** Sequential bookRoom runs per latency, each paired with one direct-call run. */
    readonly runs: number;
    /** Simulated supplier latencies, ms. @default [20, 100] */
    readonly latenciesMs: readonly number[];
    /** Runs of each kind before measuring (JIT, connections, caches). */
    readonly warmupRuns: number;
    /** Start with `requestEagerStart` (needs the worker in the bench's own process). */
    readonly eagerStart: boolean;
    /** Run the worker in the bench's process instead of a child process. */
    readonly workerInProcess: boolean;
    /** Bookings handed to their guard after CONFIRMED, as the product runs (`BENCH_GUARD=0`: not). */
    readonly guard: boolean;
    /** The workflow the bookings start (`BENCH_WORKFLOW`), the client's default unless set. */
    readonly workflow: BookingWorkflow;
  };
  readonly throughput: {
    /** Measured time per workflow type, ms (split in two halves, ABBA order). */
    readonly durationMs: number;
    /** Workflows in flight at once. */
    readonly concurrency: number;
    readonly latencyMs: number;
    readonly warmupMs: number;
    /** As `overhead.guard`. */
    readonly guard: boolean;
    /** As `overhead.workflow`. */
    readonly workflow: BookingWorkflow;
  };
  /** Server work per confirmed booking beside the two-activity control (bench/server-work.ts). */
  readonly work: BenchSettings['throughput'] & {
    /** Rounds of one window of each kind (a window is half of `durationMs`). */
    readonly rounds: number;
    /** Bookings and controls run one at a time, alternating, for the latency figure. */
    readonly sequentialRuns: number;
    /**
     * The worker runs as users run it, with a supplier cap (`SUPPLIER_MAX_CALLS_PER_SECOND`, high
     * enough not to bind: it turns the SDK's eager activity dispatch off) and a local budget per
     * worker (`SUPPLIER_LOCAL_CALLS_PER_SECOND`); a cap of 0 runs without either.
     */
    readonly supplierCap: { readonly perSecond: number; readonly localPerWorker: number };
  };
  readonly scale: {
    /** Bookings left waiting for confirmation at once. */
    readonly workflows: number;
    /**
     * While the population is built, at most this many bookings are between "started" and
     * "booked at the supplier" (then waiting): bookings arrive as fast as the system takes them,
     * not as a flood that queues workflow tasks for longer than their timeouts.
     */
    readonly rampInFlight: number;
    /**
     * First poll delay after the booking's first poll, ms; each next one 1.5 × longer up to the
     * cap. The product's default polling unless `BENCH_SCALE_POLL_MS` says otherwise.
     */
    readonly pollInitialMs: number;
    /** Poll delay cap, ms. */
    readonly pollMaximumMs: number;
    /**
     * Between the end of the build and the watch, ms: building runs the server flat out, so polls
     * fall behind then, and the backlog is drained here (its lateness is reported on its own).
     */
    readonly settleMs: number;
    /** How long the open population is watched once built and settled, ms. */
    readonly observeMs: number;
    /**
     * Then the sustainable rate, probed on the standing population: new bookings at rising
     * rates, a step of this length each, ms (bench/scale-probe.ts).
     */
    readonly probeStepMs: number;
    /**
     * Then the paced build: as many bookings again on a fresh server and worker, started evenly at
     * this fraction of the sustainable rate the probe measured, and the minute after it (0: none).
     * @default 0.8
     */
    readonly pacedFraction: number;
    readonly latencyMs: number;
    /** Histories scanned for `WorkflowTaskTimedOut` (all of them when ≥ workflows). */
    readonly historySample: number;
    /** Where to save the server's Prometheus metrics at the end (`BENCH_SERVER_METRICS_FILE`). */
    readonly serverMetricsFile: string | undefined;
  };
  /** Bookings ahead of polls: new bookings while a population's polls are all due (bench/ahead.ts). */
  readonly ahead: {
    /** Waiting bookings, each with a poll due when the new bookings start. */
    readonly workflows: number;
    /** Their poll interval, ms (also how long the worker is stopped so that all fall due). */
    readonly pollMs: number;
    /** New bookings started, at a steady rate. */
    readonly newBookings: number;
    readonly newBookingsPerSecond: number;
    readonly latencyMs: number;
  };
  readonly client: { readonly durationMs: number; readonly concurrency: number };
  readonly simulator: { readonly durationMs: number; readonly concurrency: number };
  /** The cluster part (bench/cluster.ts): the throughput and overhead parts on the cluster. */
  readonly cluster: {
    /** Worker process counts, one throughput pass each. @default [1, 2, 3] */
    readonly workers: readonly number[];
    readonly throughput: BenchSettings['throughput'];
    /** Overhead on the cluster, one worker process (latencies: 20 ms by default). */
    readonly overhead: BenchSettings['overhead'];
    /** Alternating rounds of the one-worker throughput pass (more workers: one ABBA pair). */
    readonly rounds: number;
    /** The cluster's base port; a free block by default. */
    readonly basePort: number | undefined;
    /** Server nodes of the pass set beside one node's (1: none). @default 3 */
    readonly nodes: number;
  };
  /** Extra `WorkerOptions` for experiments, JSON (`BENCH_WORKER_OVERRIDES`). */
  readonly workerOverrides: Record<string, unknown>;
  /**
   * Dynamic config of the bench's dev servers over the product's, for experiments
   * (`BENCH_SERVER_DYNAMIC_CONFIG`, `key=value` pairs separated by spaces, values as JSON).
   */
  readonly serverDynamicConfig: Readonly<Record<string, string>>;
  /** A prebuilt workflow bundle to run instead of bundling now (`BENCH_BUNDLE_PATH`). */
  readonly bundlePath: string | undefined;
  /** Extra node arguments of worker processes (`BENCH_WORKER_NODE_ARGS`, spaces). */
  readonly workerNodeArgs: readonly string[];
  /** Worker processes run the TypeScript sources through tsx, not the compiled worker (A/B only). */
  readonly workerFromSources: boolean;
}

function num(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a non-negative number`);
  return n;
}

/** A count of at least one (rounds): a whole number ≥ 1. */
function count(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const n = num(env, name, fallback);
  if (!Number.isInteger(n) || n < 1)
    throw new Error(`${name} must be a whole number of at least 1`);
  return n;
}

function flag(env: NodeJS.ProcessEnv, name: string): boolean {
  return env[name] === '1' || env[name] === 'true';
}

/**
 * Settings from argv (`--quick`) and the environment:
 *
 * | knob | meaning | full | quick |
 * |---|---|---|---|
 * | `BENCH_PARTS` | comma list of parts to run | all | all |
 * | `BENCH_OVERHEAD_RUNS` | paired runs per latency | 200 | 30 |
 * | `BENCH_OVERHEAD_LATENCIES_MS` | supplier latencies | 20,100 | 20,100 |
 * | `BENCH_DURATION_MS` | throughput time per workflow type | 60000 | 10000 |
 * | `BENCH_CONCURRENCY` | throughput workflows in flight | 50 | 50 |
 * | `BENCH_LATENCY_MS` | supplier latency, throughput and scale | 20 | 20 |
 * | `BENCH_WORK_ROUNDS` | rounds of the work part (a window of each kind) | 5 | 5 |
 * | `BENCH_WORK_DURATION_MS` | work part time per round and kind (two windows' worth) | 24000 | 8000 |
 * | `BENCH_WORK_SUPPLIER_CAP` | work part: the worker's `SUPPLIER_MAX_CALLS_PER_SECOND` (0: no cap) | 1000 | 1000 |
 * | `BENCH_WORK_LOCAL_CALLS` | work part: the worker's `SUPPLIER_LOCAL_CALLS_PER_SECOND` | 200 | 200 |
 * | `BENCH_SCALE_WORKFLOWS` | bookings open at once | 10000 | 500 |
 * | `BENCH_SCALE_POLL_MS` | poll delays `initial,maximum` | the product's: 5000,300000 | the same |
 * | `BENCH_SCALE_SETTLE_MS` | pause between building and watching | the poll cap | 10000 |
 * | `BENCH_SCALE_OBSERVE_MS` | watch time once all are open | 120000 | 10000 |
 * | `BENCH_SCALE_RAMP_IN_FLIGHT` | bookings started, not yet booked | 50 | 50 |
 * | `BENCH_SCALE_PROBE_STEP_MS` | each step of the sustainable rate's probe | 60000 | 10000 |
 * | `BENCH_SCALE_PACED_FRACTION` | the paced build's rate ÷ the sustainable rate (0: no paced build) | 0.8 | 0.8 |
 * | `BENCH_AHEAD_WORKFLOWS` | waiting bookings with a poll due (ahead part) | 10000 | 100 |
 * | `BENCH_AHEAD_POLL_MS` | their poll interval (the worker's pause) | 60000 | 5000 |
 * | `BENCH_AHEAD_BOOKINGS` | new bookings started meanwhile | 100 | 10 |
 * | `BENCH_AHEAD_RATE` | new bookings started per second | 5 | 5 |
 * | `BENCH_WORKER_OVERRIDES` | JSON `WorkerOptions` for experiments | none | none |
 * | `BENCH_SERVER_DYNAMIC_CONFIG` | the dev servers' dynamic config over the product's (`key=value …`) | none | none |
 * | `BENCH_BUNDLE_PATH` | a prebuilt workflow bundle, for experiments | bundled now | same |
 * | `BENCH_WORKER_NODE_ARGS` | extra node arguments of the worker process | none | none |
 * | `BENCH_WORKER_FROM_SOURCES` | `1`: the worker from the sources through tsx (A/B; figures are compiled) | off | off |
 * | `BENCH_EAGER_START` / `BENCH_WORKER_IN_PROCESS` | overhead experiments | off | off |
 * | `BENCH_GUARD` | `0`: bookings without their guard (diagnosis only; figures are with it) | on | on |
 * | `BENCH_WORKFLOW` | the bookings' workflow type: `bookRoom` or its earlier name `bookRoomAndGuard` (the same workflow) | bookRoom | same |
 * | `BENCH_CLUSTER_WORKERS` | worker processes of each cluster throughput pass | 1,2,3 | 1 |
 * | `BENCH_CLUSTER_DURATION_MS` | cluster throughput: two windows' time (one of each kind) | `BENCH_DURATION_MS` | same |
 * | `BENCH_CLUSTER_ROUNDS` | rounds of the one-worker cluster pass (a window of each kind) | 5 | 3 |
 * | `BENCH_CLUSTER_OVERHEAD_RUNS` | cluster overhead paired runs per latency | `BENCH_OVERHEAD_RUNS` | same |
 * | `BENCH_CLUSTER_LATENCIES_MS` | cluster overhead supplier latencies | 20 | 20 |
 * | `BENCH_CLUSTER_BASE_PORT` | cluster base port | a free block | same |
 * | `BENCH_CLUSTER_NODES` | server nodes of the one-worker pass set beside one node's (1: none) | 3 | 3 |
 * | `BENCH_OUTPUT` | results file | bench/results/latest.json | bench/results/quick.tmp.json |
 */
/** The bench's results directory: the full run's `latest.json`, the load drills' files. */
export const RESULTS_DIR = 'bench/results';

/**
 * Where a run writes its results: only a full run of every part replaces `latest.json` (the
 * committed figures); a `--quick` run writes `quick.tmp.json`, a run of some parts
 * `partial.tmp.json` (both ignored by git), `BENCH_OUTPUT` wins.
 */
export function outputFor(
  quick: boolean,
  parts: readonly string[],
  env: NodeJS.ProcessEnv,
): string {
  if (env.BENCH_OUTPUT) return env.BENCH_OUTPUT;
  if (parts.join(',') !== PARTS.join(',')) return `${RESULTS_DIR}/partial.tmp.json`;
  return quick ? `${RESULTS_DIR}/quick.tmp.json` : `${RESULTS_DIR}/latest.json`;
}

export function settingsFrom(argv: readonly string[], env: NodeJS.ProcessEnv): BenchSettings {
  const quick = argv.includes('--quick');
  const parts = (env.BENCH_PARTS ?? PARTS.join(','))
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
  for (const p of parts) {
    if (!(PARTS as readonly string[]).includes(p)) {
      throw new Error(`BENCH_PARTS: unknown part ${p} (known: ${PARTS.join(', ')})`);
    }
  }
  const latencies = (env.BENCH_OVERHEAD_LATENCIES_MS ?? '20,100').split(',').map(Number);
  if (latencies.some((l) => !Number.isFinite(l) || l < 0)) {
    throw new Error('BENCH_OVERHEAD_LATENCIES_MS must be a comma list of milliseconds');
  }
  const productPolling = [DEFAULT_POLLING.initialInterval, DEFAULT_POLLING.maximumInterval]
    .map((d) => durationToMs(d))
    .join(',');
  const poll = (env.BENCH_SCALE_POLL_MS ?? productPolling).split(',').map(Number);
  const [pollInitialMs = NaN, pollMaximumMs = pollInitialMs] = poll;
  if (!(pollInitialMs > 0 && pollMaximumMs >= pollInitialMs)) {
    throw new Error('BENCH_SCALE_POLL_MS must be `initial,maximum` in ms');
  }
  const eagerStart = flag(env, 'BENCH_EAGER_START');
  const guard = !(env.BENCH_GUARD === '0' || env.BENCH_GUARD === 'false');
  const workflow = (env.BENCH_WORKFLOW || BOOK_ROOM_WORKFLOW) as BookingWorkflow;
  if (workflow !== BOOK_ROOM_AND_GUARD_WORKFLOW && workflow !== BOOK_ROOM_WORKFLOW) {
    throw new Error(
      `BENCH_WORKFLOW must be ${BOOK_ROOM_AND_GUARD_WORKFLOW} or ${BOOK_ROOM_WORKFLOW} (got "${workflow}")`,
    );
  }
  const latencyMs = num(env, 'BENCH_LATENCY_MS', 20);
  const workflows = num(env, 'BENCH_SCALE_WORKFLOWS', quick ? 500 : 10_000);
  const list = (name: string, fallback: string) => {
    const values = (env[name] || fallback).split(',').map(Number);
    if (values.some((v) => !Number.isFinite(v) || v < 0)) {
      throw new Error(`${name} must be a comma list of non-negative numbers (got "${env[name]}")`);
    }
    return values;
  };
  const clusterWorkers = list('BENCH_CLUSTER_WORKERS', quick ? '1' : '1,2,3');
  if (clusterWorkers.some((w) => !Number.isInteger(w) || w < 1 || w > 16)) {
    throw new Error('BENCH_CLUSTER_WORKERS must be a comma list of whole numbers from 1 to 16');
  }
  const clusterNodes = Number(env.BENCH_CLUSTER_NODES || 3);
  if (!Number.isInteger(clusterNodes) || clusterNodes < 1 || clusterNodes > 5) {
    throw new Error('BENCH_CLUSTER_NODES must be a whole number from 1 to 5 (1: no comparison)');
  }
  const clusterBase = env.BENCH_CLUSTER_BASE_PORT
    ? num(env, 'BENCH_CLUSTER_BASE_PORT', 0)
    : undefined;
  let workerOverrides: Record<string, unknown> = {};
  if (env.BENCH_WORKER_OVERRIDES) {
    workerOverrides = JSON.parse(env.BENCH_WORKER_OVERRIDES) as Record<string, unknown>;
  }
  const overhead = {
    runs: num(env, 'BENCH_OVERHEAD_RUNS', quick ? 30 : 200),
    latenciesMs: latencies,
    warmupRuns: quick ? 5 : 10,
    eagerStart,
    // Eager start only works when the client shares the worker's NativeConnection.
    workerInProcess: eagerStart || flag(env, 'BENCH_WORKER_IN_PROCESS'),
    guard,
    workflow,
  };
  const throughput = {
    durationMs: num(env, 'BENCH_DURATION_MS', quick ? 10_000 : 60_000),
    concurrency: num(env, 'BENCH_CONCURRENCY', 50),
    latencyMs,
    warmupMs: quick ? 1_000 : 5_000,
    guard,
    workflow,
  };
  return {
    quick,
    parts: parts as Part[],
    output: outputFor(quick, parts, env),
    overhead,
    throughput,
    work: {
      ...throughput,
      durationMs: num(env, 'BENCH_WORK_DURATION_MS', quick ? 8_000 : 24_000),
      rounds: count(env, 'BENCH_WORK_ROUNDS', 5),
      sequentialRuns: quick ? 30 : 100,
      supplierCap: {
        perSecond: num(env, 'BENCH_WORK_SUPPLIER_CAP', 1_000),
        localPerWorker: num(env, 'BENCH_WORK_LOCAL_CALLS', 200),
      },
    },
    scale: {
      workflows,
      rampInFlight: num(env, 'BENCH_SCALE_RAMP_IN_FLIGHT', 50),
      pollInitialMs,
      pollMaximumMs,
      settleMs: num(env, 'BENCH_SCALE_SETTLE_MS', quick ? 10_000 : pollMaximumMs),
      observeMs: num(env, 'BENCH_SCALE_OBSERVE_MS', quick ? 10_000 : 120_000),
      probeStepMs: num(env, 'BENCH_SCALE_PROBE_STEP_MS', quick ? 10_000 : 60_000),
      pacedFraction: num(env, 'BENCH_SCALE_PACED_FRACTION', 0.8),
      latencyMs,
      historySample: num(env, 'BENCH_SCALE_HISTORY_SAMPLE', workflows),
      serverMetricsFile: env.BENCH_SERVER_METRICS_FILE || undefined,
    },
    ahead: {
      workflows: num(env, 'BENCH_AHEAD_WORKFLOWS', quick ? 100 : 10_000),
      pollMs: num(env, 'BENCH_AHEAD_POLL_MS', quick ? 5_000 : 60_000),
      newBookings: num(env, 'BENCH_AHEAD_BOOKINGS', quick ? 10 : 100),
      newBookingsPerSecond: Math.max(0.1, num(env, 'BENCH_AHEAD_RATE', 5)),
      latencyMs,
    },
    client: { durationMs: quick ? 1_500 : 5_000, concurrency: 16 },
    simulator: { durationMs: quick ? 1_500 : 5_000, concurrency: 32 },
    cluster: {
      workers: clusterWorkers,
      throughput: {
        ...throughput,
        durationMs: num(env, 'BENCH_CLUSTER_DURATION_MS', throughput.durationMs),
      },
      overhead: {
        ...overhead,
        runs: num(env, 'BENCH_CLUSTER_OVERHEAD_RUNS', overhead.runs),
        latenciesMs: list('BENCH_CLUSTER_LATENCIES_MS', '20'),
        // The cluster's workers are processes, as in production.
        eagerStart: false,
        workerInProcess: false,
      },
      rounds: count(env, 'BENCH_CLUSTER_ROUNDS', quick ? 3 : 5),
      basePort: clusterBase,
      nodes: clusterNodes,
    },
    workerOverrides,
    serverDynamicConfig: Object.fromEntries(
      (env.BENCH_SERVER_DYNAMIC_CONFIG ?? '')
        .split(' ')
        .filter((a) => a !== '')
        .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
    ),
    bundlePath: env.BENCH_BUNDLE_PATH || undefined,
    workerNodeArgs: (env.BENCH_WORKER_NODE_ARGS ?? '').split(' ').filter((a) => a !== ''),
    workerFromSources: flag(env, 'BENCH_WORKER_FROM_SOURCES'),
  };
}

/**
 * What `npm run bench` measures and how long: defaults for the full and the `--quick` run, each
 * overridable by an environment knob (every knob, its meaning and its full and quick values:
 * bench/README.md, "Knobs"). The bench's entry point (run.ts) is the only reader of `process.env`
 * and argv; every part receives plain numbers (settings.ts).
 */
import {
  BOOK_ROOM_AND_GUARD_WORKFLOW,
  BOOK_ROOM_WORKFLOW,
  type BookingWorkflow,
} from '../../src/client';
import { DEFAULT_POLLING } from '../../src/config/defaults';
import { durationToMs } from '../../src/shared/duration';
import { PARTS, type BenchSettings, type Part } from './settings';

export { PARTS, type BenchSettings, type Part } from './settings';

type Env = NodeJS.ProcessEnv;

function num(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a non-negative number`);
  return n;
}

/** A count of at least one (rounds): a whole number ≥ 1. */
function count(env: Env, name: string, fallback: number): number {
  const n = num(env, name, fallback);
  if (!Number.isInteger(n) || n < 1)
    throw new Error(`${name} must be a whole number of at least 1`);
  return n;
}

function flag(env: Env, name: string): boolean {
  return env[name] === '1' || env[name] === 'true';
}

/** A comma list of non-negative numbers. */
function list(env: Env, name: string, fallback: string): number[] {
  const values = (env[name] || fallback).split(',').map(Number);
  if (values.some((v) => !Number.isFinite(v) || v < 0)) {
    throw new Error(`${name} must be a comma list of non-negative numbers (got "${env[name]}")`);
  }
  return values;
}

/** The bench's results directory: the full run's `latest.json`, the load drills' files. */
export const RESULTS_DIR = 'bench/results';

/**
 * Where a run writes its results: only a full run of every part replaces `latest.json` (the
 * committed figures); a `--quick` run writes `quick.tmp.json`, a run of some parts
 * `partial.tmp.json` (both ignored by git), `BENCH_OUTPUT` wins.
 */
export function outputFor(quick: boolean, parts: readonly string[], env: Env): string {
  if (env.BENCH_OUTPUT) return env.BENCH_OUTPUT;
  if (parts.join(',') !== PARTS.join(',')) return `${RESULTS_DIR}/partial.tmp.json`;
  return quick ? `${RESULTS_DIR}/quick.tmp.json` : `${RESULTS_DIR}/latest.json`;
}

/** `BENCH_PARTS`: the parts to run, each a known one. */
function partsFrom(env: Env): Part[] {
  const parts = (env.BENCH_PARTS ?? PARTS.join(','))
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
  for (const p of parts) {
    if (!(PARTS as readonly string[]).includes(p)) {
      throw new Error(`BENCH_PARTS: unknown part ${p} (known: ${PARTS.join(', ')})`);
    }
  }
  return parts as Part[];
}

/** What the bookings are: with their guard or not (`BENCH_GUARD`), and their workflow type. */
function bookingsFrom(env: Env): { guard: boolean; workflow: BookingWorkflow } {
  const guard = !(env.BENCH_GUARD === '0' || env.BENCH_GUARD === 'false');
  const workflow = (env.BENCH_WORKFLOW || BOOK_ROOM_WORKFLOW) as BookingWorkflow;
  if (workflow !== BOOK_ROOM_AND_GUARD_WORKFLOW && workflow !== BOOK_ROOM_WORKFLOW) {
    throw new Error(
      `BENCH_WORKFLOW must be ${BOOK_ROOM_AND_GUARD_WORKFLOW} or ${BOOK_ROOM_WORKFLOW} (got "${workflow}")`,
    );
  }
  return { guard, workflow };
}

function overheadFrom(env: Env, quick: boolean): BenchSettings['overhead'] {
  const latenciesMs = (env.BENCH_OVERHEAD_LATENCIES_MS ?? '20,100').split(',').map(Number);
  if (latenciesMs.some((l) => !Number.isFinite(l) || l < 0)) {
    throw new Error('BENCH_OVERHEAD_LATENCIES_MS must be a comma list of milliseconds');
  }
  const eagerStart = flag(env, 'BENCH_EAGER_START');
  return {
    runs: num(env, 'BENCH_OVERHEAD_RUNS', quick ? 30 : 200),
    latenciesMs,
    warmupRuns: quick ? 5 : 10,
    eagerStart,
    // Eager start only works when the client shares the worker's NativeConnection.
    workerInProcess: eagerStart || flag(env, 'BENCH_WORKER_IN_PROCESS'),
    ...bookingsFrom(env),
  };
}

function throughputFrom(env: Env, quick: boolean): BenchSettings['throughput'] {
  return {
    durationMs: num(env, 'BENCH_DURATION_MS', quick ? 10_000 : 60_000),
    concurrency: num(env, 'BENCH_CONCURRENCY', 50),
    latencyMs: num(env, 'BENCH_LATENCY_MS', 20),
    warmupMs: quick ? 1_000 : 5_000,
    ...bookingsFrom(env),
  };
}

function accountsFrom(env: Env, quick: boolean): BenchSettings['accounts'] {
  return {
    rounds: count(env, 'BENCH_ACCOUNTS_ROUNDS', 5),
    bookings: count(env, 'BENCH_ACCOUNTS_BOOKINGS', quick ? 100 : 300),
    concurrency: count(env, 'BENCH_ACCOUNTS_CONCURRENCY', 20),
    hungSlots: count(env, 'BENCH_ACCOUNTS_HUNG_SLOTS', 4),
    capPerSecond: count(env, 'BENCH_ACCOUNTS_CAP', 10),
    capSeconds: count(env, 'BENCH_ACCOUNTS_CAP_SECONDS', quick ? 12 : 30),
    latencyMs: num(env, 'BENCH_LATENCY_MS', 20),
    ...bookingsFrom(env),
  };
}

function workFrom(env: Env, quick: boolean): BenchSettings['work'] {
  return {
    ...throughputFrom(env, quick),
    durationMs: num(env, 'BENCH_WORK_DURATION_MS', quick ? 8_000 : 24_000),
    rounds: count(env, 'BENCH_WORK_ROUNDS', 5),
    sequentialRuns: quick ? 30 : 100,
    supplierCap: {
      perSecond: num(env, 'BENCH_WORK_SUPPLIER_CAP', 1_000),
      localPerWorker: num(env, 'BENCH_WORK_LOCAL_CALLS', 200),
    },
  };
}

function scaleFrom(env: Env, quick: boolean): BenchSettings['scale'] {
  const productPolling = [DEFAULT_POLLING.initialInterval, DEFAULT_POLLING.maximumInterval]
    .map((d) => durationToMs(d))
    .join(',');
  const poll = (env.BENCH_SCALE_POLL_MS ?? productPolling).split(',').map(Number);
  const [pollInitialMs = NaN, pollMaximumMs = pollInitialMs] = poll;
  if (!(pollInitialMs > 0 && pollMaximumMs >= pollInitialMs)) {
    throw new Error('BENCH_SCALE_POLL_MS must be `initial,maximum` in ms');
  }
  const workflows = num(env, 'BENCH_SCALE_WORKFLOWS', quick ? 500 : 10_000);
  return {
    workflows,
    rampInFlight: num(env, 'BENCH_SCALE_RAMP_IN_FLIGHT', 50),
    pollInitialMs,
    pollMaximumMs,
    settleMs: num(env, 'BENCH_SCALE_SETTLE_MS', quick ? 10_000 : pollMaximumMs),
    observeMs: num(env, 'BENCH_SCALE_OBSERVE_MS', quick ? 10_000 : 120_000),
    probeStepMs: num(env, 'BENCH_SCALE_PROBE_STEP_MS', quick ? 10_000 : 60_000),
    pacedFraction: num(env, 'BENCH_SCALE_PACED_FRACTION', 0.8),
    latencyMs: num(env, 'BENCH_LATENCY_MS', 20),
    historySample: num(env, 'BENCH_SCALE_HISTORY_SAMPLE', workflows),
    serverMetricsFile: env.BENCH_SERVER_METRICS_FILE || undefined,
  };
}

function aheadFrom(env: Env, quick: boolean): BenchSettings['ahead'] {
  return {
    workflows: num(env, 'BENCH_AHEAD_WORKFLOWS', quick ? 100 : 10_000),
    pollMs: num(env, 'BENCH_AHEAD_POLL_MS', quick ? 5_000 : 60_000),
    newBookings: num(env, 'BENCH_AHEAD_BOOKINGS', quick ? 10 : 100),
    newBookingsPerSecond: Math.max(0.1, num(env, 'BENCH_AHEAD_RATE', 5)),
    latencyMs: num(env, 'BENCH_LATENCY_MS', 20),
  };
}

function clusterFrom(env: Env, quick: boolean): BenchSettings['cluster'] {
  const workers = list(env, 'BENCH_CLUSTER_WORKERS', quick ? '1' : '1,2,3');
  if (workers.some((w) => !Number.isInteger(w) || w < 1 || w > 16)) {
    throw new Error('BENCH_CLUSTER_WORKERS must be a comma list of whole numbers from 1 to 16');
  }
  const nodes = Number(env.BENCH_CLUSTER_NODES || 3);
  if (!Number.isInteger(nodes) || nodes < 1 || nodes > 5) {
    throw new Error('BENCH_CLUSTER_NODES must be a whole number from 1 to 5 (1: no comparison)');
  }
  const throughput = throughputFrom(env, quick);
  const overhead = overheadFrom(env, quick);
  return {
    workers,
    throughput: {
      ...throughput,
      durationMs: num(env, 'BENCH_CLUSTER_DURATION_MS', throughput.durationMs),
    },
    overhead: {
      ...overhead,
      runs: num(env, 'BENCH_CLUSTER_OVERHEAD_RUNS', overhead.runs),
      latenciesMs: list(env, 'BENCH_CLUSTER_LATENCIES_MS', '20'),
      // The cluster's workers are processes, as in production.
      eagerStart: false,
      workerInProcess: false,
    },
    rounds: count(env, 'BENCH_CLUSTER_ROUNDS', quick ? 3 : 5),
    basePort: env.BENCH_CLUSTER_BASE_PORT ? num(env, 'BENCH_CLUSTER_BASE_PORT', 0) : undefined,
    nodes,
  };
}

/** The knobs of experiments: worker options, server flags, a bundle, node arguments. */
function experimentsFrom(env: Env) {
  return {
    workerOverrides: env.BENCH_WORKER_OVERRIDES
      ? (JSON.parse(env.BENCH_WORKER_OVERRIDES) as Record<string, unknown>)
      : {},
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

/** Settings from argv (`--quick`) and the environment (bench/README.md, "Knobs"). */
export function settingsFrom(argv: readonly string[], env: Env): BenchSettings {
  const quick = argv.includes('--quick');
  const parts = partsFrom(env);
  return {
    quick,
    parts,
    output: outputFor(quick, parts, env),
    overhead: overheadFrom(env, quick),
    throughput: throughputFrom(env, quick),
    accounts: accountsFrom(env, quick),
    work: workFrom(env, quick),
    scale: scaleFrom(env, quick),
    ahead: aheadFrom(env, quick),
    client: { durationMs: quick ? 1_500 : 5_000, concurrency: 16 },
    simulator: { durationMs: quick ? 1_500 : 5_000, concurrency: 32 },
    cluster: clusterFrom(env, quick),
    ...experimentsFrom(env),
  };
}

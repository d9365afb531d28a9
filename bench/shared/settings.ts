/**
 * What a bench run is set to: its parts and, for each, its sizes and lengths (plain numbers; the
 * entry point, run.ts, reads them from argv and the environment through config.ts).
 */
import type { BookingWorkflow } from '../../src/client';

export const PARTS = [
  'promises',
  'overhead',
  'throughput',
  'events',
  'accounts',
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
  /** Supplier accounts (bench/accounts/): one hanging beside another; one account's cap. */
  readonly accounts: {
    /** Rounds of B alone and B while A hangs (the windows' order turns each round). */
    readonly rounds: number;
    /** Bookings through B in each window. */
    readonly bookings: number;
    /** B's bookings in flight. */
    readonly concurrency: number;
    /** A's `maxConcurrentCalls`: the slots its hung calls fill. */
    readonly hungSlots: number;
    /** The cap pass: C's `maxCallsPerSecond`. */
    readonly capPerSecond: number;
    /** The cap pass: seconds of calls at the cap it books for (two calls a booking at least). */
    readonly capSeconds: number;
    readonly latencyMs: number;
    /** As `overhead.guard`. */
    readonly guard: boolean;
    /** As `overhead.workflow`. */
    readonly workflow: BookingWorkflow;
  };
  /** Server work per confirmed booking beside the two-activity control (bench/work/). */
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
     * rates, a step of this length each, ms (bench/scale/probe.ts).
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
  /** Bookings ahead of polls: new bookings while a population's polls are all due (bench/ahead/). */
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
  /** The cluster part (bench/cluster/): the throughput and overhead parts on the cluster. */
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

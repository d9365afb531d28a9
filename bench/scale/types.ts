/** What the `scale` part reports (bench/scale/scale.ts). */
import type { SustainableRate } from './probe';

export interface ScaleResult {
  readonly openWorkflows: number;
  /** Worker VmRSS once started, before its first booking (after `STARTUP_SETTLE_MS`), MiB. */
  readonly startupRssMiB: number;
  /** The worker's main thread then: V8 heap used and total, external memory, MiB. */
  readonly startupMainThreadMiB: {
    readonly heapUsed: number;
    readonly heapTotal: number;
    readonly external: number;
  };
  /** Largest worker VmRSS seen while the population was open and waiting (the watch), MiB. */
  readonly workerRssMiB: number;
  /** Largest worker VmRSS while the population was built (bookings running flat out), MiB. */
  readonly buildRssMiB: number;
  readonly workflowTaskTimeouts: number;
  /** By timeout type (`TIMEOUT_TYPE_SCHEDULE_TO_START` = a sticky task nobody picked up in time). */
  readonly workflowTaskTimeoutTypes: Readonly<Record<string, number>>;
  /** Histories scanned for the count above. */
  readonly historiesScanned: number;
  readonly pollLatenessP99Ms: number;
  readonly pollLatenessP50Ms: number;
  readonly pollLatenessMaxMs: number;
  /** Polls by lateness: `≤100` ms, …, `>60000`. */
  readonly pollLatenessHistogram: Readonly<Record<string, number>>;
  /** Per 10 s of the watch window: `[polls, polls over 1 s late]` (stalls show as bursts). */
  readonly latePollsBy10s: readonly (readonly [number, number])[];
  /** Polls made during the watch window. */
  readonly polls: number;
  /** The first poll of each booking, made while the population was being built. */
  readonly rampPollLatenessP99Ms: number;
  /** Polls between the build and the watch: the build's backlog drained. */
  readonly settle: {
    readonly seconds: number;
    readonly polls: number;
    readonly pollLatenessP99Ms: number;
    /** Per 10 s of the settle window: `[polls, polls over 1 s late]`. */
    readonly latePollsBy10s: readonly (readonly [number, number])[];
  };
  /** Bookings started (and booked at the supplier) per second while building the population. */
  readonly rampBookingsPerSecond: number;
  /**
   * The build's rate over its last fifth, made while nearly the whole population already polls
   * (and its polls fall behind): the probe's ceiling.
   */
  readonly rampSustainedBookingsPerSecond: number;
  /** The sustainable rate, probed on the standing population. The paced build's pace is a fraction of it. */
  readonly sustainable: SustainableRate;
  readonly rampSeconds: number;
  readonly watchSeconds: number;
  readonly pollsPerSecond: number;
  /** CPU seconds per second while watching, by process (1 = one core busy). */
  readonly cpu: Readonly<Record<string, number>>;
  readonly pollIntervalMs: { readonly initial: number; readonly maximum: number };
  readonly serverRssMiB: number;
  /** The worker's main-thread V8 heap (activities, SDK plumbing); workflows run in another thread. */
  readonly workerMainThreadHeapMiB: number;
  /** Hints from the worker's own metrics. */
  readonly workerMetrics: Readonly<Record<string, number>>;
  /** The paced build, when it ran (`BENCH_SCALE_PACED_FRACTION` > 0). */
  readonly paced?: PacedBuild;
}

/**
 * The same population built again on a fresh stack, its starts spaced evenly at `ofSustainable` ×
 * the probed sustainable rate, and the settle window after it measured as the flat-out one's.
 */
export interface PacedBuild {
  /** Fraction of the sustainable rate the starts were paced at. */
  readonly ofSustainable: number;
  /** The pace asked: starts per second. */
  readonly startsPerSecond: number;
  /** Bookings booked per second over the build, as measured (below the pace if the cap bound). */
  readonly bookingsPerSecond: number;
  /** The build's length, s. */
  readonly seconds: number;
  /** Its own polls (each booking's first), p99 ms late. */
  readonly buildPollLatenessP99Ms: number;
  /** The settle window after the build (as long as the flat-out one's): its length, polls, p99. */
  readonly afterSeconds: number;
  readonly polls: number;
  readonly pollLatenessP99Ms: number;
  readonly pollLatenessP50Ms: number;
  /** Per 10 s of that window: `[polls, polls over 1 s late]`. */
  readonly latePollsBy10s: readonly (readonly [number, number])[];
  readonly workflowTaskTimeouts: number;
  readonly historiesScanned: number;
  /** Largest worker VmRSS while the paced population was built, MiB. */
  readonly buildRssMiB: number;
}

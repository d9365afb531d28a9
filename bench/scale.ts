/**
 * Scale: many bookings open at once, each waiting for a confirmation that never comes (simulator
 * scenario `pending-long`), polled by the product's polling pattern (one retrieve per activity
 * attempt, the retry policy as the schedule). Once the population is built, it is watched for a
 * while and the bench reports:
 *
 * - the worker's RSS (the worker runs in its own process, compiled, as production runs it:
 *   `/proc/<pid>/status` VmRSS) once started, before its first booking; the largest sample while
 *   the population is built; the largest while watching;
 * - workflow task timeouts: `WorkflowTaskTimedOut` events counted in the histories themselves
 *   (every open workflow by default, or a sample). The history is the ground truth: a timeout is
 *   decided by the server and the worker never sees it, so the worker's `temporal_workflow_task_*`
 *   metrics can only hint at one (they are reported beside it: schedule-to-start and execution
 *   latency, failures, cache evictions);
 * - poll lateness: each poll reports `Date.now() - currentAttemptScheduledTimestampMs` through the
 *   worker's `onPollLateness`; p99 over the watch window. Building the population runs the server
 *   flat out and polls fall behind meanwhile, so the ramp-up's polls and the settle window in
 *   which that backlog drains (one poll cap by default) are reported separately.
 *
 * Then a paced build (`paced`): as many bookings again on a fresh dev server, simulator and worker
 * (the first population's polls gone), started evenly at a fraction (0.8) of the rate the flat-out
 * build measured, and the poll lateness of the settle window after it: what an order system that
 * sends bookings at a sustainable rate leaves behind.
 *
 * Each dev server and its SQLite file are dropped afterwards, which ends the workflows.
 */
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { temporal as proto } from '@temporalio/proto';
import { BookingClient, type BookRoomInput } from '../src/client';
import type { BenchSettings } from './bench-config';
import { benchBookingInput } from './bookings';
import {
  cpuSeconds,
  metricSum,
  rssMiB,
  scrape,
  startBenchTemporal,
  startSimulatorChild,
  partWorker,
  startWorker,
  type PartWorkerContext,
  type SimulatorChild,
  type WorkerHandle,
} from './bench-stack';
import { round, sleep, summarize } from './stats';
import { buildWaitingPopulation, forEachLimit, type BuildProgress } from './waiting-population';

export interface ScaleResult {
  readonly openWorkflows: number;
  /** Worker VmRSS once started, before its first booking (after {@link STARTUP_SETTLE_MS}), MiB. */
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
 * The same population built again on a fresh stack, its starts spaced evenly at `ofFlatOut` × the
 * flat-out build's rate, and the settle window after it measured as the flat-out one's.
 */
export interface PacedBuild {
  /** Fraction of the flat-out build's rate the starts were paced at. */
  readonly ofFlatOut: number;
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

/** The run's worker (compiled, bundle, options) and its server arguments and log. */
export interface ScaleContext extends PartWorkerContext {
  readonly serverArgs: readonly string[];
  readonly log: (line: string) => void;
}

/** How long a started worker is left idle before its start-up RSS is read. */
const STARTUP_SETTLE_MS = 3_000;

const WFT_TIMED_OUT = proto.api.enums.v1.EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT;

/** Counts of `values` at or below each bound, and above the last. */
function histogram(values: readonly number[], bounds: readonly number[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const b of bounds) out[`≤${b}`] = 0;
  out[`>${bounds[bounds.length - 1]}`] = 0;
  for (const v of values) {
    const b = bounds.find((x) => v <= x);
    const key = b === undefined ? `>${bounds[bounds.length - 1]}` : `≤${b}`;
    out[key] = (out[key] ?? 0) + 1;
  }
  return out;
}

/** Per `bucketMs` since `start`: how many polls started, and how many of them over 1 s late. */
function latePollsOverTime(
  lateness: readonly number[],
  times: readonly number[],
  start: number,
  bucketMs: number,
): [number, number][] {
  const out: [number, number][] = [];
  lateness.forEach((late, i) => {
    const b = Math.max(0, Math.floor(((times[i] ?? start) - start) / bucketMs));
    while (out.length <= b) out.push([0, 0]);
    const bucket = out[b] as [number, number];
    bucket[0] += 1;
    if (late > 1_000) bucket[1] += 1;
  });
  return out;
}

/** One build's dev server, simulator and worker (started fresh), and a client on its task queue. */
interface ScaleStack {
  readonly temporal: Awaited<ReturnType<typeof startBenchTemporal>>;
  readonly sim: SimulatorChild;
  readonly worker: WorkerHandle;
  readonly taskQueue: string;
  readonly bookings: BookingClient;
  stop(): Promise<void>;
}

async function startScaleStack(s: BenchSettings['scale'], ctx: ScaleContext): Promise<ScaleStack> {
  const temporal = await startBenchTemporal(ctx.serverArgs);
  const sim = await startSimulatorChild(s.latencyMs);
  const taskQueue = `bench-scale-${randomUUID().slice(0, 8)}`;
  const worker = await startWorker(partWorker(ctx, temporal, taskQueue, sim.baseUrl));
  return {
    temporal,
    sim,
    worker,
    taskQueue,
    bookings: new BookingClient({ client: temporal.client, taskQueue }),
    async stop() {
      await worker.stop();
      await sim.stop();
      await temporal.close();
    },
  };
}

/** The part's population: bookings waiting for a confirmation that never comes, on its polls. */
function waitingInputs(s: BenchSettings['scale']): BookRoomInput[] {
  return Array.from({ length: s.workflows }, () =>
    benchBookingInput('pending-long', {
      polling: {
        initialInterval: s.pollInitialMs,
        maximumInterval: s.pollMaximumMs,
        backoffCoefficient: 1.5,
      },
      confirmationDeadline: '6h',
    }),
  );
}

/**
 * Builds the population on `stack` (flat out, or paced at `startsPerSecond`), sampling the
 * worker's RSS every second and logging progress every 15 s: the build's seconds and largest RSS.
 */
async function build(
  s: BenchSettings['scale'],
  ctx: ScaleContext,
  stack: ScaleStack,
  inputs: readonly BookRoomInput[],
  startsPerSecond?: number,
): Promise<{ seconds: number; rssMiB: number }> {
  const { worker } = stack;
  const t0 = performance.now();
  const progress: BuildProgress = { started: 0, booked: 0 };
  let buildRss = rssMiB(worker.pid);
  const rssSampler = setInterval(() => {
    buildRss = Math.max(buildRss, rssMiB(worker.pid));
  }, 1_000);
  const progressLog = setInterval(() => {
    void worker
      .memory()
      .then((m) =>
        ctx.log(
          `scale: ${progress.started} started, ${progress.booked} booked, worker RSS ${round(rssMiB(worker.pid))} MiB ` +
            `(main thread heap ${round(m.heapUsed / 2 ** 20)} MiB, external ${round(m.external / 2 ** 20)} MiB)`,
        ),
      );
  }, 15_000);
  try {
    await buildWaitingPopulation({
      inputs,
      rampInFlight: s.rampInFlight,
      bookings: stack.bookings,
      sim: stack.sim,
      progress,
      ...(startsPerSecond ? { startsPerSecond } : {}),
    });
  } finally {
    clearInterval(progressLog);
    clearInterval(rssSampler);
  }
  return { seconds: (performance.now() - t0) / 1000, rssMiB: buildRss };
}

/**
 * After a build: its own polls (each booking's first) once the last ones have run, then the
 * settle window's (`settleMs`, one poll cap by default), in which the build's backlog drains.
 */
async function settleAfterBuild(s: BenchSettings['scale'], worker: WorkerHandle) {
  // Let the last bookings' first polls run before separating the build from what follows.
  await sleep(Math.min(3_000, s.pollInitialMs / 2));
  const buildLateness = await worker.takeLateness();
  await worker.takeLatenessTimes();
  const startEpoch = Date.now();
  await sleep(s.settleMs);
  const lateness = await worker.takeLateness();
  const times = await worker.takeLatenessTimes();
  return {
    buildLateness,
    settle: {
      seconds: round(s.settleMs / 1000),
      polls: lateness.length,
      pollLatenessP99Ms: round(summarize(lateness).p99),
      pollLatenessP50Ms: round(summarize(lateness).p50),
      latePollsBy10s: latePollsOverTime(lateness, times, startEpoch, 10_000),
    },
  };
}

/** `WorkflowTaskTimedOut` events, by timeout type, in the histories of the first `sample` inputs. */
async function workflowTaskTimeouts(
  bookings: BookingClient,
  inputs: readonly BookRoomInput[],
  sample: number,
) {
  const scanned = inputs.slice(0, Math.min(sample, inputs.length));
  let count = 0;
  const types: Record<string, number> = {};
  await forEachLimit(scanned, 16, async (input) => {
    const history = await bookings.handle(input.orderId).fetchHistory();
    for (const e of history.events ?? []) {
      if (e.eventType !== WFT_TIMED_OUT) continue;
      count += 1;
      const type = e.workflowTaskTimedOutEventAttributes?.timeoutType ?? 0;
      const name = proto.api.enums.v1.TimeoutType[type] ?? String(type);
      types[name] = (types[name] ?? 0) + 1;
    }
  });
  return { count, types, scanned: scanned.length };
}

export async function runScaleBench(
  s: BenchSettings['scale'],
  ctx: ScaleContext,
): Promise<ScaleResult> {
  const flatOut = await runFlatOutBuild(s, ctx);
  if (!(s.pacedFraction > 0)) return flatOut;
  return { ...flatOut, paced: await runPacedBuild(s, ctx, flatOut.rampBookingsPerSecond) };
}

/**
 * The same population again on a fresh stack, paced at `pacedFraction` of the flat-out build's
 * rate, and the settle window after it.
 */
async function runPacedBuild(
  s: BenchSettings['scale'],
  ctx: ScaleContext,
  flatOutPerSecond: number,
): Promise<PacedBuild> {
  const startsPerSecond = flatOutPerSecond * s.pacedFraction;
  const stack = await startScaleStack(s, ctx);
  try {
    const inputs = waitingInputs(s);
    ctx.log(
      `scale: paced build, ${s.workflows} bookings at ${round(startsPerSecond)} starts/s ` +
        `(${s.pacedFraction} × ${flatOutPerSecond}/s) on a fresh server and worker`,
    );
    const built = await build(s, ctx, stack, inputs, startsPerSecond);
    ctx.log(`scale: paced, ${s.workflows} booked in ${round(built.seconds)} s`);
    const { buildLateness, settle } = await settleAfterBuild(s, stack.worker);
    ctx.log(
      `scale: paced, settled for ${settle.seconds} s, ${settle.polls} polls, ` +
        `lateness p99 ${settle.pollLatenessP99Ms} ms`,
    );
    const timeouts = await workflowTaskTimeouts(stack.bookings, inputs, s.historySample);
    return {
      ofFlatOut: s.pacedFraction,
      startsPerSecond: round(startsPerSecond),
      bookingsPerSecond: round(s.workflows / built.seconds),
      seconds: round(built.seconds),
      buildPollLatenessP99Ms: round(summarize(buildLateness).p99),
      afterSeconds: settle.seconds,
      polls: settle.polls,
      pollLatenessP99Ms: settle.pollLatenessP99Ms,
      pollLatenessP50Ms: settle.pollLatenessP50Ms,
      latePollsBy10s: settle.latePollsBy10s,
      workflowTaskTimeouts: timeouts.count,
      historiesScanned: timeouts.scanned,
      buildRssMiB: round(built.rssMiB),
    };
  } finally {
    await stack.stop();
  }
}

/** The population built as fast as the system takes it, settled, watched. */
async function runFlatOutBuild(s: BenchSettings['scale'], ctx: ScaleContext): Promise<ScaleResult> {
  const stack = await startScaleStack(s, ctx);
  const { temporal, sim, worker, taskQueue, bookings } = stack;
  try {
    await sleep(STARTUP_SETTLE_MS);
    const startupRss = rssMiB(worker.pid);
    const startupMemory = await worker.memory();
    ctx.log(
      `scale: worker RSS ${round(startupRss)} MiB once started (main thread heap ` +
        `${round(startupMemory.heapUsed / 2 ** 20)} of ${round(startupMemory.heapTotal / 2 ** 20)} MiB, ` +
        `external ${round(startupMemory.external / 2 ** 20)} MiB)`,
    );
    // --- build the population -------------------------------------------------------------------
    const inputs = waitingInputs(s);
    const built = await build(s, ctx, stack, inputs);
    const rampSeconds = built.seconds;
    ctx.log(`scale: ${s.workflows} booked in ${round(rampSeconds)} s`);

    // --- let the build's backlog of polls drain ------------------------------------------------
    const { buildLateness: rampLateness, settle } = await settleAfterBuild(s, worker);
    ctx.log(
      `scale: settled for ${settle.seconds} s, ${settle.polls} polls, ` +
        `lateness p99 ${settle.pollLatenessP99Ms} ms`,
    );

    // --- watch it -------------------------------------------------------------------------------
    const pids: Record<string, number> = {
      worker: worker.pid,
      simulator: sim.pid,
      ...(temporal.server.pid !== undefined ? { server: temporal.server.pid } : {}),
    };
    const cpu0 = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, cpuSeconds(pid)]));
    const watchStart = performance.now();
    const watchStartEpoch = Date.now();
    let maxRss = rssMiB(worker.pid);
    while (performance.now() - watchStart < s.observeMs) {
      await sleep(1_000);
      maxRss = Math.max(maxRss, rssMiB(worker.pid));
    }
    const watchSeconds = (performance.now() - watchStart) / 1000;
    const cpu = Object.fromEntries(
      Object.entries(pids).map(([k, pid]) => [
        k,
        round((cpuSeconds(pid) - (cpu0[k] ?? 0)) / watchSeconds),
      ]),
    );
    const lateness = await worker.takeLateness();
    const latenessTimes = await worker.takeLatenessTimes();
    const mainMemory = await worker.memory();
    const serverRss = temporal.server.pid !== undefined ? rssMiB(temporal.server.pid) : NaN;
    const late = summarize(lateness);
    ctx.log(
      `scale: ${lateness.length} polls in ${round(watchSeconds)} s, lateness p50 ${round(late.p50)} ` +
        `p99 ${round(late.p99)} max ${round(late.max)} ms, worker RSS ≤ ${round(maxRss)} MiB`,
    );

    // --- count what is open and scan histories ----------------------------------------------------
    const open = await temporal.client.workflow.count(
      `TaskQueue = '${taskQueue}' AND ExecutionStatus = 'Running' AND BookingPhase = 'AWAITING_CONFIRMATION'`,
    );
    const timeouts = await workflowTaskTimeouts(bookings, inputs, s.historySample);
    const metrics = await scrape(worker.metricsUrl);
    if (s.serverMetricsFile) writeFileSync(s.serverMetricsFile, await scrape(temporal.metricsUrl));
    const workerMetrics = {
      workflowTaskExecutionFailed: metricSum(metrics, 'temporal_workflow_task_execution_failed'),
      stickyCacheSize: metricSum(metrics, 'temporal_sticky_cache_size'),
      stickyCacheForcedEvictions: metricSum(metrics, 'temporal_sticky_cache_total_forced_eviction'),
      workflowTaskScheduleToStartOver1s:
        metricSum(metrics, 'temporal_workflow_task_schedule_to_start_latency_count') -
        metricSum(metrics, 'temporal_workflow_task_schedule_to_start_latency_bucket', {
          le: '1000',
        }),
      workflowTaskExecutionOver1s:
        metricSum(metrics, 'temporal_workflow_task_execution_latency_count') -
        metricSum(metrics, 'temporal_workflow_task_execution_latency_bucket', { le: '1000' }),
    };
    return {
      openWorkflows: open.count,
      startupRssMiB: round(startupRss),
      startupMainThreadMiB: {
        heapUsed: round(startupMemory.heapUsed / 2 ** 20),
        heapTotal: round(startupMemory.heapTotal / 2 ** 20),
        external: round(startupMemory.external / 2 ** 20),
      },
      workerRssMiB: round(maxRss),
      buildRssMiB: round(built.rssMiB),
      workflowTaskTimeouts: timeouts.count,
      workflowTaskTimeoutTypes: timeouts.types,
      historiesScanned: timeouts.scanned,
      pollLatenessP99Ms: round(late.p99),
      pollLatenessP50Ms: round(late.p50),
      pollLatenessMaxMs: round(late.max),
      pollLatenessHistogram: histogram(lateness, [100, 1_000, 5_000, 10_000, 20_000, 60_000]),
      latePollsBy10s: latePollsOverTime(lateness, latenessTimes, watchStartEpoch, 10_000),
      polls: lateness.length,
      rampPollLatenessP99Ms: round(summarize(rampLateness).p99),
      settle: {
        seconds: settle.seconds,
        polls: settle.polls,
        pollLatenessP99Ms: settle.pollLatenessP99Ms,
        latePollsBy10s: settle.latePollsBy10s,
      },
      rampBookingsPerSecond: round(s.workflows / rampSeconds),
      rampSeconds: round(rampSeconds),
      watchSeconds: round(watchSeconds),
      pollsPerSecond: round(lateness.length / watchSeconds),
      cpu,
      pollIntervalMs: { initial: s.pollInitialMs, maximum: s.pollMaximumMs },
      serverRssMiB: round(serverRss),
      workerMainThreadHeapMiB: round(mainMemory.heapUsed / 2 ** 20),
      workerMetrics,
    };
  } finally {
    await stack.stop();
  }
}

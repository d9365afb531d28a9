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
 * The dev server and its SQLite file are dropped afterwards, which ends the workflows.
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
} from './bench-stack';
import { round, sleep, summarize } from './stats';

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

/** Runs `fn` over `items` with at most `concurrency` at once. */
export async function forEachLimit<T>(
  items: readonly T[],
  concurrency: number,
  fn: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      while (next < items.length) {
        const item = items[next++] as T;
        await fn(item);
      }
    }),
  );
}

/** How far {@link buildWaitingPopulation} is: bookings started, and booked at the supplier. */
export interface BuildProgress {
  started: number;
  booked: number;
}

/**
 * Starts every booking of `inputs` (each waits for a confirmation that never comes) as fast as the
 * system takes them: at most `rampInFlight` between started and booked at the supplier (through
 * price check and booking, into the polling phase). Resolves once all are booked.
 */
export async function buildWaitingPopulation(o: {
  readonly inputs: readonly BookRoomInput[];
  readonly rampInFlight: number;
  readonly bookings: BookingClient;
  readonly sim: SimulatorChild;
  readonly progress?: BuildProgress;
}): Promise<void> {
  const p = o.progress ?? { started: 0, booked: 0 };
  const base = await o.sim.bookings();
  const deadline = performance.now() + Math.max(300_000, o.inputs.length * 200);
  let refreshed = 0;
  const refreshBooked = async () => {
    if (performance.now() - refreshed < 100) return;
    refreshed = performance.now();
    p.booked = (await o.sim.bookings()) - base;
  };
  await forEachLimit(o.inputs, o.rampInFlight, async (input) => {
    while (p.started - p.booked >= o.rampInFlight) {
      await sleep(50);
      await refreshBooked();
    }
    p.started += 1;
    await o.bookings.startBooking(input);
  });
  while (p.booked < o.inputs.length) {
    if (performance.now() > deadline) {
      throw new Error(`only ${p.booked} of ${o.inputs.length} bookings were made`);
    }
    await sleep(200);
    await refreshBooked();
  }
}

export async function runScaleBench(
  s: BenchSettings['scale'],
  ctx: ScaleContext,
): Promise<ScaleResult> {
  const temporal = await startBenchTemporal(ctx.serverArgs);
  const sim = await startSimulatorChild(s.latencyMs);
  const taskQueue = `bench-scale-${randomUUID().slice(0, 8)}`;
  const worker = await startWorker(partWorker(ctx, temporal, taskQueue, sim.baseUrl));
  const bookings = new BookingClient({ client: temporal.client, taskQueue });
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
    const inputs = Array.from({ length: s.workflows }, () =>
      benchBookingInput('pending-long', {
        polling: {
          initialInterval: s.pollInitialMs,
          maximumInterval: s.pollMaximumMs,
          backoffCoefficient: 1.5,
        },
        confirmationDeadline: '6h',
      }),
    );
    const rampStart = performance.now();
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
        bookings,
        sim,
        progress,
      });
    } finally {
      clearInterval(progressLog);
      clearInterval(rssSampler);
    }
    const rampSeconds = (performance.now() - rampStart) / 1000;
    ctx.log(`scale: ${s.workflows} booked in ${round(rampSeconds)} s`);
    // Let the last bookings' first polls run before separating ramp from steady state.
    await sleep(Math.min(3_000, s.pollInitialMs / 2));
    const rampLateness = await worker.takeLateness();
    await worker.takeLatenessTimes();

    // --- let the build's backlog of polls drain ------------------------------------------------
    const settleStartEpoch = Date.now();
    await sleep(s.settleMs);
    const settleLateness = await worker.takeLateness();
    const settleTimes = await worker.takeLatenessTimes();
    ctx.log(
      `scale: settled for ${round(s.settleMs / 1000)} s, ${settleLateness.length} polls, ` +
        `lateness p99 ${round(summarize(settleLateness).p99)} ms`,
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
    const sample = inputs.slice(0, Math.min(s.historySample, inputs.length));
    let timeouts = 0;
    const timeoutTypes: Record<string, number> = {};
    await forEachLimit(sample, 16, async (input) => {
      const history = await bookings.handle(input.orderId).fetchHistory();
      for (const e of history.events ?? []) {
        if (e.eventType !== WFT_TIMED_OUT) continue;
        timeouts += 1;
        const type = e.workflowTaskTimedOutEventAttributes?.timeoutType ?? 0;
        const name = proto.api.enums.v1.TimeoutType[type] ?? String(type);
        timeoutTypes[name] = (timeoutTypes[name] ?? 0) + 1;
      }
    });
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
      buildRssMiB: round(buildRss),
      workflowTaskTimeouts: timeouts,
      workflowTaskTimeoutTypes: timeoutTypes,
      historiesScanned: sample.length,
      pollLatenessP99Ms: round(late.p99),
      pollLatenessP50Ms: round(late.p50),
      pollLatenessMaxMs: round(late.max),
      pollLatenessHistogram: histogram(lateness, [100, 1_000, 5_000, 10_000, 20_000, 60_000]),
      latePollsBy10s: latePollsOverTime(lateness, latenessTimes, watchStartEpoch, 10_000),
      polls: lateness.length,
      rampPollLatenessP99Ms: round(summarize(rampLateness).p99),
      settle: {
        seconds: round(s.settleMs / 1000),
        polls: settleLateness.length,
        pollLatenessP99Ms: round(summarize(settleLateness).p99),
        latePollsBy10s: latePollsOverTime(settleLateness, settleTimes, settleStartEpoch, 10_000),
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
    await worker.stop();
    await sim.stop();
    await temporal.close();
  }
}

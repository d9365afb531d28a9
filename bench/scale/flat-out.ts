/**
 * The `scale` part's flat-out build: the population built as fast as the system takes it on a
 * fresh dev server, simulator and worker, settled, then watched (the worker's RSS, poll lateness,
 * CPU by process, open workflows, workflow task timeouts in the histories, the worker's metrics),
 * then the sustainable rate probed on it. `runFlatOutBuild` is the script; each step below it.
 */
import { writeFileSync } from 'node:fs';
import { metricSum, scrape } from '../shared/metrics';
import { cpuSeconds, rssMiB } from '../shared/processes';
import type { WorkerHandle } from '../shared/children';
import type { BenchSettings } from '../shared/settings';
import type { PartContext, PartStack } from '../shared/stack';
import { round, sleep, summarize } from '../shared/stats';
import { build, startScaleStack, waitingInputs, workerOf } from './build';
import { workflowTaskTimeouts } from './history-scan';
import { histogram, latePollsOverTime, settleAfterBuild } from './poll-lateness';
import { probeSustainableRate } from './probe';
import type { ScaleResult } from './types';

/** How long a started worker is left idle before its start-up RSS is read. */
const STARTUP_SETTLE_MS = 3_000;

const mib = (bytes: number) => round(bytes / 2 ** 20);

/** The population built as fast as the system takes it, settled, watched, then probed. */
export async function runFlatOutBuild(
  s: BenchSettings['scale'],
  ctx: PartContext,
): Promise<ScaleResult> {
  const stack = await startScaleStack(s, ctx);
  try {
    const startup = await startupMemory(ctx, workerOf(stack));
    const inputs = waitingInputs(s);
    const built = await build(s, ctx, stack, inputs);
    ctx.log(
      `scale: ${s.workflows} booked in ${round(built.seconds)} s, ` +
        `${round(built.sustainedPerSecond)}/s over the last fifth`,
    );
    const settled = await settleAfterBuild(s, workerOf(stack));
    const { settle } = settled;
    ctx.log(
      `scale: settled for ${settle.seconds} s, ${settle.polls} polls, ` +
        `lateness p99 ${settle.pollLatenessP99Ms} ms`,
    );
    const watched = await watch(s, ctx, stack);
    const open = await stack.temporal.client.workflow.count(
      `TaskQueue = '${stack.taskQueue}' AND ExecutionStatus = 'Running' AND BookingPhase = 'AWAITING_CONFIRMATION'`,
    );
    const timeouts = await workflowTaskTimeouts(stack.bookings, inputs, s.historySample);
    const workerMetrics = await workerHints(s, stack);
    const sustainable = await probeSustainableRate(s, ctx, stack, built.sustainedPerSecond);
    return {
      openWorkflows: open.count,
      ...startup,
      buildRssMiB: round(built.rssMiB),
      workflowTaskTimeouts: timeouts.count,
      workflowTaskTimeoutTypes: timeouts.types,
      historiesScanned: timeouts.scanned,
      ...watched,
      rampPollLatenessP99Ms: round(summarize(settled.buildLateness).p99),
      settle: {
        seconds: settle.seconds,
        polls: settle.polls,
        pollLatenessP99Ms: settle.pollLatenessP99Ms,
        latePollsBy10s: settle.latePollsBy10s,
      },
      rampBookingsPerSecond: round(s.workflows / built.seconds),
      rampSustainedBookingsPerSecond: round(built.sustainedPerSecond),
      sustainable,
      rampSeconds: round(built.seconds),
      pollIntervalMs: { initial: s.pollInitialMs, maximum: s.pollMaximumMs },
      workerMetrics,
    };
  } finally {
    await stack.stop();
  }
}

/** The idle worker's RSS and main-thread memory, `STARTUP_SETTLE_MS` after its start. */
async function startupMemory(ctx: PartContext, worker: WorkerHandle) {
  await sleep(STARTUP_SETTLE_MS);
  const startupRssMiB = round(rssMiB(worker.pid));
  const memory = await worker.memory();
  const startupMainThreadMiB = {
    heapUsed: mib(memory.heapUsed),
    heapTotal: mib(memory.heapTotal),
    external: mib(memory.external),
  };
  ctx.log(
    `scale: worker RSS ${startupRssMiB} MiB once started (main thread heap ` +
      `${startupMainThreadMiB.heapUsed} of ${startupMainThreadMiB.heapTotal} MiB, ` +
      `external ${startupMainThreadMiB.external} MiB)`,
  );
  return { startupRssMiB, startupMainThreadMiB };
}

/**
 * The waiting population watched for `observeMs`: the worker's largest RSS, each process's CPU,
 * and the lateness of the polls that started meanwhile.
 */
async function watch(s: BenchSettings['scale'], ctx: PartContext, stack: PartStack) {
  const { sim } = stack;
  const worker = workerOf(stack);
  const server = stack.temporal.serverPids.server;
  const pids: Record<string, number> = {
    worker: worker.pid,
    simulator: sim.pid,
    ...(server !== undefined ? { server } : {}),
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
  const late = summarize(lateness);
  ctx.log(
    `scale: ${lateness.length} polls in ${round(watchSeconds)} s, lateness p50 ${round(late.p50)} ` +
      `p99 ${round(late.p99)} max ${round(late.max)} ms, worker RSS ≤ ${round(maxRss)} MiB`,
  );
  return {
    workerRssMiB: round(maxRss),
    pollLatenessP99Ms: round(late.p99),
    pollLatenessP50Ms: round(late.p50),
    pollLatenessMaxMs: round(late.max),
    pollLatenessHistogram: histogram(lateness, [100, 1_000, 5_000, 10_000, 20_000, 60_000]),
    latePollsBy10s: latePollsOverTime(lateness, latenessTimes, watchStartEpoch, 10_000),
    polls: lateness.length,
    watchSeconds: round(watchSeconds),
    pollsPerSecond: round(lateness.length / watchSeconds),
    cpu,
    serverRssMiB: round(server !== undefined ? rssMiB(server) : NaN),
    workerMainThreadHeapMiB: mib(mainMemory.heapUsed),
  };
}

/** Hints from the worker's own metrics (and the server's, to a file when asked). */
async function workerHints(s: BenchSettings['scale'], stack: PartStack) {
  const metrics = await scrape(workerOf(stack).metricsUrl);
  if (s.serverMetricsFile) writeFileSync(s.serverMetricsFile, await scrape(stack.metricsUrl));
  return {
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
}

/**
 * The `scale` part's flat-out build: the population built as fast as the system takes it on a
 * fresh dev server, simulator and worker, settled, then watched (the worker's RSS, poll lateness,
 * CPU by process, open workflows, workflow task timeouts in the histories, the worker's metrics),
 * then the sustainable rate probed on it.
 */
import { writeFileSync } from 'node:fs';
import type { BenchSettings } from './bench-config';
import { cpuSeconds, metricSum, rssMiB, scrape } from './bench-stack';
import { workflowTaskTimeouts } from './history-scan';
import { histogram, latePollsOverTime, settleAfterBuild } from './poll-lateness';
import { probeSustainableRate } from './scale-probe';
import type { ScaleContext, ScaleResult } from './scale';
import { build, startScaleStack, waitingInputs } from './scale-stack';
import { round, sleep, summarize } from './stats';

/** How long a started worker is left idle before its start-up RSS is read. */
const STARTUP_SETTLE_MS = 3_000;

/** The population built as fast as the system takes it, settled, watched. */
export async function runFlatOutBuild(
  s: BenchSettings['scale'],
  ctx: ScaleContext,
): Promise<ScaleResult> {
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
    ctx.log(
      `scale: ${s.workflows} booked in ${round(rampSeconds)} s, ` +
        `${round(built.sustainedPerSecond)}/s over the last fifth`,
    );

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

    // --- the sustainable rate, stepped up on the standing population ---------------------------
    const sustainable = await probeSustainableRate(s, ctx, stack, built.sustainedPerSecond);
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
      rampSustainedBookingsPerSecond: round(built.sustainedPerSecond),
      sustainable,
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

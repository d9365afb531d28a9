/**
 * Orchestration overhead: the end-to-end time of a `bookRoom` that confirms at once (start →
 * result, through the product's `BookingClient`) against the same supplier calls (price check +
 * booking) made directly with the hotel API client, in sequential pairs whose order alternates so
 * both sides share the machine's noise. Reported per supplier latency as
 * `R = quantile(bookRoom) / quantile(direct)` at p50 and p99, plus the per-pair ratios.
 *
 * Each pair also runs the no-op control workflow (`controlNoop`: one workflow task, one no-op
 * activity, one closing task) start → result: the engine's own floor on this server and machine,
 * which no change to bookRoom can go below.
 */
import { outcomeUpdate } from '../src/shared/booking-messages';
import { randomUUID } from 'node:crypto';
import { Client, WorkflowIdConflictPolicy, WorkflowIdReusePolicy } from '@temporalio/client';
import { BookingClient } from '../src/client';
import { HotelApiClient } from '../src/hotel-api';
import {
  BOOK_ROOM_WORKFLOW,
  bookingWorkflowId,
  type BookRoomInput,
  type BookRoomResult,
} from '../src/shared/booking-contract';
import { benchHotelApiConfig, type BenchSettings } from './bench-config';
import { benchDataConverter } from './bench-worker';
import { NO_GUARD, benchBookingInput as bookingInput, directBooking } from './bookings';
import {
  metricSum,
  scrape,
  startBenchTemporal,
  startSimulatorChild,
  partWorker,
  startWorker,
  type PartWorkerContext,
  type BenchTarget,
  type BenchTemporal,
} from './bench-stack';
import { quantile, round, summarize, type Summary } from './stats';
import { meanSteps, runSteps, type Step } from './timeline';

export interface OverheadAtLatency {
  readonly latencyMs: number;
  readonly runs: number;
  /** p50(bookRoom ms) / p50(direct ms). */
  readonly p50: number;
  /** p99(bookRoom ms) / p99(direct ms). */
  readonly p99: number;
  /** Quantiles of the per-pair ratio bookRoom / direct. */
  readonly pairRatio: { readonly p50: number; readonly p99: number };
  readonly workflowMs: Summary;
  readonly directMs: Summary;
  /** p50 of bookRoom minus p50 of direct: what orchestration adds to a booking, in ms. */
  readonly addedMsP50: number;
  /** The no-op control workflow, start → result (the engine floor), ms. */
  readonly controlMs: Summary;
  /** (p50 direct + p50 control) / p50 direct: R if bookRoom cost the engine no more than the control. */
  readonly floorRp50: number;
  /** Where a bookRoom's time goes, mean ms per step over the sampled runs (bench/timeline.ts). */
  readonly workflowStepsMs: Record<Step, number>;
  /** The same for the no-op control workflow. */
  readonly controlStepsMs: Record<Step, number>;
  /** Means from the worker's own SDK metrics over the measured runs, ms (absent in process). */
  readonly workerMeansMs?: WorkerMeans;
}

/** What the worker's SDK reports, mean ms per task or call. */
export interface WorkerMeans {
  /** A bookRoom workflow task in the worker: activation handed to the sandbox, run, answered. */
  readonly bookRoomWorkflowTask: number;
  /** The same for the no-op control workflow: the SDK's own floor for a workflow task. */
  readonly controlWorkflowTask: number;
  /** The same for the guard a `bookRoom` hands over to (its first tasks; none with bookRoomAndGuard). */
  readonly guardWorkflowTask: number;
  /** The `RespondWorkflowTaskCompleted` call (the server recording a task), every workflow. */
  readonly respondWorkflowTaskCompleted: number;
  /** A bookRoom activity, the supplier call included. */
  readonly bookRoomActivity: number;
  /** The `RespondActivityTaskCompleted` call. */
  readonly respondActivityTaskCompleted: number;
}

/** Mean of a Prometheus histogram between two scrapes: Δsum / Δcount. */
function histogramMean(
  before: string,
  after: string,
  name: string,
  match: Record<string, string>,
): number {
  const d = (suffix: string) =>
    metricSum(after, `${name}_${suffix}`, match) - metricSum(before, `${name}_${suffix}`, match);
  return round(d('sum') / d('count'), 2);
}

const WFT_LATENCY = 'temporal_workflow_task_execution_latency';

function workerMeans(before: string, after: string, workflowType: string): WorkerMeans | undefined {
  if (!before || !after) return undefined;
  // The booking's workflow type: with bookRoomAndGuard, its tasks include the guard's first.
  const bookRoom = { workflow_type: workflowType };
  return {
    bookRoomWorkflowTask: histogramMean(before, after, WFT_LATENCY, bookRoom),
    controlWorkflowTask: histogramMean(before, after, WFT_LATENCY, {
      workflow_type: 'controlNoop',
    }),
    guardWorkflowTask: histogramMean(before, after, WFT_LATENCY, { workflow_type: 'guardBooking' }),
    respondWorkflowTaskCompleted: histogramMean(before, after, 'temporal_request_latency', {
      operation: 'RespondWorkflowTaskCompleted',
    }),
    bookRoomActivity: histogramMean(before, after, 'temporal_activity_execution_latency', bookRoom),
    respondActivityTaskCompleted: histogramMean(before, after, 'temporal_request_latency', {
      operation: 'RespondActivityTaskCompleted',
    }),
  };
}

/** Runs per latency whose histories are read for the step breakdown. */
const TIMELINE_SAMPLE = 50;

/** A measured run: its workflow id and when it was started and answered (epoch ms). */
interface Run {
  readonly workflowId: string;
  readonly startedAt: number;
  readonly resultAt: number;
}

/** The run's worker (compiled, bundle, options) and its server arguments and log. */
export interface OverheadContext extends PartWorkerContext {
  readonly serverDynamicConfig: Readonly<Record<string, string>>;
  readonly log: (line: string) => void;
}

function roundSummary(s: Summary): Summary {
  return {
    n: s.n,
    p50: round(s.p50),
    p90: round(s.p90),
    p99: round(s.p99),
    max: round(s.max),
    mean: round(s.mean),
  };
}

/**
 * `on`: run against this service (the caller starts and stops it; bench/cluster.ts) instead of
 * the part's own dev server.
 */
export async function runOverheadBench(
  settings: BenchSettings['overhead'],
  ctx: OverheadContext,
  on?: BenchTarget,
): Promise<Record<string, OverheadAtLatency>> {
  const own: BenchTemporal | undefined = on
    ? undefined
    : await startBenchTemporal(ctx.serverDynamicConfig);
  const temporal: BenchTarget = on ?? (own as BenchTemporal);
  const sim = await startSimulatorChild(settings.latenciesMs[0] ?? 0);
  const taskQueue = `bench-overhead-${randomUUID().slice(0, 8)}`;
  const worker = await startWorker({
    ...partWorker(ctx, temporal, taskQueue, sim.baseUrl),
    inProcess: settings.workerInProcess,
  });
  const direct = new HotelApiClient(benchHotelApiConfig(sim.baseUrl));
  const bookings = new BookingClient({
    client: temporal.client,
    taskQueue,
    workflow: settings.workflow,
  });
  const eagerClient =
    settings.eagerStart && worker.nativeConnection
      ? new Client({ connection: worker.nativeConnection, dataConverter: benchDataConverter() })
      : undefined;

  /** The runs just measured, for the step breakdown. */
  let lastWorkflowRun: Run | undefined;
  let lastControlRun: Run | undefined;

  /** One bookRoom, start to result; the product's client path unless eager start is on. */
  async function viaWorkflow(input: BookRoomInput): Promise<number> {
    const startedAt = Date.now();
    const t0 = performance.now();
    let result: BookRoomResult;
    if (eagerClient) {
      // What BookingClient.startBooking sends, plus requestEagerStart.
      const handle = await eagerClient.workflow.start(BOOK_ROOM_WORKFLOW, {
        taskQueue,
        workflowId: bookingWorkflowId(input.orderId),
        args: [input],
        workflowIdConflictPolicy: WorkflowIdConflictPolicy.FAIL,
        workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
        requestEagerStart: true,
      });
      result = await handle.executeUpdate(outcomeUpdate);
    } else {
      await bookings.startBooking(input);
      result = await bookings.result(input.orderId);
    }
    const ms = performance.now() - t0;
    lastWorkflowRun = {
      workflowId: bookingWorkflowId(input.orderId),
      startedAt,
      resultAt: Date.now(),
    };
    if (result.outcome !== 'CONFIRMED') {
      throw new Error(`bookRoom ${input.orderId} ended ${result.outcome}: ${result.reason ?? ''}`);
    }
    return ms;
  }

  async function viaControl(): Promise<number> {
    const startedAt = Date.now();
    const t0 = performance.now();
    const workflowId = `control-${randomUUID()}`;
    const handle = await (eagerClient ?? temporal.client).workflow.start('controlNoop', {
      taskQueue,
      workflowId,
      args: ['x'],
      ...(eagerClient ? { requestEagerStart: true } : {}),
    });
    await handle.result();
    const ms = performance.now() - t0;
    lastControlRun = { workflowId, startedAt, resultAt: Date.now() };
    return ms;
  }

  /** Mean ms per step of `runs`, from their histories. */
  async function steps(runs: readonly Run[]): Promise<Record<Step, number>> {
    const each = await Promise.all(
      runs.map(async (r) => {
        const history = await temporal.client.workflow.getHandle(r.workflowId).fetchHistory();
        return runSteps(history.events ?? [], r.startedAt, r.resultAt);
      }),
    );
    return meanSteps(each);
  }

  async function viaClient(input: BookRoomInput): Promise<number> {
    const t0 = performance.now();
    await directBooking(direct, input);
    return performance.now() - t0;
  }

  /** The bench's booking; without its guard only when `BENCH_GUARD=0` (diagnosis). */
  const benchBookingInput = (scenario: 'instant') =>
    bookingInput(scenario, settings.guard ? {} : NO_GUARD);

  const out: Record<string, OverheadAtLatency> = {};
  try {
    // Warm everything (JIT of worker, server and client; connections; caches) before any latency
    // is measured, so the first latency measured is not also the coldest.
    await sim.setLatency(0);
    for (let i = 0; i < settings.warmupRuns * 3; i++) {
      await viaWorkflow(benchBookingInput('instant'));
      await viaClient(benchBookingInput('instant'));
      await viaControl();
    }
    for (const latencyMs of settings.latenciesMs) {
      await sim.setLatency(latencyMs);
      for (let i = 0; i < settings.warmupRuns; i++) {
        await viaWorkflow(benchBookingInput('instant'));
        await viaClient(benchBookingInput('instant'));
        await viaControl();
      }
      const wf: number[] = [];
      const dc: number[] = [];
      const ctl: number[] = [];
      const wfRuns: Run[] = [];
      const ctlRuns: Run[] = [];
      const metricsBefore = await scrape(worker.metricsUrl);
      for (let i = 0; i < settings.runs; i++) {
        // Alternate the order so neither side always runs right after the other.
        if (i % 2 === 0) {
          wf.push(await viaWorkflow(benchBookingInput('instant')));
          dc.push(await viaClient(benchBookingInput('instant')));
        } else {
          dc.push(await viaClient(benchBookingInput('instant')));
          wf.push(await viaWorkflow(benchBookingInput('instant')));
        }
        ctl.push(await viaControl());
        if (i >= settings.runs - TIMELINE_SAMPLE && lastWorkflowRun && lastControlRun) {
          wfRuns.push(lastWorkflowRun);
          ctlRuns.push(lastControlRun);
        }
      }
      const means = workerMeans(metricsBefore, await scrape(worker.metricsUrl), settings.workflow);
      const pairs = wf.map((w, i) => w / (dc[i] as number));
      const workflowMs = summarize(wf);
      const directMs = summarize(dc);
      const controlMs = summarize(ctl);
      const r: OverheadAtLatency = {
        latencyMs,
        runs: settings.runs,
        p50: round(workflowMs.p50 / directMs.p50, 3),
        p99: round(workflowMs.p99 / directMs.p99, 3),
        pairRatio: { p50: round(quantile(pairs, 0.5), 3), p99: round(quantile(pairs, 0.99), 3) },
        workflowMs: roundSummary(workflowMs),
        directMs: roundSummary(directMs),
        addedMsP50: round(workflowMs.p50 - directMs.p50),
        controlMs: roundSummary(controlMs),
        floorRp50: round((directMs.p50 + controlMs.p50) / directMs.p50, 3),
        workflowStepsMs: await steps(wfRuns),
        controlStepsMs: await steps(ctlRuns),
        ...(means ? { workerMeansMs: means } : {}),
      };
      ctx.log(
        `overhead @${latencyMs} ms: R p50 ${r.p50} p99 ${r.p99} ` +
          `(bookRoom p50 ${r.workflowMs.p50} ms, direct p50 ${r.directMs.p50} ms, ` +
          `no-op control workflow p50 ${r.controlMs.p50} ms)`,
      );
      ctx.log(
        `overhead @${latencyMs} ms: bookRoom mean ms by step ${JSON.stringify(r.workflowStepsMs)}; ` +
          `control ${JSON.stringify(r.controlStepsMs)}; worker means ${JSON.stringify(means ?? {})}`,
      );
      out[`latency${latencyMs}`] = r;
    }
  } finally {
    await direct.close();
    await worker.stop();
    await sim.stop();
    await own?.close();
  }
  return out;
}

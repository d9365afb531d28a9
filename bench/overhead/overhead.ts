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
import { scrape } from '../shared/metrics';
import type { BenchSettings } from '../shared/settings';
import { startPartStack, type PartContext } from '../shared/stack';
import { quantile, round, summarize, type Summary } from '../shared/stats';
import type { BenchTarget } from '../shared/temporal';
import type { Step } from '../shared/timeline';
import { workerMeans, type WorkerMeans } from './means';
import { OverheadRuns, type Run } from './runs';

export type { WorkerMeans } from './means';

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
  /** Where a bookRoom's time goes, mean ms per step over the sampled runs (bench/shared/timeline.ts). */
  readonly workflowStepsMs: Record<Step, number>;
  /** The same for the no-op control workflow. */
  readonly controlStepsMs: Record<Step, number>;
  /** Means from the worker's own SDK metrics over the measured runs, ms (absent in process). */
  readonly workerMeansMs?: WorkerMeans;
}

/** Runs per latency whose histories are read for the step breakdown. */
const TIMELINE_SAMPLE = 50;

type Settings = BenchSettings['overhead'];

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

/** What the measured runs at one latency gave: each kind's ms, and the sampled runs. */
interface Measured {
  readonly workflow: number[];
  readonly direct: number[];
  readonly control: number[];
  readonly workflowRuns: Run[];
  readonly controlRuns: Run[];
}

/**
 * `settings.runs` measured pairs (booking and direct calls, their order alternating so neither
 * side always runs right after the other), each followed by a control run; the last runs of each
 * workflow kind are kept for their histories.
 */
async function measurePairs(settings: Settings, runs: OverheadRuns): Promise<Measured> {
  const m: Measured = { workflow: [], direct: [], control: [], workflowRuns: [], controlRuns: [] };
  for (let i = 0; i < settings.runs; i++) {
    if (i % 2 === 0) {
      m.workflow.push(await runs.viaWorkflow(runs.input()));
      m.direct.push(await runs.viaClient(runs.input()));
    } else {
      m.direct.push(await runs.viaClient(runs.input()));
      m.workflow.push(await runs.viaWorkflow(runs.input()));
    }
    m.control.push(await runs.viaControl());
    const { workflow, control } = runs.last;
    if (i >= settings.runs - TIMELINE_SAMPLE && workflow && control) {
      m.workflowRuns.push(workflow);
      m.controlRuns.push(control);
    }
  }
  return m;
}

/** The figures at one latency from its measured runs. */
async function atLatency(
  settings: Settings,
  latencyMs: number,
  m: Measured,
  runs: OverheadRuns,
  means: WorkerMeans | undefined,
): Promise<OverheadAtLatency> {
  const pairs = m.workflow.map((w, i) => w / (m.direct[i] as number));
  const workflowMs = summarize(m.workflow);
  const directMs = summarize(m.direct);
  const controlMs = summarize(m.control);
  return {
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
    workflowStepsMs: await runs.steps(m.workflowRuns),
    controlStepsMs: await runs.steps(m.controlRuns),
    ...(means ? { workerMeansMs: means } : {}),
  };
}

function logLatency(ctx: PartContext, r: OverheadAtLatency): void {
  const at = `overhead @${r.latencyMs} ms`;
  ctx.log(
    `${at}: R p50 ${r.p50} p99 ${r.p99} ` +
      `(bookRoom p50 ${r.workflowMs.p50} ms, direct p50 ${r.directMs.p50} ms, ` +
      `no-op control workflow p50 ${r.controlMs.p50} ms)`,
  );
  ctx.log(
    `${at}: bookRoom mean ms by step ${JSON.stringify(r.workflowStepsMs)}; ` +
      `control ${JSON.stringify(r.controlStepsMs)}; worker means ${JSON.stringify(r.workerMeansMs ?? {})}`,
  );
}

/**
 * `on`: run against this service (the caller starts and stops it; bench/cluster/) instead of
 * the part's own dev server.
 */
export async function runOverheadBench(
  settings: Settings,
  ctx: PartContext,
  on?: BenchTarget,
): Promise<Record<string, OverheadAtLatency>> {
  const stack = await startPartStack(ctx, {
    name: 'overhead',
    latencyMs: settings.latenciesMs[0] ?? 0,
    worker: { inProcess: settings.workerInProcess },
    workflow: settings.workflow,
    ...(on ? { on } : {}),
  });
  const runs = new OverheadRuns(settings, stack);
  const worker = stack.workers[0]!;
  const out: Record<string, OverheadAtLatency> = {};
  try {
    // Warm everything (JIT of worker, server and client; connections; caches) before any latency
    // is measured, so the first latency measured is not also the coldest.
    await stack.sim.setLatency(0);
    for (let i = 0; i < settings.warmupRuns * 3; i++) await runs.warm();
    for (const latencyMs of settings.latenciesMs) {
      await stack.sim.setLatency(latencyMs);
      for (let i = 0; i < settings.warmupRuns; i++) await runs.warm();
      const metricsBefore = await scrape(worker.metricsUrl);
      const measured = await measurePairs(settings, runs);
      const means = workerMeans(metricsBefore, await scrape(worker.metricsUrl), settings.workflow);
      const r = await atLatency(settings, latencyMs, measured, runs, means);
      logLatency(ctx, r);
      out[`latency${latencyMs}`] = r;
    }
  } finally {
    await runs.close();
    await stack.stop();
  }
  return out;
}

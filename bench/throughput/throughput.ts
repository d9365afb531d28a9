/**
 * Throughput: confirmed `bookRoom`s per second with `concurrency` in flight against a supplier of
 * fixed latency, beside a no-op control workflow on the same server, worker and run: `controlNoop`
 * (one no-op activity) by default, or `controlTwoStep` (two, the shape of a booking's price check
 * and booking call) where the target asks for it. The two alternate in rounds of one window each,
 * each half of `durationMs` long, the order turning every round (booking and control, then control
 * and booking: ABBA for the default two rounds), so slow drifts of the machine's load fall on both
 * alike; each round's ratio is kept, and their median and spread reported.
 *
 * Each window is measured inside a running pipeline: the loops run a warm-up first, and the count
 * is taken between two instants at which `concurrency` workflows are in flight, so neither the
 * ramp-up nor the drain is counted.
 *
 * Efficiency compares the server work done per second: events per workflow (from one sample
 * history of each type) × workflows per second, bookRoom over control. The dev server's ceiling is
 * in state transitions (history events are their visible part), so an efficiency near 1 means
 * bookRoom uses the engine as well as the simplest workflow can.
 */
import { randomUUID } from 'node:crypto';
import { NO_GUARD, benchBookingInput } from '../shared/bookings';
import { metricSum, scrape } from '../shared/metrics';
import { cpuSeconds, rssMiB, treeCpuSeconds } from '../shared/processes';
import type { BenchSettings } from '../shared/settings';
import { startPartStack, type PartContext, type PartStack } from '../shared/stack';
import { round } from '../shared/stats';
import {
  addWindow,
  emptyWindow,
  measureWindow,
  roundOrders,
  type Kind,
  type Window,
} from '../shared/windows';
import {
  roundOf,
  throughputResult,
  type ControlWorkflow,
  type ThroughputResult,
  type ThroughputRound,
  type ThroughputTarget,
} from './result';

export {
  msPerWorkflow,
  type ControlWorkflow,
  type ThroughputResult,
  type ThroughputRound,
  type ThroughputTarget,
} from './result';

type Settings = BenchSettings['throughput'];

/** CPU seconds so far of every process of the stack, by name (the bench is the client). */
function cpuReader(stack: PartStack): () => Record<string, number> {
  const pids: Record<string, number> = {
    bench: process.pid,
    ...Object.fromEntries(
      stack.workers.map((w, i) => [i === 0 ? 'worker' : `worker${i + 1}`, w.pid]),
    ),
    simulator: stack.sim.pid,
    ...stack.temporal.serverPids,
  };
  const trees = stack.temporal.serverProcessTrees ?? {};
  return () => ({
    ...Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, cpuSeconds(pid)])),
    ...Object.fromEntries(Object.entries(trees).map(([k, pid]) => [k, treeCpuSeconds(pid)])),
  });
}

/** One run of each kind, to completion; the first of each kind kept for its history's length. */
function runner(s: Settings, stack: PartStack, controlWorkflow: ControlWorkflow) {
  const samples: Partial<Record<Kind, string>> = {};
  return {
    samples,
    async one(kind: Kind): Promise<boolean> {
      if (kind === 'booking') {
        const input = benchBookingInput('instant', s.guard ? {} : NO_GUARD);
        const started = await stack.bookings.startBooking(input);
        const r = await stack.bookings.result(started);
        samples.booking ??= started.workflowId;
        return r.outcome === 'CONFIRMED';
      }
      const workflowId = `control-${randomUUID()}`;
      const handle = await stack.temporal.client.workflow.start(controlWorkflow, {
        taskQueue: stack.taskQueue,
        workflowId,
        args: ['x'],
      });
      await handle.result();
      samples.control ??= workflowId;
      return true;
    },
  };
}

/** The windows of each kind so far, and the CPU seconds of each kind's windows by process. */
interface Totals {
  readonly windows: Record<Kind, Window>;
  readonly cpu: Record<Kind, Record<string, number>>;
}

/** One window of `kind`; its CPU by process (s) is added to `cpuOfRound` and to `totals`. */
async function measureKind(
  s: Settings,
  ctx: PartContext,
  one: (kind: Kind) => Promise<boolean>,
  readCpu: () => Record<string, number>,
  kind: Kind,
  cpuOfRound: Record<string, number>,
  totals: Totals,
): Promise<Window> {
  let edge: Record<string, number> = {};
  const w = await measureWindow(() => one(kind), {
    concurrency: s.concurrency,
    warmupMs: s.warmupMs,
    ms: s.durationMs / 2,
    onFirstFailure: (err) => ctx.log(`throughput ${kind} failure: ${String(err)}`),
    onMeasure: (at) => {
      const now = readCpu();
      if (at === 'end') {
        for (const [k, v] of Object.entries(now)) {
          cpuOfRound[k] = (cpuOfRound[k] ?? 0) + v - (edge[k] ?? 0);
          totals.cpu[kind][k] = (totals.cpu[kind][k] ?? 0) + v - (edge[k] ?? 0);
        }
      }
      edge = now;
    },
  });
  ctx.log(`throughput ${kind}: ${round(w.completed / w.seconds)} /s over ${round(w.seconds)} s`);
  addWindow(totals.windows[kind], w);
  return w;
}

/** History events so far of workflow `id` (0 without one). */
async function historyLength(stack: PartStack, id: string | undefined): Promise<number> {
  if (!id) return 0;
  return (await stack.temporal.client.workflow.getHandle(id).fetchHistory()).events?.length ?? 0;
}

/** Workflow task executions the workers failed (logged: there should be none). */
async function logFailedTasks(ctx: PartContext, stack: PartStack): Promise<void> {
  let failed = 0;
  for (const w of stack.workers) {
    failed += metricSum(await scrape(w.metricsUrl), 'temporal_workflow_task_execution_failed');
  }
  if (failed > 0) ctx.log(`throughput: ${failed} workflow task executions failed`);
}

export async function runThroughputBench(
  s: Settings,
  ctx: PartContext,
  target?: ThroughputTarget,
): Promise<ThroughputResult> {
  const stack = await startPartStack(ctx, {
    name: 'throughput',
    latencyMs: s.latencyMs,
    workers: target?.workers ?? 1,
    workflow: s.workflow,
    ...(target ? { on: target.temporal } : {}),
  });
  try {
    const controlWorkflow = target?.control ?? 'controlNoop';
    const readCpu = cpuReader(stack);
    const cpu0 = readCpu();
    const t0 = performance.now();
    const run = runner(s, stack, controlWorkflow);
    const totals: Totals = {
      windows: { booking: emptyWindow(), control: emptyWindow() },
      cpu: { booking: {}, control: {} },
    };
    const rounds: ThroughputRound[] = [];
    for (const order of roundOrders(target?.rounds ?? 2)) {
      const cpuOfRound: Record<Kind, Record<string, number>> = { booking: {}, control: {} };
      const got = {} as Record<Kind, Window>;
      for (const kind of order) {
        got[kind] = await measureKind(s, ctx, run.one, readCpu, kind, cpuOfRound[kind], totals);
      }
      rounds.push(roundOf(got, cpuOfRound));
      ctx.log(`throughput round ${rounds.length}: ratio ${rounds[rounds.length - 1]!.ratio}`);
    }
    const elapsed = (performance.now() - t0) / 1000;
    const cpu1 = readCpu();
    const cpu = Object.fromEntries(
      Object.entries(cpu1).map(([k, v]) => [k, round((v - (cpu0[k] ?? 0)) / elapsed)]),
    );
    const workerRssMiB = Math.max(...stack.workers.map((w) => rssMiB(w.pid)));
    const events = {
      booking: await historyLength(stack, run.samples.booking),
      control: await historyLength(stack, run.samples.control),
    };
    await logFailedTasks(ctx, stack);
    return throughputResult(totals.windows, {
      concurrency: s.concurrency,
      latencyMs: s.latencyMs,
      events,
      cpu,
      kindCpu: totals.cpu,
      controlWorkflow,
      workers: stack.workers.length,
      workerRssMiB,
      rounds,
    });
  } finally {
    await stack.stop();
  }
}

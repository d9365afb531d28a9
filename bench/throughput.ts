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
import { BookingClient } from '../src/client';
import type { BenchSettings } from './bench-config';
import { NO_GUARD, benchBookingInput } from './bookings';
import {
  cpuSeconds,
  treeCpuSeconds,
  metricSum,
  rssMiB,
  scrape,
  startBenchTemporal,
  startSimulatorChild,
  partWorker,
  startWorker,
  type PartWorkerContext,
  type BenchTarget,
  type BenchTemporal,
  type WorkerHandle,
} from './bench-stack';
import { round, spread, summarize, type Spread } from './stats';
import { addWindow, emptyWindow, measureWindow, type Window } from './windows';

export interface ThroughputResult {
  readonly bookingsPerSecond: number;
  readonly controlWorkflowsPerSecond: number;
  /** (bookRoom events × bookings/s) / (control events × control workflows/s). */
  readonly efficiency: number;
  readonly bookingEventsPerWorkflow: number;
  readonly controlEventsPerWorkflow: number;
  readonly bookingEventsPerSecond: number;
  readonly controlEventsPerSecond: number;
  readonly concurrency: number;
  readonly latencyMs: number;
  /** Measured seconds per workflow type. */
  readonly seconds: number;
  /** bookRoom start→result at this load, ms. */
  readonly bookingLatencyMs: { readonly p50: number; readonly p99: number };
  readonly controlLatencyMs: { readonly p50: number; readonly p99: number };
  /** bookRoom runs that did not end CONFIRMED, or failed to start (should be 0). */
  readonly failures: number;
  /** CPU seconds per second, by process, over the whole part (1 = one core busy). */
  readonly cpu: Readonly<Record<string, number>>;
  /** The control workflow beside the bookings. */
  readonly controlWorkflow: ControlWorkflow;
  /**
   * CPU ms per workflow of each kind, by process and `all` (their sum): the CPU of the kind's
   * measured windows ÷ the workflows completed in them.
   */
  readonly cpuMsPerWorkflow: Readonly<Record<Kind, Readonly<Record<string, number>>>>;
  /** Worker processes on the task queue. */
  readonly workers: number;
  /** The largest worker's RSS at the end, MiB. */
  readonly workerRssMiB: number;
  /** Each round's figures, in order, and over rounds. */
  readonly rounds: readonly ThroughputRound[];
  /** Bookings/s ÷ control workflows/s: each round's, their median and spread. */
  readonly ratioOfRounds: Spread;
}

/** One round: a window of each kind. */
export interface ThroughputRound {
  readonly bookingsPerSecond: number;
  readonly controlWorkflowsPerSecond: number;
  readonly ratio: number;
  /** As {@link ThroughputResult.cpuMsPerWorkflow}, this round's windows only. */
  readonly cpuMsPerWorkflow: Readonly<Record<Kind, Readonly<Record<string, number>>>>;
}

/** The run's worker (compiled, bundle, options) and its server arguments and log. */
export interface ThroughputContext extends PartWorkerContext {
  readonly serverDynamicConfig: Readonly<Record<string, string>>;
  readonly log: (line: string) => void;
}

type Kind = 'booking' | 'control';
export type ControlWorkflow = 'controlNoop' | 'controlTwoStep';

/** Where a throughput run happens when it is not the part's own dev server (bench/cluster.ts). */
export interface ThroughputTarget {
  /** The service; the caller starts and stops it. */
  readonly temporal: BenchTarget;
  /** Worker processes on the task queue. @default 1 */
  readonly workers?: number;
  /** @default 'controlNoop' */
  readonly control?: ControlWorkflow;
  /** Rounds of one window of each kind. @default 2 (ABBA) */
  readonly rounds?: number;
}

/** The kinds' order in each of `rounds` rounds: AB, BA, AB, … Pure. */
export function roundOrders(rounds: number): (readonly [Kind, Kind])[] {
  return Array.from({ length: rounds }, (_, i) =>
    i % 2 === 0 ? (['booking', 'control'] as const) : (['control', 'booking'] as const),
  );
}

export async function runThroughputBench(
  s: BenchSettings['throughput'],
  ctx: ThroughputContext,
  target?: ThroughputTarget,
): Promise<ThroughputResult> {
  const own: BenchTemporal | undefined = target
    ? undefined
    : await startBenchTemporal(ctx.serverDynamicConfig);
  const temporal: BenchTarget = target?.temporal ?? (own as BenchTemporal);
  const sim = await startSimulatorChild(s.latencyMs);
  const taskQueue = `bench-throughput-${randomUUID().slice(0, 8)}`;
  const workers: WorkerHandle[] = [];
  const stopAll = async () => {
    await Promise.all(workers.map((w) => w.stop()));
    await sim.stop();
    await own?.close();
  };
  try {
    for (let i = 0; i < (target?.workers ?? 1); i++) {
      workers.push(await startWorker(partWorker(ctx, temporal, taskQueue, sim.baseUrl)));
    }
  } catch (err) {
    await stopAll();
    throw err;
  }
  const bookings = new BookingClient({
    client: temporal.client,
    taskQueue,
    workflow: s.workflow,
  });
  const controlWorkflow = target?.control ?? 'controlNoop';
  const pids: Record<string, number> = {
    bench: process.pid,
    ...Object.fromEntries(workers.map((w, i) => [i === 0 ? 'worker' : `worker${i + 1}`, w.pid])),
    simulator: sim.pid,
    ...temporal.serverPids,
  };
  const trees = temporal.serverProcessTrees ?? {};
  const readCpu = (): Record<string, number> => ({
    ...Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, cpuSeconds(pid)])),
    ...Object.fromEntries(Object.entries(trees).map(([k, pid]) => [k, treeCpuSeconds(pid)])),
  });
  const cpu0 = readCpu();
  const t0 = performance.now();
  let sampleBooking: string | undefined;
  let sampleControl: string | undefined;

  async function one(kind: Kind): Promise<boolean> {
    if (kind === 'booking') {
      const input = benchBookingInput('instant', s.guard ? {} : NO_GUARD);
      const started = await bookings.startBooking(input);
      const r = await bookings.result(input.orderId);
      sampleBooking ??= started.workflowId;
      return r.outcome === 'CONFIRMED';
    }
    const workflowId = `control-${randomUUID()}`;
    const handle = await temporal.client.workflow.start(controlWorkflow, {
      taskQueue,
      workflowId,
      args: ['x'],
    });
    await handle.result();
    sampleControl ??= workflowId;
    return true;
  }

  const totals: Record<Kind, Window> = { booking: emptyWindow(), control: emptyWindow() };
  const kindCpu: Record<Kind, Record<string, number>> = { booking: {}, control: {} };
  const rounds: ThroughputRound[] = [];
  /** One window of `kind`; its CPU by process (s) is added to `cpuOfRound`. */
  async function window(kind: Kind, cpuOfRound: Record<string, number>): Promise<Window> {
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
            kindCpu[kind][k] = (kindCpu[kind][k] ?? 0) + v - (edge[k] ?? 0);
          }
        }
        edge = now;
      },
    });
    ctx.log(`throughput ${kind}: ${round(w.completed / w.seconds)} /s over ${round(w.seconds)} s`);
    addWindow(totals[kind], w);
    return w;
  }
  try {
    for (const order of roundOrders(target?.rounds ?? 2)) {
      const cpuOfRound: Record<Kind, Record<string, number>> = { booking: {}, control: {} };
      const got: Partial<Record<Kind, Window>> = {};
      for (const kind of order) got[kind] = await window(kind, cpuOfRound[kind]);
      const b = got.booking!;
      const c = got.control!;
      const bookingsPerSecond = b.completed / b.seconds;
      const controlPerSecond = c.completed / c.seconds;
      rounds.push({
        bookingsPerSecond: round(bookingsPerSecond),
        controlWorkflowsPerSecond: round(controlPerSecond),
        ratio: round(bookingsPerSecond / controlPerSecond, 3),
        cpuMsPerWorkflow: {
          booking: msPerWorkflow(cpuOfRound.booking, b.completed),
          control: msPerWorkflow(cpuOfRound.control, c.completed),
        },
      });
      ctx.log(`throughput round ${rounds.length}: ratio ${rounds[rounds.length - 1]!.ratio}`);
    }
    const elapsed = (performance.now() - t0) / 1000;
    const cpu1 = readCpu();
    const cpu = Object.fromEntries(
      Object.entries(cpu1).map(([k, v]) => [k, round((v - (cpu0[k] ?? 0)) / elapsed)]),
    );
    const workerRss = Math.max(...workers.map((w) => rssMiB(w.pid)));
    const events = async (id: string | undefined) =>
      id ? ((await temporal.client.workflow.getHandle(id).fetchHistory()).events?.length ?? 0) : 0;
    const bookingEvents = await events(sampleBooking);
    const controlEvents = await events(sampleControl);
    const bookingsPerSecond = totals.booking.completed / totals.booking.seconds;
    const controlPerSecond = totals.control.completed / totals.control.seconds;
    let wftFailed = 0;
    for (const w of workers) {
      wftFailed += metricSum(await scrape(w.metricsUrl), 'temporal_workflow_task_execution_failed');
    }
    if (wftFailed > 0) ctx.log(`throughput: ${wftFailed} workflow task executions failed`);
    const b = summarize(totals.booking.latencies);
    const c = summarize(totals.control.latencies);
    return {
      bookingsPerSecond: round(bookingsPerSecond),
      controlWorkflowsPerSecond: round(controlPerSecond),
      efficiency: round(
        (bookingEvents * bookingsPerSecond) / (controlEvents * controlPerSecond),
        3,
      ),
      bookingEventsPerWorkflow: bookingEvents,
      controlEventsPerWorkflow: controlEvents,
      bookingEventsPerSecond: round(bookingEvents * bookingsPerSecond),
      controlEventsPerSecond: round(controlEvents * controlPerSecond),
      concurrency: s.concurrency,
      latencyMs: s.latencyMs,
      seconds: round(totals.booking.seconds),
      bookingLatencyMs: { p50: round(b.p50), p99: round(b.p99) },
      controlLatencyMs: { p50: round(c.p50), p99: round(c.p99) },
      failures: totals.booking.failures,
      cpu,
      controlWorkflow,
      cpuMsPerWorkflow: {
        booking: msPerWorkflow(kindCpu.booking, totals.booking.completed),
        control: msPerWorkflow(kindCpu.control, totals.control.completed),
      },
      workers: workers.length,
      workerRssMiB: round(workerRss),
      rounds,
      ratioOfRounds: spread(rounds.map((r) => r.ratio)),
    };
  } finally {
    await stopAll();
  }
}

/** CPU seconds by process over `completed` workflows: ms per workflow, and `all` (their sum). Pure. */
export function msPerWorkflow(
  seconds: Readonly<Record<string, number>>,
  completed: number,
): Record<string, number> {
  const per: [string, number][] = Object.entries(seconds).map(([k, v]) => [
    k,
    (v * 1000) / completed,
  ]);
  per.push(['all', per.reduce((sum, [, v]) => sum + v, 0)]);
  return Object.fromEntries(per.map(([k, v]) => [k, round(v, 1)]));
}

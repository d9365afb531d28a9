/**
 * Server work per confirmed booking (`work` part): a confirmed `bookRoom` with its guard, beside
 * its floor, the two-activity control (`controlTwoStep`: one workflow, two no-op activities, the
 * shape of the price check and the booking call), on one dev server, worker and simulator. Rounds
 * of one window of each, in alternating order; per window, the server process's CPU time over the
 * measured interval ÷ the workflows completed in it (steady state: the work of a booking's guard,
 * done a few tens of ms after its booking, falls in the same window or in the next window's
 * warm-up, never in a measured window of the other kind). Figures are the medians over rounds,
 * with their spread; history events per booking (bookRoom + its guard once it waits) from
 * sampled histories; latency one at a time, each booking's guard left to finish its first task
 * before the next run is timed.
 */
import { randomUUID } from 'node:crypto';
import { BookingClient } from '../src/client';
import type { BenchSettings } from './bench-config';
import { benchBookingInput, NO_GUARD } from './bookings';
import {
  cpuSeconds,
  metricSum,
  metricSumsBy,
  scrape,
  startBenchTemporal,
  startSimulatorChild,
  partWorker,
  startWorker,
  type BenchTemporal,
  type WorkerHandle,
} from './bench-stack';
import { roundOrders, type ThroughputContext } from './throughput';
import { round, spread, summarize, type Spread } from './stats';
import { meanSteps, runSteps, type Step } from './timeline';
import { measureWindow } from './windows';

type Kind = 'booking' | 'control';

/** One measured window of the `work` part, per completed workflow where it says "each". */
export interface WorkWindow {
  readonly round: number;
  readonly kind: Kind;
  readonly perSecond: number;
  /** The server's and the worker's CPU ms each. */
  readonly serverCpuMs: number;
  readonly workerCpuMs: number;
  /** The server's persistence and visibility requests each, and the ms their latencies summed to. */
  readonly requests: number;
  readonly requestMs: number;
}

export interface ServerWorkResult {
  readonly rounds: number;
  /** Server CPU ms per completed workflow. */
  readonly serverCpuMsPerBooking: Spread;
  readonly serverCpuMsPerControl: Spread;
  /** Booking ÷ control, per round, then the median. */
  readonly serverCpuRatio: Spread;
  /**
   * Workflow state changes the server saved (its persistence requests creating or updating an
   * execution) per completed workflow, from the server's own metrics over the measured interval.
   */
  readonly stateChangesPerBooking: Spread;
  /** The worker process's CPU ms per completed workflow (where the rest of a booking's work is). */
  readonly workerCpuMsPerBooking: Spread;
  readonly workerCpuMsPerControl: Spread;
  /** Booking ÷ control, per round, then the median: the workflow code's and the SDK's part. */
  readonly workerCpuRatio: Spread;
  /**
   * The rest of the machine's CPU per completed workflow: the simulator's (the supplier's three
   * calls of a booking; none for a control) and the bench process's (the order system's client:
   * its start, its wait for the answer). On one machine they share the cores with the server and
   * the worker, so the throughput ratio carries them too.
   */
  readonly simulatorCpuMsPerBooking: Spread;
  readonly simulatorCpuMsPerControl: Spread;
  readonly clientCpuMsPerBooking: Spread;
  readonly clientCpuMsPerControl: Spread;
  readonly stateChangesPerControl: Spread;
  readonly stateChangesRatio: Spread;
  readonly bookingsPerSecond: Spread;
  readonly controlPerSecond: Spread;
  readonly throughputRatio: Spread;
  /** History events of a confirmed booking: bookRoom's and its guard's once it waits. */
  readonly historyEventsPerBooking: number;
  /** The bookings' workflow (`BENCH_WORKFLOW`). */
  readonly workflow: string;
  readonly historyEvents: {
    /** The order's workflow, its guard's part included. */
    readonly bookRoom: number;
    readonly control: number;
  };
  /**
   * The server's persistence requests per completed workflow, by store and operation
   * (`persistence:GetCurrentExecution`, `visibility:ListWorkflowExecutions`, …; its own metrics
   * over the measured interval), medians over rounds, those of at least 0.05 a workflow: what a
   * design change added or removed, in the server's reads and writes.
   */
  readonly requestsPerBooking: Readonly<Record<string, number>>;
  readonly requestsPerControl: Readonly<Record<string, number>>;
  /**
   * Every measured window in the order run: whether a round's figure moved because the server did
   * more per workflow (`requests`) or the same requests cost more (`serverCpuMs`, `requestMs`).
   */
  readonly windows: readonly WorkWindow[];
  /**
   * Where a workflow's time goes at `concurrency` in flight (bench/timeline.ts), mean ms by step
   * over sampled runs of the last round: the queues of a loaded system, where `sequentialP50Ms`
   * has none.
   */
  readonly loadedSteps: {
    readonly booking: Record<Step, number>;
    readonly control: Record<Step, number>;
  };
  /** Start → result at concurrency 50 (queueing included), p50 over all rounds, ms. */
  readonly latencyP50Ms: { readonly booking: number; readonly control: number };
  /** One at a time, alternating: start → result p50, ms. */
  readonly sequentialP50Ms: { readonly booking: number; readonly control: number };
  /** One at a time: bookRoom p50 − two-activity control p50 − the two supplier calls' latency. */
  readonly aboveFloorP50Ms: number;
  readonly concurrency: number;
  readonly supplierLatencyMs: number;
}

export interface ServerCounts {
  /** Saved state changes: executions created or updated. */
  readonly stateChanges: number;
  /** Every persistence request, by `<store>:<operation>`. */
  readonly requests: ReadonlyMap<string, number>;
  /** Seconds the server's persistence requests took, summed by `<store>:<operation>`. */
  readonly seconds: ReadonlyMap<string, number>;
}

/**
 * The server's persistence requests so far and the time they took (its own metrics, namespace
 * `default`): take it at both edges of an interval, the difference is the interval's.
 */
export async function serverCounts(metricsUrl: string): Promise<ServerCounts> {
  const text = await scrape(metricsUrl);
  const requests = new Map<string, number>();
  const seconds = new Map<string, number>();
  for (const [store, metric] of [
    ['persistence', 'persistence'],
    ['visibility', 'visibility_persistence'],
  ] as const) {
    for (const [op, n] of metricSumsBy(text, `${metric}_requests`, 'operation'))
      requests.set(`${store}:${op}`, n);
    for (const [op, n] of metricSumsBy(text, `${metric}_latency_sum`, 'operation'))
      seconds.set(`${store}:${op}`, n);
  }
  const stateChanges = [
    'CreateWorkflowExecution',
    'UpdateWorkflowExecution',
    'ConflictResolveWorkflowExecution',
  ].reduce(
    (n, operation) =>
      n + metricSum(text, 'persistence_requests', { namespace: 'default', operation }),
    0,
  );
  return { stateChanges, requests, seconds };
}

/** Requests per workflow over an interval: `(after − before) ÷ workflows`, by operation. */
export function requestsPerWorkflow(
  before: ReadonlyMap<string, number>,
  after: ReadonlyMap<string, number>,
  workflows: number,
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [op, n] of after) out[op] = (n - (before.get(op) ?? 0)) / Math.max(1, workflows);
  return out;
}

/** The sum over every operation of a {@link requestsPerWorkflow}-shaped record. */
const sumOf = (byOperation: Record<string, number>): number =>
  Object.values(byOperation).reduce((a, v) => a + v, 0);

/** Each operation's median over rounds, those of at least 0.05 a workflow, largest first. */
export function medianRequests(rounds: readonly Record<string, number>[]): Record<string, number> {
  const ops = new Set(rounds.flatMap((r) => Object.keys(r)));
  const medians = [...ops].map((op) => [op, summarize(rounds.map((r) => r[op] ?? 0)).p50] as const);
  return Object.fromEntries(
    medians
      .filter(([, m]) => m >= 0.05)
      .sort((a, b) => b[1] - a[1])
      .map(([op, m]) => [op, round(m, 2)]),
  );
}

/** CPU seconds so far of each process in `pids`. */
function cpuOf<K extends string>(pids: Record<K, number>): Record<K, number> {
  const out = {} as Record<K, number>;
  for (const k of Object.keys(pids) as K[]) out[k] = cpuSeconds(pids[k]);
  return out;
}

/** Every process that shares the cores: the bench process is the order system's client. */
type Pids = Record<'server' | 'worker' | 'simulator' | 'client', number>;

/** A run the part timed: its workflow id, its start call and its answer (epoch ms). */
interface TimedRun {
  readonly id: string;
  readonly startedAt: number;
  readonly resultAt: number;
}

/** What one measured window gave, per completed workflow where it says "each". */
interface WindowFigures {
  readonly kind: Kind;
  readonly perSecond: number;
  /** Each process's CPU ms each. */
  readonly cpuMs: Record<keyof Pids, number>;
  /** Saved state changes each. */
  readonly saves: number;
  readonly requests: Record<string, number>;
  readonly latencies: readonly number[];
}

export async function runServerWorkBench(
  s: BenchSettings['work'],
  ctx: ThroughputContext,
): Promise<ServerWorkResult> {
  const temporal = await startBenchTemporal(ctx.serverDynamicConfig);
  const sim = await startSimulatorChild(s.latencyMs);
  const taskQueue = `bench-work-${randomUUID().slice(0, 8)}`;
  const serverPid = Object.values(temporal.serverPids)[0];
  if (serverPid === undefined) throw new Error('the dev server has no pid to read CPU time from');
  let worker: WorkerHandle | undefined;
  try {
    worker = await startWorker({
      ...partWorker(ctx, temporal, taskQueue, sim.baseUrl),
      ...(s.supplierCap.perSecond > 0 ? { supplierCap: s.supplierCap } : {}),
    });
    const runs = workRuns(s, temporal, taskQueue);
    const pids = { server: serverPid, worker: worker.pid, simulator: sim.pid, client: process.pid };
    const figures: WindowFigures[] = [];
    const windows: WorkWindow[] = [];
    const loadedSteps = {} as Record<Kind, Record<Step, number>>;
    for (const [r, order] of roundOrders(s.rounds).entries()) {
      for (const kind of order) {
        const measured = await measureWorkWindow(s, ctx, temporal, runs, pids, kind, r + 1);
        figures.push(measured.figures);
        windows.push(measured.window);
        const timed = runs.takeTimed();
        if (r === s.rounds - 1) loadedSteps[kind] = await stepsOf(temporal, timed);
      }
    }
    const sequential = await sequentialLatency(s, runs);
    const control = await runs.control();
    await control.result();
    const historyEvents = {
      bookRoom: summarize(
        await Promise.all(runs.samples.map((o) => historyLength(temporal, `booking-${o}`))),
      ).p50,
      control: await historyLength(temporal, control.workflowId),
    };
    return workResult(s, figures, { windows, loadedSteps, sequential, historyEvents });
  } finally {
    await worker?.stop();
    await sim.stop();
    await temporal.close();
  }
}

/**
 * How the part starts its runs: a confirmed booking through `BookingClient` (its guard after it,
 * unless `BENCH_GUARD=0`, a diagnosis of what the guard costs), or the two-activity control; each
 * timed, and the first five orders kept for their histories.
 */
function workRuns(s: BenchSettings['work'], temporal: BenchTemporal, taskQueue: string) {
  const bookings = new BookingClient({ client: temporal.client, taskQueue, workflow: s.workflow });
  const samples: string[] = [];
  let last: string | undefined;
  let timed: TimedRun[] = [];
  const control = () =>
    temporal.client.workflow.start('controlTwoStep', {
      taskQueue,
      workflowId: `control2-${randomUUID()}`,
      args: ['x'],
    });
  return {
    samples,
    control,
    /** The runs timed since the last call. */
    takeTimed(): TimedRun[] {
      const taken = timed;
      timed = [];
      return taken;
    },
    async one(kind: Kind): Promise<boolean> {
      const startedAt = Date.now();
      if (kind === 'booking') {
        const input = benchBookingInput('instant', s.guard ? {} : NO_GUARD);
        await bookings.startBooking(input);
        const ok = (await bookings.result(input.orderId)).outcome === 'CONFIRMED';
        if (samples.length < 5) samples.push(input.orderId);
        last = input.orderId;
        timed.push({ id: `booking-${input.orderId}`, startedAt, resultAt: Date.now() });
        return ok;
      }
      const handle = await control();
      await handle.result();
      timed.push({ id: handle.workflowId, startedAt, resultAt: Date.now() });
      return true;
    },
    /**
     * Waits (up to 2 s) until the last order's guard has done its first task and waits: the order's
     * workflow has no activity or workflow task pending (its guard's first read runs after the
     * task that answered the caller).
     */
    async lastGuardWaiting(): Promise<void> {
      if (!last || !s.guard) return;
      const until = Date.now() + 2_000;
      while (Date.now() < until) {
        const d = await temporal.client.workflow
          .getHandle(`booking-${last}`)
          .describe()
          .catch(() => undefined);
        if (d && !d.raw.pendingActivities?.length && !d.raw.pendingWorkflowTask) return;
        await new Promise((r) => setTimeout(r, 5));
      }
    },
  };
}

type WorkRuns = ReturnType<typeof workRuns>;

/** One window of `kind` at `concurrency` in flight: each process's CPU and the server's requests. */
async function measureWorkWindow(
  s: BenchSettings['work'],
  ctx: ThroughputContext,
  temporal: BenchTemporal,
  runs: WorkRuns,
  pids: Pids,
  kind: Kind,
  roundNo: number,
): Promise<{ figures: WindowFigures; window: WorkWindow }> {
  let cpu0 = cpuOf(pids);
  let cpu = cpu0;
  let counts0: ServerCounts = { stateChanges: 0, requests: new Map(), seconds: new Map() };
  let counts = counts0;
  const w = await measureWindow(() => runs.one(kind), {
    concurrency: s.concurrency,
    warmupMs: s.warmupMs,
    ms: s.durationMs / 2,
    onFirstFailure: (err) => ctx.log(`work ${kind} failure: ${String(err)}`),
    onMeasure: async (edge) => {
      if (edge === 'start') {
        cpu0 = cpuOf(pids);
        counts0 = await serverCounts(temporal.metricsUrl);
        runs.takeTimed();
      } else {
        cpu = cpuOf(pids);
        counts = await serverCounts(temporal.metricsUrl);
      }
    },
  });
  const each = (n: number) => n / Math.max(1, w.completed);
  const cpuMs = Object.fromEntries(
    (Object.keys(pids) as (keyof Pids)[]).map((k) => [k, each((cpu[k] - cpu0[k]) * 1000)]),
  ) as Record<keyof Pids, number>;
  const saves = each(counts.stateChanges - counts0.stateChanges);
  const requests = requestsPerWorkflow(counts0.requests, counts.requests, w.completed);
  const window: WorkWindow = {
    round: roundNo,
    kind,
    perSecond: round(w.completed / w.seconds),
    serverCpuMs: round(cpuMs.server, 2),
    workerCpuMs: round(cpuMs.worker, 2),
    requests: round(sumOf(requests), 1),
    requestMs: round(
      sumOf(requestsPerWorkflow(counts0.seconds, counts.seconds, w.completed)) * 1000,
      1,
    ),
  };
  ctx.log(
    `work round ${roundNo} ${kind}: ${window.perSecond}/s, server ${window.serverCpuMs} ms CPU, ${round(saves, 1)} state changes and ${window.requests} requests (${window.requestMs} ms) each, worker ${window.workerCpuMs} ms CPU; simulator ${round(cpuMs.simulator, 2)}, bench client ${round(cpuMs.client, 2)} ms`,
  );
  const perSecond = w.completed / w.seconds;
  return { figures: { kind, perSecond, cpuMs, saves, requests, latencies: w.latencies }, window };
}

/** Mean steps of up to 50 runs spread over `runs` (their histories read once the window is over). */
async function stepsOf(temporal: BenchTemporal, runs: readonly TimedRun[]) {
  const every = Math.max(1, Math.floor(runs.length / 50));
  const picked = runs.filter((_, i) => i % every === 0).slice(0, 50);
  const steps = await Promise.all(
    picked.map(async (r) => {
      const h = await temporal.client.workflow.getHandle(r.id).fetchHistory();
      return runSteps(h.events ?? [], r.startedAt, r.resultAt);
    }),
  );
  return meanSteps(steps);
}

/** Latency one at a time: no queueing, the engine's and the workflow's own time, ms. */
async function sequentialLatency(s: BenchSettings['work'], runs: WorkRuns) {
  const sequential: Record<Kind, number[]> = { booking: [], control: [] };
  for (const order of roundOrders(s.sequentialRuns)) {
    for (const kind of order) {
      const t0 = performance.now();
      if (await runs.one(kind)) sequential[kind].push(performance.now() - t0);
      // The guard's first task runs just after its booking returns: out of the next timing.
      if (kind === 'booking') await runs.lastGuardWaiting();
    }
  }
  return sequential;
}

/** A workflow's history length so far. */
async function historyLength(temporal: BenchTemporal, id: string): Promise<number> {
  return (await temporal.client.workflow.getHandle(id).fetchHistory()).events?.length ?? 0;
}

/** The part's result: each figure's median over rounds and spread, booking beside control. */
function workResult(
  s: BenchSettings['work'],
  figures: readonly WindowFigures[],
  rest: Pick<ServerWorkResult, 'windows' | 'loadedSteps' | 'historyEvents'> & {
    sequential: Record<Kind, number[]>;
  },
): ServerWorkResult {
  const of = (kind: Kind, f: (w: WindowFigures) => number) =>
    figures.filter((w) => w.kind === kind).map(f);
  /** The booking's figures, the control's, and booking ÷ control round by round. */
  const both = (f: (w: WindowFigures) => number) => {
    const b = of('booking', f);
    const c = of('control', f);
    return { b: spread(b), c: spread(c), ratio: spread(b.map((v, i) => v / (c[i] ?? v))) };
  };
  const server = both((w) => w.cpuMs.server);
  const worker = both((w) => w.cpuMs.worker);
  const saves = both((w) => w.saves);
  const perSecond = both((w) => w.perSecond);
  const requests = (kind: Kind) =>
    medianRequests(figures.filter((w) => w.kind === kind).map((w) => w.requests));
  const latencyP50 = (kind: Kind) =>
    round(summarize(figures.filter((w) => w.kind === kind).flatMap((w) => w.latencies)).p50);
  const sequentialP50 = (kind: Kind) => summarize(rest.sequential[kind]).p50;
  return {
    rounds: s.rounds,
    serverCpuMsPerBooking: server.b,
    serverCpuMsPerControl: server.c,
    serverCpuRatio: server.ratio,
    stateChangesPerBooking: saves.b,
    workerCpuMsPerBooking: worker.b,
    workerCpuMsPerControl: worker.c,
    workerCpuRatio: worker.ratio,
    simulatorCpuMsPerBooking: spread(of('booking', (w) => w.cpuMs.simulator)),
    simulatorCpuMsPerControl: spread(of('control', (w) => w.cpuMs.simulator)),
    clientCpuMsPerBooking: spread(of('booking', (w) => w.cpuMs.client)),
    clientCpuMsPerControl: spread(of('control', (w) => w.cpuMs.client)),
    stateChangesPerControl: saves.c,
    stateChangesRatio: saves.ratio,
    bookingsPerSecond: perSecond.b,
    controlPerSecond: perSecond.c,
    throughputRatio: perSecond.ratio,
    historyEventsPerBooking: rest.historyEvents.bookRoom,
    workflow: s.workflow,
    historyEvents: rest.historyEvents,
    requestsPerBooking: requests('booking'),
    requestsPerControl: requests('control'),
    windows: rest.windows,
    loadedSteps: rest.loadedSteps,
    latencyP50Ms: { booking: latencyP50('booking'), control: latencyP50('control') },
    sequentialP50Ms: {
      booking: round(sequentialP50('booking')),
      control: round(sequentialP50('control')),
    },
    aboveFloorP50Ms: round(
      sequentialP50('booking') - sequentialP50('control') - 2 * s.latencyMs,
      1,
    ),
    concurrency: s.concurrency,
    supplierLatencyMs: s.latencyMs,
  };
}

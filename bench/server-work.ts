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

export async function runServerWorkBench(
  s: BenchSettings['work'],
  ctx: ThroughputContext,
): Promise<ServerWorkResult> {
  const temporal = await startBenchTemporal(ctx.serverArgs);
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
    const bookings = new BookingClient({
      client: temporal.client,
      taskQueue,
      workflow: s.workflow,
    });
    const samples: string[] = [];
    let last: string | undefined;
    /**
     * Waits (up to 2 s) until the order's guard has done its first task and waits: the order's
     * workflow has no activity or workflow task pending (its guard's first read runs after the
     * task that answered the caller).
     */
    const guardWaiting = async (orderId: string | undefined) => {
      if (!orderId || !s.guard) return;
      const until = Date.now() + 2_000;
      while (Date.now() < until) {
        const d = await temporal.client.workflow
          .getHandle(`booking-${orderId}`)
          .describe()
          .catch(() => undefined);
        if (d && !d.raw.pendingActivities?.length && !d.raw.pendingWorkflowTask) return;
        await new Promise((r) => setTimeout(r, 5));
      }
    };
    /** The runs of the window being measured: workflow id, start call and answer (epoch ms). */
    let timed: { id: string; startedAt: number; resultAt: number }[] = [];
    const one = async (kind: Kind) => {
      const startedAt = Date.now();
      if (kind === 'booking') {
        // Without its guard only when `BENCH_GUARD=0`: a diagnosis of what the guard costs.
        const input = benchBookingInput('instant', s.guard ? {} : NO_GUARD);
        await bookings.startBooking(input);
        const ok = (await bookings.result(input.orderId)).outcome === 'CONFIRMED';
        if (samples.length < 5) samples.push(input.orderId);
        last = input.orderId;
        timed.push({ id: `booking-${input.orderId}`, startedAt, resultAt: Date.now() });
        return ok;
      }
      const handle = await temporal.client.workflow.start('controlTwoStep', {
        taskQueue,
        workflowId: `control2-${randomUUID()}`,
        args: ['x'],
      });
      await handle.result();
      timed.push({ id: handle.workflowId, startedAt, resultAt: Date.now() });
      return true;
    };
    /** Mean steps of up to 50 runs spread over `runs` (their histories read once the window is over). */
    const stepsOf = async (runs: typeof timed) => {
      const every = Math.max(1, Math.floor(runs.length / 50));
      const picked = runs.filter((_, i) => i % every === 0).slice(0, 50);
      const steps = await Promise.all(
        picked.map(async (r) => {
          const h = await temporal.client.workflow.getHandle(r.id).fetchHistory();
          return runSteps(h.events ?? [], r.startedAt, r.resultAt);
        }),
      );
      return meanSteps(steps);
    };
    const loadedSteps = {} as Record<Kind, Record<Step, number>>;
    const windows: WorkWindow[] = [];
    type Round = {
      cpuMs: number[];
      workerCpuMs: number[];
      simulatorCpuMs: number[];
      clientCpuMs: number[];
      saves: number[];
      requests: Record<string, number>[];
      perSecond: number[];
      latencies: number[];
    };
    const empty = (): Round => ({
      cpuMs: [],
      workerCpuMs: [],
      simulatorCpuMs: [],
      clientCpuMs: [],
      saves: [],
      requests: [],
      perSecond: [],
      latencies: [],
    });
    const perRound: Record<Kind, Round> = { booking: empty(), control: empty() };
    // Every process that shares the cores: the bench process is the order system's client.
    const pids = { server: serverPid, worker: worker.pid, simulator: sim.pid, client: process.pid };
    for (const [r, order] of roundOrders(s.rounds).entries()) {
      for (const kind of order) {
        let cpu0 = cpuOf(pids);
        let cpu = cpu0;
        let counts0: ServerCounts = { stateChanges: 0, requests: new Map(), seconds: new Map() };
        let counts = counts0;
        const w = await measureWindow(() => one(kind), {
          concurrency: s.concurrency,
          warmupMs: s.warmupMs,
          ms: s.durationMs / 2,
          onFirstFailure: (err) => ctx.log(`work ${kind} failure: ${String(err)}`),
          onMeasure: async (edge) => {
            if (edge === 'start') {
              cpu0 = cpuOf(pids);
              counts0 = await serverCounts(temporal.metricsUrl);
              timed = [];
            } else {
              cpu = cpuOf(pids);
              counts = await serverCounts(temporal.metricsUrl);
            }
          },
        });
        const p = perRound[kind];
        const each = (n: number) => n / Math.max(1, w.completed);
        const ms = (k: keyof typeof pids) => each((cpu[k] - cpu0[k]) * 1000);
        const saves = counts.stateChanges - counts0.stateChanges;
        p.cpuMs.push(ms('server'));
        p.saves.push(each(saves));
        const requests = requestsPerWorkflow(counts0.requests, counts.requests, w.completed);
        p.requests.push(requests);
        const measured: WorkWindow = {
          round: r + 1,
          kind,
          perSecond: round(w.completed / w.seconds),
          serverCpuMs: round(ms('server'), 2),
          workerCpuMs: round(ms('worker'), 2),
          requests: round(sumOf(requests), 1),
          requestMs: round(
            sumOf(requestsPerWorkflow(counts0.seconds, counts.seconds, w.completed)) * 1000,
            1,
          ),
        };
        windows.push(measured);
        if (r === s.rounds - 1) loadedSteps[kind] = await stepsOf(timed);
        p.workerCpuMs.push(ms('worker'));
        p.simulatorCpuMs.push(ms('simulator'));
        p.clientCpuMs.push(ms('client'));
        p.perSecond.push(w.completed / w.seconds);
        p.latencies.push(...w.latencies);
        ctx.log(
          `work round ${r + 1} ${kind}: ${measured.perSecond}/s, server ${measured.serverCpuMs} ms CPU, ${round(each(saves), 1)} state changes and ${measured.requests} requests (${measured.requestMs} ms) each, worker ${measured.workerCpuMs} ms CPU; simulator ${round(ms('simulator'), 2)}, bench client ${round(ms('client'), 2)} ms`,
        );
      }
    }
    // Latency one at a time: no queueing, the engine's and the workflow's own time.
    const sequential: Record<Kind, number[]> = { booking: [], control: [] };
    for (const order of roundOrders(s.sequentialRuns)) {
      for (const kind of order) {
        const t0 = performance.now();
        if (await one(kind)) sequential[kind].push(performance.now() - t0);
        // The guard's first task runs just after its booking returns: out of the next timing.
        if (kind === 'booking') await guardWaiting(last);
      }
    }
    const control = await temporal.client.workflow.start('controlTwoStep', {
      taskQueue,
      workflowId: `control2-${randomUUID()}`,
      args: ['x'],
    });
    await control.result();
    const eventsOf = async (id: string) =>
      (await temporal.client.workflow.getHandle(id).fetchHistory()).events?.length ?? 0;
    const bookRoomEvents = summarize(
      await Promise.all(samples.map((o) => eventsOf(`booking-${o}`))),
    ).p50;
    const controlEvents = await eventsOf(control.workflowId);
    const b = perRound.booking;
    const c = perRound.control;
    const bookingP50 = summarize(b.latencies).p50;
    const controlP50 = summarize(c.latencies).p50;
    return {
      rounds: s.rounds,
      serverCpuMsPerBooking: spread(b.cpuMs),
      serverCpuMsPerControl: spread(c.cpuMs),
      serverCpuRatio: spread(b.cpuMs.map((v, i) => v / (c.cpuMs[i] ?? v))),
      stateChangesPerBooking: spread(b.saves),
      workerCpuMsPerBooking: spread(b.workerCpuMs),
      workerCpuMsPerControl: spread(c.workerCpuMs),
      workerCpuRatio: spread(b.workerCpuMs.map((v, i) => v / (c.workerCpuMs[i] ?? v))),
      simulatorCpuMsPerBooking: spread(b.simulatorCpuMs),
      simulatorCpuMsPerControl: spread(c.simulatorCpuMs),
      clientCpuMsPerBooking: spread(b.clientCpuMs),
      clientCpuMsPerControl: spread(c.clientCpuMs),
      stateChangesPerControl: spread(c.saves),
      stateChangesRatio: spread(b.saves.map((v, i) => v / (c.saves[i] ?? v))),
      bookingsPerSecond: spread(b.perSecond),
      controlPerSecond: spread(c.perSecond),
      throughputRatio: spread(b.perSecond.map((v, i) => v / (c.perSecond[i] ?? v))),
      historyEventsPerBooking: bookRoomEvents,
      workflow: s.workflow,
      historyEvents: { bookRoom: bookRoomEvents, control: controlEvents },
      requestsPerBooking: medianRequests(b.requests),
      requestsPerControl: medianRequests(c.requests),
      windows,
      loadedSteps,
      latencyP50Ms: { booking: round(bookingP50), control: round(controlP50) },
      sequentialP50Ms: {
        booking: round(summarize(sequential.booking).p50),
        control: round(summarize(sequential.control).p50),
      },
      aboveFloorP50Ms: round(
        summarize(sequential.booking).p50 - summarize(sequential.control).p50 - 2 * s.latencyMs,
        1,
      ),
      concurrency: s.concurrency,
      supplierLatencyMs: s.latencyMs,
    };
  } finally {
    await worker?.stop();
    await sim.stop();
    await temporal.close();
  }
}

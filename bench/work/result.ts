/** What the `work` part reports (bench/work/work.ts), and the pure step to its figures. */
import { medianRequests } from '../shared/metrics';
import type { BenchSettings } from '../shared/settings';
import { round, spread, summarize, type Spread } from '../shared/stats';
import type { Step } from '../shared/timeline';
import type { Kind } from '../shared/windows';

/** Every process that shares the cores: the bench process is the order system's client. */
export type Pids = Record<'server' | 'worker' | 'simulator' | 'client', number>;

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
   * Where a workflow's time goes at `concurrency` in flight (bench/shared/timeline.ts), mean ms by step
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

/** What one measured window gave, per completed workflow where it says "each". */
export interface WindowFigures {
  readonly kind: Kind;
  readonly perSecond: number;
  /** Each process's CPU ms each. */
  readonly cpuMs: Record<keyof Pids, number>;
  /** Saved state changes each. */
  readonly saves: number;
  readonly requests: Record<string, number>;
  readonly latencies: readonly number[];
}

/** Each window's figure `f` of `kind`, in the order run. */
const of = (figures: readonly WindowFigures[], kind: Kind, f: (w: WindowFigures) => number) =>
  figures.filter((w) => w.kind === kind).map(f);

/** The booking's figures, the control's, and booking ÷ control round by round. */
function both(figures: readonly WindowFigures[], f: (w: WindowFigures) => number) {
  const b = of(figures, 'booking', f);
  const c = of(figures, 'control', f);
  return { b: spread(b), c: spread(c), ratio: spread(b.map((v, i) => v / (c[i] ?? v))) };
}

/** What each process's CPU, the saved state changes and the rates came to, over rounds. */
function perWorkflowFigures(figures: readonly WindowFigures[]) {
  const server = both(figures, (w) => w.cpuMs.server);
  const worker = both(figures, (w) => w.cpuMs.worker);
  const saves = both(figures, (w) => w.saves);
  const perSecond = both(figures, (w) => w.perSecond);
  const cpu = (kind: Kind, p: keyof Pids) => spread(of(figures, kind, (w) => w.cpuMs[p]));
  return {
    serverCpuMsPerBooking: server.b,
    serverCpuMsPerControl: server.c,
    serverCpuRatio: server.ratio,
    stateChangesPerBooking: saves.b,
    workerCpuMsPerBooking: worker.b,
    workerCpuMsPerControl: worker.c,
    workerCpuRatio: worker.ratio,
    simulatorCpuMsPerBooking: cpu('booking', 'simulator'),
    simulatorCpuMsPerControl: cpu('control', 'simulator'),
    clientCpuMsPerBooking: cpu('booking', 'client'),
    clientCpuMsPerControl: cpu('control', 'client'),
    stateChangesPerControl: saves.c,
    stateChangesRatio: saves.ratio,
    bookingsPerSecond: perSecond.b,
    controlPerSecond: perSecond.c,
    throughputRatio: perSecond.ratio,
  };
}

/** The part's result: each figure's median over rounds and spread, booking beside control. */
export function workResult(
  s: BenchSettings['work'],
  figures: readonly WindowFigures[],
  rest: Pick<ServerWorkResult, 'windows' | 'loadedSteps' | 'historyEvents'> & {
    sequential: Record<Kind, number[]>;
  },
): ServerWorkResult {
  const requests = (kind: Kind) =>
    medianRequests(figures.filter((w) => w.kind === kind).map((w) => w.requests));
  const latencyP50 = (kind: Kind) =>
    round(summarize(figures.filter((w) => w.kind === kind).flatMap((w) => w.latencies)).p50);
  const sequentialP50 = (kind: Kind) => summarize(rest.sequential[kind]).p50;
  return {
    rounds: s.rounds,
    ...perWorkflowFigures(figures),
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

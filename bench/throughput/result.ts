/**
 * What the throughput part reports (bench/throughput/throughput.ts), and the pure steps from its
 * windows to its figures.
 */
import type { BenchTarget } from '../shared/temporal';
import { round, spread, summarize, type Spread } from '../shared/stats';
import type { Kind, Window } from '../shared/windows';

export type ControlWorkflow = 'controlNoop' | 'controlTwoStep';

/** Where a throughput run happens when it is not the part's own dev server (bench/cluster/). */
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

/** One round's figures from its two windows and the CPU seconds of each, by process. Pure. */
export function roundOf(
  got: Record<Kind, Window>,
  cpuOfRound: Record<Kind, Record<string, number>>,
): ThroughputRound {
  const b = got.booking;
  const c = got.control;
  const bookingsPerSecond = b.completed / b.seconds;
  const controlPerSecond = c.completed / c.seconds;
  return {
    bookingsPerSecond: round(bookingsPerSecond),
    controlWorkflowsPerSecond: round(controlPerSecond),
    ratio: round(bookingsPerSecond / controlPerSecond, 3),
    cpuMsPerWorkflow: {
      booking: msPerWorkflow(cpuOfRound.booking, b.completed),
      control: msPerWorkflow(cpuOfRound.control, c.completed),
    },
  };
}

/** What the part measured besides its windows, for {@link throughputResult}. */
export interface ThroughputExtras {
  readonly concurrency: number;
  readonly latencyMs: number;
  /** History events of one booking and one control run of the part. */
  readonly events: Record<Kind, number>;
  /** CPU seconds per second over the part, by process. */
  readonly cpu: Record<string, number>;
  /** CPU seconds of each kind's measured windows, by process. */
  readonly kindCpu: Record<Kind, Record<string, number>>;
  readonly controlWorkflow: ControlWorkflow;
  readonly workers: number;
  readonly workerRssMiB: number;
  readonly rounds: readonly ThroughputRound[];
}

/** The part's figures from each kind's windows, all rounds together. Pure. */
export function throughputResult(
  totals: Record<Kind, Window>,
  x: ThroughputExtras,
): ThroughputResult {
  const bookingsPerSecond = totals.booking.completed / totals.booking.seconds;
  const controlPerSecond = totals.control.completed / totals.control.seconds;
  const latency = (k: Kind) => {
    const l = summarize(totals[k].latencies);
    return { p50: round(l.p50), p99: round(l.p99) };
  };
  return {
    bookingsPerSecond: round(bookingsPerSecond),
    controlWorkflowsPerSecond: round(controlPerSecond),
    efficiency: round(
      (x.events.booking * bookingsPerSecond) / (x.events.control * controlPerSecond),
      3,
    ),
    bookingEventsPerWorkflow: x.events.booking,
    controlEventsPerWorkflow: x.events.control,
    bookingEventsPerSecond: round(x.events.booking * bookingsPerSecond),
    controlEventsPerSecond: round(x.events.control * controlPerSecond),
    concurrency: x.concurrency,
    latencyMs: x.latencyMs,
    seconds: round(totals.booking.seconds),
    bookingLatencyMs: latency('booking'),
    controlLatencyMs: latency('control'),
    failures: totals.booking.failures,
    cpu: x.cpu,
    controlWorkflow: x.controlWorkflow,
    cpuMsPerWorkflow: {
      booking: msPerWorkflow(x.kindCpu.booking, totals.booking.completed),
      control: msPerWorkflow(x.kindCpu.control, totals.control.completed),
    },
    workers: x.workers,
    workerRssMiB: round(x.workerRssMiB),
    rounds: x.rounds,
    ratioOfRounds: spread(x.rounds.map((r) => r.ratio)),
  };
}

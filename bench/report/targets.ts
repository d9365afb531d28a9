/**
 * The bench's figures against their targets, under the names the results log's tables use
 * (bench/results/log.md; written into `bench/results/latest.json` as `targets`), and the figures
 * it reports without a target (`reported`): those not given one yet (an account's worst 1 s
 * window), and those whose target another row replaced (overhead R, the bookRoom workflow task's
 * ms, bookings/s ÷ the no-op control, the settle window of the flat-out build). Pure: the results in, the rows out.
 *
 * The load drill's figures come from its own runs (`npm run chaos -- load` writes
 * `bench/results/load-drill-<N>min.json` for a run of 30 min or more, see tools/chaos/load-run.ts);
 * the bench copies the 30- and 60-minute ones into its results as `loadDrills`.
 */
import type { LoadDrillSummary } from '../../tools/chaos/load-run';
import type { AccountsResult } from '../accounts/result';
import type { AheadResult } from '../ahead/ahead';
import type { ClusterBenchResult } from '../cluster/types';
import type { EventsResult } from '../events/result';
import type { OverheadAtLatency } from '../overhead/overhead';
import type { PromiseCount } from '../promises/observed';
import { promiseCountFigures } from '../promises/window';
import type { PacedBuild } from '../scale/types';
import { round } from '../shared/stats';
import type { ServerWorkResult } from '../work/result';

export type BenchResults = Record<string, unknown> & {
  overhead?: Record<string, OverheadAtLatency>;
  throughput?: { bookingsPerSecond: number; controlWorkflowsPerSecond: number; efficiency: number };
  scale?: {
    openWorkflows: number;
    startupRssMiB?: number;
    workerRssMiB: number;
    buildRssMiB: number;
    workflowTaskTimeouts: number;
    pollLatenessP99Ms: number;
    settle?: { pollLatenessP99Ms: number };
    paced?: Pick<PacedBuild, 'pollLatenessP99Ms'>;
  };
  ahead?: AheadResult;
  client?: { signedCallsPerSecond: number; bareCallsPerSecond: number; cpuMicrosPerCall: number };
  simulator?: { requestsPerSecond: number; bareRequestsPerSecond: number };
  cluster?: ClusterBenchResult;
  events?: EventsResult;
  accounts?: AccountsResult;
  work?: ServerWorkResult;
  loadDrills?: Partial<Record<'30min' | '60min', LoadDrillSummary>>;
  promises?: PromiseCount;
};

export interface Target {
  readonly label: string;
  readonly value: number | undefined;
  readonly target: string;
  readonly holds: (v: number) => boolean;
}

/** bookRoom p50 − the same supplier calls made directly − the no-op control workflow, ms. */
export function overheadAboveFloorMs(o: OverheadAtLatency | undefined): number | undefined {
  if (!o) return undefined;
  return round(o.workflowMs.p50 - o.directMs.p50 - o.controlMs.p50, 1);
}

/** The cluster part's one-worker pass, when it ran with rounds. */
function clusterOneWorker(r: BenchResults) {
  const c = r.cluster;
  const one = c && !('skipped' in c) ? c.throughput.workers1 : undefined;
  return one?.ratioOfRounds ? one : undefined;
}

const atMost = (limit: number) => (v: number) => v <= limit;
const atLeast = (limit: number) => (v: number) => v >= limit;

/** A row with a target: its name, how it is read from the results, and the bound it must hold. */
interface Row {
  readonly label: string;
  readonly value: (r: BenchResults) => number | undefined;
  readonly target: string;
  readonly holds: (v: number) => boolean;
}

/** Every row with a target, in the order of the table (bench/results/log.md). */
const ROWS: readonly Row[] = [
  {
    label:
      'Overhead above the engine floor (bookRoom − direct calls − no-op control), p50 ms at 20 ms',
    value: (r) => overheadAboveFloorMs(r.overhead?.latency20),
    target: '≤ 8',
    holds: atMost(8),
  },
  {
    label:
      'Overhead above the engine floor (bookRoom − direct calls − no-op control), p50 ms at 100 ms',
    value: (r) => overheadAboveFloorMs(r.overhead?.latency100),
    target: '≤ 8',
    holds: atMost(8),
  },
  {
    label: 'Confirmed bookings/s (concurrency 50, 20 ms)',
    value: (r) => r.throughput?.bookingsPerSecond,
    target: '≥ 20',
    holds: atLeast(20),
  },
  {
    label:
      'Server CPU per confirmed booking (guard included) ÷ per two-activity control, median of rounds',
    value: (r) => r.work?.serverCpuRatio.median,
    target: '≤ 1.3',
    holds: atMost(1.3),
  },
  {
    label:
      'Saved state changes per confirmed booking (guard included) ÷ per two-activity control, median of rounds',
    value: (r) => r.work?.stateChangesRatio.median,
    target: '≤ 1.3',
    holds: atMost(1.3),
  },
  {
    label: 'Confirmed bookings/s ÷ two-activity control workflows/s, median of rounds',
    value: (r) => r.work?.throughputRatio.median,
    target: '≥ 0.8',
    holds: atLeast(0.8),
  },
  {
    label:
      'Cluster (PostgreSQL, one worker): confirmed bookings/s ÷ two-activity control workflows/s, median of rounds',
    value: (r) => clusterOneWorker(r)?.ratioOfRounds.median,
    target: '≥ 0.8',
    holds: atLeast(0.8),
  },
  {
    label: 'Worker CPU per confirmed booking ÷ per two-activity control, median of rounds',
    value: (r) => r.work?.workerCpuRatio.median,
    target: '≤ 2',
    holds: atMost(2),
  },
  {
    label:
      'Cluster (PostgreSQL, one worker): server CPU (Temporal + PostgreSQL) per confirmed booking ÷ per two-activity control, median of rounds',
    value: (r) => clusterOneWorker(r)?.serverCpuRatioOfRounds.median,
    target: '≤ 1.3',
    holds: atMost(1.3),
  },
  {
    label: 'History events per confirmed booking, guard included',
    value: (r) => r.work?.historyEventsPerBooking,
    target: '≤ 30',
    holds: atMost(30),
  },
  {
    label: 'p50 latency above the two-activity floor, ms at 20 ms',
    value: (r) => r.work?.aboveFloorP50Ms,
    target: '≤ 10',
    holds: atMost(10),
  },
  {
    label: 'Order events: confirmed bookings/s to an answering endpoint ÷ events off',
    value: (r) => r.events?.eventsCostRatio,
    target: '≥ 0.95',
    holds: atLeast(0.95),
  },
  {
    label: 'Order events: confirmed bookings/s to a hanging endpoint ÷ to an answering one',
    value: (r) => r.events?.hangingRatio,
    target: '≥ 0.95',
    holds: atLeast(0.95),
  },
  {
    label: 'Order events: saved state changes per delivered event',
    value: (r) => r.events?.stateChangesPerDeliveredEvent,
    target: '≤ 1',
    holds: atMost(1),
  },
  {
    label:
      'Confirmed bookings/s through account B while account A hangs ÷ B alone, median of rounds',
    value: (r) => r.accounts?.isolation.ratio.median,
    target: '≥ 0.95',
    holds: atLeast(0.95),
  },
  {
    label:
      "Account cap: calls/s at the supplier beyond the server's burst ÷ the account's maxCallsPerSecond, three workers",
    value: (r) => r.accounts?.cap.steadyRatio,
    target: '≤ 1.05',
    holds: atMost(1.05),
  },
  {
    label: 'Efficiency (history events/s vs control)',
    value: (r) => r.throughput?.efficiency,
    target: '≥ 0.8',
    holds: atLeast(0.8),
  },
  {
    label: 'Worker RSS MiB at start-up, before its first booking',
    value: (r) => r.scale?.startupRssMiB,
    target: '≤ 250',
    holds: atMost(250),
  },
  {
    label: 'Worker RSS MiB, 10,000 bookings waiting',
    value: (r) => r.scale?.workerRssMiB,
    target: '≤ 300',
    holds: atMost(300),
  },
  {
    label: 'Worker RSS MiB, peak while they are started',
    value: (r) => r.scale?.buildRssMiB,
    target: '≤ 320',
    holds: atMost(320),
  },
  {
    label: 'Workflow task timeouts (all 10,000 histories read)',
    value: (r) => r.scale?.workflowTaskTimeouts,
    target: '= 0',
    holds: (v) => v === 0,
  },
  {
    label: 'Poll lateness p99 ms, watch after the build',
    value: (r) => r.scale?.pollLatenessP99Ms,
    target: '≤ 1000',
    holds: atMost(1000),
  },
  {
    label:
      'Poll lateness p99 ms, the minute after building 10,000 waiting bookings at 80 % of the sustainable rate',
    value: (r) => r.scale?.paced?.pollLatenessP99Ms,
    target: '≤ 1000',
    holds: atMost(1000),
  },
  {
    label: "New booking's first supplier call while 10,000 polls are due, p99 ms",
    value: (r) => r.ahead?.priority.firstCallP99Ms,
    target: '≤ 1000',
    holds: atMost(1000),
  },
  {
    label: '30-min load drill: worker RSS growth %, last vs first fifth after warm-up',
    value: (r) => r.loadDrills?.['30min']?.growthPercent,
    target: '≤ 5',
    holds: atMost(5),
  },
  {
    label: '60-min load drill: worker RSS growth %, last vs first fifth after warm-up',
    value: (r) => r.loadDrills?.['60min']?.growthPercent,
    target: '≤ 5 (flat)',
    holds: atMost(5),
  },
];

export function targets(r: BenchResults): Target[] {
  return ROWS.map((row) => ({
    label: row.label,
    value: row.value(r),
    target: row.target,
    holds: row.holds,
  }));
}

/** The `targets` entry of the results: only the figures this run (or its drills) has. */
export function targetsRecord(
  r: BenchResults,
): Record<string, { value: number; target: string; holds: boolean }> {
  return Object.fromEntries(
    targets(r)
      .filter((t) => t.value !== undefined)
      .map((t) => [t.label, { value: t.value!, target: t.target, holds: t.holds(t.value!) }]),
  );
}

/**
 * The `reported` entry of the results: figures the results log's tables list without a target, under
 * its names: those with none yet (a figure given one moves to {@link targets}), and those whose
 * target another row replaced, kept as figures.
 */
export function reported(r: BenchResults): Record<string, number> {
  const t = r.throughput;
  const figures: Record<string, number | undefined> = {
    'Overhead R p50 at 100 ms': r.overhead?.latency100?.p50,
    'Overhead R p50 at 20 ms': r.overhead?.latency20?.p50,
    'bookRoom workflow task in the worker (SDK metrics, mean), ms at 20 ms':
      r.overhead?.latency20?.workerMeansMs?.bookRoomWorkflowTask,
    'Confirmed bookings/s ÷ no-op control workflows/s, same run':
      t && t.controlWorkflowsPerSecond > 0
        ? round(t.bookingsPerSecond / t.controlWorkflowsPerSecond, 3)
        : undefined,
    'Poll lateness p99 ms, right after building 10,000 waiting bookings flat out (the settle window, one poll cap)':
      r.scale?.settle?.pollLatenessP99Ms,
    'Order events: saved state changes per event, to a hanging endpoint':
      r.events?.stateChangesPerEventHanging,
    'Account cap: worst 1-second window of calls at the supplier ÷ (2 × cap + 1), three workers':
      r.accounts?.cap.worst1sRatio,
  };
  return {
    ...Object.fromEntries(
      Object.entries(figures).filter((e): e is [string, number] => e[1] !== undefined),
    ),
    ...promiseCountFigures(r.promises),
  };
}

/**
 * One measured window of the `work` part: `concurrency` runs of one kind in flight, and over the
 * measured interval each process's CPU and the server's persistence requests, per completed
 * workflow; and where those workflows' time went, read from their histories afterwards.
 */
import { requestsPerWorkflow, serverCounts, sumOf, type ServerCounts } from '../shared/metrics';
import { cpuSeconds } from '../shared/processes';
import type { BenchSettings } from '../shared/settings';
import type { PartContext, PartStack } from '../shared/stack';
import { round } from '../shared/stats';
import { meanSteps, runSteps } from '../shared/timeline';
import { measureWindow, type Kind, type Window } from '../shared/windows';
import type { Pids, WindowFigures, WorkWindow } from './result';
import type { TimedRun, WorkRuns } from './runs';

/** CPU seconds so far of each process in `pids`. */
function cpuOf<K extends string>(pids: Record<K, number>): Record<K, number> {
  const out = {} as Record<K, number>;
  for (const k of Object.keys(pids) as K[]) out[k] = cpuSeconds(pids[k]);
  return out;
}

/** Each process's CPU and the server's counts at an edge of the measured interval. */
interface Edge {
  readonly cpu: Record<keyof Pids, number>;
  readonly counts: ServerCounts;
}

/** What a window's edges say, per completed workflow. */
function figuresOf(w: Window, kind: Kind, start: Edge, end: Edge, roundNo: number) {
  const each = (n: number) => n / Math.max(1, w.completed);
  const cpuMs = Object.fromEntries(
    (Object.keys(end.cpu) as (keyof Pids)[]).map((k) => [
      k,
      each((end.cpu[k] - start.cpu[k]) * 1000),
    ]),
  ) as Record<keyof Pids, number>;
  const saves = each(end.counts.stateChanges - start.counts.stateChanges);
  const requests = requestsPerWorkflow(start.counts.requests, end.counts.requests, w.completed);
  const seconds = requestsPerWorkflow(start.counts.seconds, end.counts.seconds, w.completed);
  const window: WorkWindow = {
    round: roundNo,
    kind,
    perSecond: round(w.completed / w.seconds),
    serverCpuMs: round(cpuMs.server, 2),
    workerCpuMs: round(cpuMs.worker, 2),
    requests: round(sumOf(requests), 1),
    requestMs: round(sumOf(seconds) * 1000, 1),
  };
  const perSecond = w.completed / w.seconds;
  const figures: WindowFigures = {
    kind,
    perSecond,
    cpuMs,
    saves,
    requests,
    latencies: w.latencies,
  };
  return { figures, window };
}

/** One window of `kind` at `concurrency` in flight: each process's CPU and the server's requests. */
export async function measureWorkWindow(
  s: BenchSettings['work'],
  ctx: PartContext,
  stack: PartStack,
  runs: WorkRuns,
  pids: Pids,
  kind: Kind,
  roundNo: number,
): Promise<{ figures: WindowFigures; window: WorkWindow }> {
  const empty: ServerCounts = { stateChanges: 0, requests: new Map(), seconds: new Map() };
  let start: Edge = { cpu: cpuOf(pids), counts: empty };
  let end = start;
  const w = await measureWindow(() => runs.one(kind), {
    concurrency: s.concurrency,
    warmupMs: s.warmupMs,
    ms: s.durationMs / 2,
    onFirstFailure: (err) => ctx.log(`work ${kind} failure: ${String(err)}`),
    onMeasure: async (edge) => {
      const now = { cpu: cpuOf(pids), counts: await serverCounts(stack.metricsUrl) };
      if (edge === 'start') {
        start = now;
        runs.takeTimed();
      } else {
        end = now;
      }
    },
  });
  const measured = figuresOf(w, kind, start, end, roundNo);
  const { window, figures } = measured;
  ctx.log(
    `work round ${roundNo} ${kind}: ${window.perSecond}/s, server ${window.serverCpuMs} ms CPU, ${round(figures.saves, 1)} state changes and ${window.requests} requests (${window.requestMs} ms) each, worker ${window.workerCpuMs} ms CPU; simulator ${round(figures.cpuMs.simulator, 2)}, bench client ${round(figures.cpuMs.client, 2)} ms`,
  );
  return measured;
}

/** Mean steps of up to 50 runs spread over `runs` (their histories read once the window is over). */
export async function stepsOf(stack: PartStack, runs: readonly TimedRun[]) {
  const every = Math.max(1, Math.floor(runs.length / 50));
  const picked = runs.filter((_, i) => i % every === 0).slice(0, 50);
  const steps = await Promise.all(
    picked.map(async (r) => {
      const h = await stack.temporal.client.workflow.getHandle(r.id).fetchHistory();
      return runSteps(h.events ?? [], r.startedAt, r.resultAt);
    }),
  );
  return meanSteps(steps);
}

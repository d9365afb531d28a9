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
import { summarize } from '../shared/stats';
import type { BenchSettings } from '../shared/settings';
import { startPartStack, type PartContext, type PartStack } from '../shared/stack';
import type { Step } from '../shared/timeline';
import { roundOrders, type Kind } from '../shared/windows';
import {
  workResult,
  type Pids,
  type ServerWorkResult,
  type WindowFigures,
  type WorkWindow,
} from './result';
import { WorkRuns } from './runs';
import { measureWorkWindow, stepsOf } from './window';

export type { ServerWorkResult, WorkWindow } from './result';

type Settings = BenchSettings['work'];

/** Every process that shares the cores, the bench process as the order system's client. */
function pidsOf(stack: PartStack): Pids {
  const server = stack.temporal.serverPids.server;
  if (server === undefined) throw new Error('the dev server has no pid to read CPU time from');
  return { server, worker: stack.workers[0]!.pid, simulator: stack.sim.pid, client: process.pid };
}

/**
 * The rounds: a window of each kind, in alternating order; the last round's runs read for where
 * their time went.
 */
async function measureRounds(s: Settings, ctx: PartContext, stack: PartStack, runs: WorkRuns) {
  const pids = pidsOf(stack);
  const figures: WindowFigures[] = [];
  const windows: WorkWindow[] = [];
  const loadedSteps = {} as Record<Kind, Record<Step, number>>;
  for (const [r, order] of roundOrders(s.rounds).entries()) {
    for (const kind of order) {
      const measured = await measureWorkWindow(s, ctx, stack, runs, pids, kind, r + 1);
      figures.push(measured.figures);
      windows.push(measured.window);
      const timed = runs.takeTimed();
      if (r === s.rounds - 1) loadedSteps[kind] = await stepsOf(stack, timed);
    }
  }
  return { figures, windows, loadedSteps };
}

/** Latency one at a time: no queueing, the engine's and the workflow's own time, ms. */
async function sequentialLatency(s: Settings, runs: WorkRuns) {
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
async function historyLength(stack: PartStack, id: string): Promise<number> {
  return (await stack.temporal.client.workflow.getHandle(id).fetchHistory()).events?.length ?? 0;
}

/** History events of a booking (its guard's part included, p50 of the samples) and a control. */
async function historyEvents(stack: PartStack, runs: WorkRuns) {
  const control = await runs.control();
  await control.result();
  const bookings = await Promise.all(runs.samples.map((o) => historyLength(stack, `booking-${o}`)));
  return {
    bookRoom: summarize(bookings).p50,
    control: await historyLength(stack, control.workflowId),
  };
}

export async function runServerWorkBench(s: Settings, ctx: PartContext): Promise<ServerWorkResult> {
  const stack = await startPartStack(ctx, {
    name: 'work',
    latencyMs: s.latencyMs,
    workflow: s.workflow,
    worker: s.supplierCap.perSecond > 0 ? { supplierCap: s.supplierCap } : {},
  });
  try {
    const runs = new WorkRuns(s, stack);
    const { figures, windows, loadedSteps } = await measureRounds(s, ctx, stack, runs);
    const sequential = await sequentialLatency(s, runs);
    const events = await historyEvents(stack, runs);
    return workResult(s, figures, { windows, loadedSteps, sequential, historyEvents: events });
  } finally {
    await stack.stop();
  }
}

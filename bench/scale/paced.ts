/**
 * The `scale` part's paced build: the population built again on a fresh dev server, simulator and
 * worker (the first population's polls gone), its starts spaced evenly at a fraction of the
 * sustainable rate probed on the first population, and the minute after it.
 */
import type { BenchSettings } from '../shared/settings';
import type { PartContext } from '../shared/stack';
import { round, summarize } from '../shared/stats';
import { build, startScaleStack, waitingInputs, workerOf } from './build';
import { workflowTaskTimeouts } from './history-scan';
import { settleAfterBuild } from './poll-lateness';
import type { PacedBuild } from './types';

/** The window after the paced build: its minute (the settle window when that is shorter). */
const PACED_AFTER_MS = 60_000;

/**
 * The same population again on a fresh stack, paced at `pacedFraction` of the sustainable rate,
 * and the minute after it.
 */
export async function runPacedBuild(
  s: BenchSettings['scale'],
  ctx: PartContext,
  /** The sustainable rate probed on the flat-out build's population, bookings/s. */
  sustainablePerSecond: number,
): Promise<PacedBuild> {
  const startsPerSecond = sustainablePerSecond * s.pacedFraction;
  const stack = await startScaleStack(s, ctx);
  try {
    const inputs = waitingInputs(s);
    ctx.log(
      `scale: paced build, ${s.workflows} bookings at ${round(startsPerSecond)} starts/s ` +
        `(${s.pacedFraction} × the sustainable ${sustainablePerSecond}/s) on a fresh server and worker`,
    );
    const built = await build(s, ctx, stack, inputs, startsPerSecond);
    ctx.log(`scale: paced, ${s.workflows} booked in ${round(built.seconds)} s`);
    const after = Math.min(s.settleMs, PACED_AFTER_MS);
    const { buildLateness, settle } = await settleAfterBuild(s, workerOf(stack), after);
    ctx.log(
      `scale: paced, settled for ${settle.seconds} s, ${settle.polls} polls, ` +
        `lateness p99 ${settle.pollLatenessP99Ms} ms`,
    );
    const timeouts = await workflowTaskTimeouts(stack.bookings, inputs, s.historySample);
    return {
      ofSustainable: s.pacedFraction,
      startsPerSecond: round(startsPerSecond),
      bookingsPerSecond: round(s.workflows / built.seconds),
      seconds: round(built.seconds),
      buildPollLatenessP99Ms: round(summarize(buildLateness).p99),
      afterSeconds: settle.seconds,
      polls: settle.polls,
      pollLatenessP99Ms: settle.pollLatenessP99Ms,
      pollLatenessP50Ms: settle.pollLatenessP50Ms,
      latePollsBy10s: settle.latePollsBy10s,
      workflowTaskTimeouts: timeouts.count,
      historiesScanned: timeouts.scanned,
      buildRssMiB: round(built.rssMiB),
    };
  } finally {
    await stack.stop();
  }
}

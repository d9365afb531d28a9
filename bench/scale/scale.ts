/**
 * Scale: many bookings open at once, each waiting for a confirmation that never comes (simulator
 * scenario `pending-long`), polled by the product's polling pattern (one retrieve per activity
 * attempt, the retry policy as the schedule). Once the population is built, it is watched for a
 * while and the bench reports:
 *
 * - the worker's RSS (the worker runs in its own process, compiled, as production runs it:
 *   `/proc/<pid>/status` VmRSS) once started, before its first booking; the largest sample while
 *   the population is built; the largest while watching;
 * - workflow task timeouts: `WorkflowTaskTimedOut` events counted in the histories themselves
 *   (every open workflow by default, or a sample). The history is the ground truth: a timeout is
 *   decided by the server and the worker never sees it, so the worker's `temporal_workflow_task_*`
 *   metrics can only hint at one (they are reported beside it: schedule-to-start and execution
 *   latency, failures, cache evictions);
 * - poll lateness: each poll reports `Date.now() - currentAttemptScheduledTimestampMs` through the
 *   worker's `onPollLateness`; p99 over the watch window. Building the population runs the server
 *   flat out and polls fall behind meanwhile, so the ramp-up's polls and the settle window in
 *   which that backlog drains (one poll cap by default) are reported separately.
 *
 * Then the sustainable rate (`sustainable`), probed on the standing population: new bookings
 * started in steps of rising rate, until a step's polls run over 1 s late at p99
 * (bench/scale/probe.ts). Then a paced build (`paced`): as many bookings again on a fresh dev
 * server, simulator and worker (the first population's polls gone), started evenly at a fraction
 * (0.8) of that rate, and the poll lateness of the minute after it: what an order system
 * that sends bookings at a sustainable rate leaves behind.
 *
 * Each dev server and its SQLite file are dropped afterwards, which ends the workflows.
 */
import type { BenchSettings } from '../shared/settings';
import type { PartContext } from '../shared/stack';
import { runFlatOutBuild } from './flat-out';
import { runPacedBuild } from './paced';
import type { ScaleResult } from './types';

export type { PacedBuild, ScaleResult } from './types';

export async function runScaleBench(
  s: BenchSettings['scale'],
  ctx: PartContext,
): Promise<ScaleResult> {
  const flatOut = await runFlatOutBuild(s, ctx);
  if (!(s.pacedFraction > 0)) return flatOut;
  if (!(flatOut.sustainable.bookingsPerSecond > 0)) {
    ctx.log('scale: no paced build: no rate held on the standing population');
    return flatOut;
  }
  return { ...flatOut, paced: await runPacedBuild(s, ctx, flatOut.sustainable.bookingsPerSecond) };
}

/**
 * The `scale` part's stack and build: a fresh dev server, simulator and worker for each build, the
 * population of waiting bookings, and the build on a stack (flat out or paced) with its worker's RSS
 * sampled and its progress logged.
 */
import type { BookRoomInput } from '../../src/client';
import { DEFAULT_POLLING } from '../../src/config/defaults';
import { benchBookingInput } from '../shared/bookings';
import type { WorkerHandle } from '../shared/children';
import { rssMiB } from '../shared/processes';
import type { BenchSettings } from '../shared/settings';
import { startPartStack, type PartContext, type PartStack } from '../shared/stack';
import { round } from '../shared/stats';
import { buildWaitingPopulation, type BuildProgress } from '../shared/waiting-population';

/** One build's dev server, simulator and worker (started fresh), and a client on its task queue. */
export const startScaleStack = (s: BenchSettings['scale'], ctx: PartContext) =>
  startPartStack(ctx, { name: 'scale', latencyMs: s.latencyMs });

/** The stack's one worker. */
export const workerOf = (stack: PartStack): WorkerHandle => stack.workers[0]!;

/** The part's population: bookings waiting for a confirmation that never comes, on its polls. */
export function waitingInputs(s: BenchSettings['scale']): BookRoomInput[] {
  return Array.from({ length: s.workflows }, () =>
    benchBookingInput('pending-long', {
      polling: {
        initialInterval: s.pollInitialMs,
        maximumInterval: s.pollMaximumMs,
        backoffCoefficient: DEFAULT_POLLING.backoffCoefficient,
      },
      confirmationDeadline: '6h',
    }),
  );
}

/**
 * The share of a build, counted from its end, whose rate is the build's sustained rate: the
 * bookings of its last fifth are made while nearly the whole population already polls.
 */
const SUSTAINED_SHARE = 0.2;

/**
 * Builds the population on `stack` (flat out, or paced at `startsPerSecond`), sampling the
 * worker's RSS and the bookings made every second and logging progress every 15 s: the build's
 * seconds, largest RSS, and its sustained rate (bookings/s over the last fifth of its bookings).
 */
export async function build(
  s: BenchSettings['scale'],
  ctx: PartContext,
  stack: PartStack,
  inputs: readonly BookRoomInput[],
  startsPerSecond?: number,
): Promise<{ seconds: number; rssMiB: number; sustainedPerSecond: number }> {
  const worker = workerOf(stack);
  const t0 = performance.now();
  const progress: BuildProgress = { started: 0, booked: 0 };
  let buildRss = rssMiB(worker.pid);
  /** When the build's last fifth began: the time, and the bookings made by then. */
  let lastShare = { at: t0, booked: 0 };
  const rssSampler = setInterval(() => {
    buildRss = Math.max(buildRss, rssMiB(worker.pid));
    if (lastShare.booked === 0 && progress.booked >= (1 - SUSTAINED_SHARE) * inputs.length) {
      lastShare = { at: performance.now(), booked: progress.booked };
    }
  }, 1_000);
  const progressLog = setInterval(() => {
    void worker
      .memory()
      .then((m) =>
        ctx.log(
          `scale: ${progress.started} started, ${progress.booked} booked, worker RSS ${round(rssMiB(worker.pid))} MiB ` +
            `(main thread heap ${round(m.heapUsed / 2 ** 20)} MiB, external ${round(m.external / 2 ** 20)} MiB)`,
        ),
      );
  }, 15_000);
  try {
    await buildWaitingPopulation({
      inputs,
      rampInFlight: s.rampInFlight,
      bookings: stack.bookings,
      sim: stack.sim,
      progress,
      ...(startsPerSecond ? { startsPerSecond } : {}),
    });
  } finally {
    clearInterval(progressLog);
    clearInterval(rssSampler);
  }
  const end = performance.now();
  return {
    seconds: (end - t0) / 1000,
    rssMiB: buildRss,
    sustainedPerSecond: (inputs.length - lastShare.booked) / ((end - lastShare.at) / 1000),
  };
}

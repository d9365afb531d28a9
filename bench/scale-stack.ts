/**
 * The `scale` part's stack and build: a fresh dev server, simulator and worker for each build, the
 * population of waiting bookings, and the build on a stack (flat out or paced) with its worker's RSS
 * sampled and its progress logged.
 */
import { randomUUID } from 'node:crypto';
import { BookingClient, type BookRoomInput } from '../src/client';
import { DEFAULT_POLLING } from '../src/config/defaults';
import type { BenchSettings } from './bench-config';
import { benchBookingInput } from './bookings';
import {
  rssMiB,
  startBenchTemporal,
  startSimulatorChild,
  partWorker,
  startWorker,
  type SimulatorChild,
  type WorkerHandle,
} from './bench-stack';
import type { ScaleContext } from './scale';
import { round } from './stats';
import { buildWaitingPopulation, type BuildProgress } from './waiting-population';

/** One build's dev server, simulator and worker (started fresh), and a client on its task queue. */
export interface ScaleStack {
  readonly temporal: Awaited<ReturnType<typeof startBenchTemporal>>;
  readonly sim: SimulatorChild;
  readonly worker: WorkerHandle;
  readonly taskQueue: string;
  readonly bookings: BookingClient;
  stop(): Promise<void>;
}

export async function startScaleStack(
  s: BenchSettings['scale'],
  ctx: ScaleContext,
): Promise<ScaleStack> {
  const temporal = await startBenchTemporal(ctx.serverDynamicConfig);
  const sim = await startSimulatorChild(s.latencyMs);
  const taskQueue = `bench-scale-${randomUUID().slice(0, 8)}`;
  const worker = await startWorker(partWorker(ctx, temporal, taskQueue, sim.baseUrl));
  return {
    temporal,
    sim,
    worker,
    taskQueue,
    bookings: new BookingClient({ client: temporal.client, taskQueue }),
    async stop() {
      await worker.stop();
      await sim.stop();
      await temporal.close();
    },
  };
}

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
  ctx: ScaleContext,
  stack: ScaleStack,
  inputs: readonly BookRoomInput[],
  startsPerSecond?: number,
): Promise<{ seconds: number; rssMiB: number; sustainedPerSecond: number }> {
  const { worker } = stack;
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

/**
 * A stack for tests that read when and in which order the supplier's calls arrived: a simulator
 * of the test's own that logs every arrival, the suite's Temporal, a task queue of the test's own,
 * and booking workers on it that the test starts and stops (a restart, a worker without activity
 * slots). Bookings left waiting are terminated when the stack closes.
 */
import { WorkflowNotFoundError } from '@temporalio/client';
import { BookingClient, type BookRoomInput } from '../../src/client';
import { HotelApiClient } from '../../src/hotel-api';
import { buildSimulator, type ArrivedRequest } from '../../tools/simulator';
import { COMPANY, hotelApiConfig, stackWorker } from './booking-stack';
import { connectTemporal, uniqueTaskQueue } from './temporal';

export interface ArrivalStack {
  /** Every request the simulator received, in arrival order. */
  readonly arrivals: ArrivedRequest[];
  readonly bookings: BookingClient;
  /** A booking worker on the stack's task queue; `stop` shuts it down and surfaces its failure. */
  readonly startWorker: (options?: {
    /** Takes activities. @default true */
    readonly activities?: boolean;
    /** Activity slots. @default the worker's */
    readonly slots?: number;
  }) => Promise<{ readonly stop: () => Promise<void> }>;
  /** Terminates these bookings' workflows when the stack closes. */
  readonly terminateAtClose: (inputs: readonly BookRoomInput[]) => void;
  readonly close: () => Promise<void>;
}

/** `seed` also picks the simulator's booking ids (`seed` × 100,000,000 up), apart per test file. */
export async function startArrivalStack(tag: string, seed: number): Promise<ArrivalStack> {
  const cleanups: (() => Promise<unknown>)[] = [];
  const close = async () => {
    for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
  };
  try {
    const arrivals: ArrivedRequest[] = [];
    const sim = buildSimulator({
      companies: [{ ...COMPANY, active: true }],
      seed,
      firstBookingId: seed * 100_000_000 + Math.floor(Math.random() * 1_000_000) * 100,
      onRequest: (r) => arrivals.push(r),
    });
    const { url } = await sim.listen(0, '127.0.0.1');
    cleanups.push(() => sim.close());
    const hotelApi = new HotelApiClient(hotelApiConfig(url.replace(/\/api\/v1\/?$/, '')));
    cleanups.push(() => hotelApi.close());
    const t = await connectTemporal();
    cleanups.push(() => t.close());
    const taskQueue = uniqueTaskQueue(tag);
    const bookings = new BookingClient({ client: t.client, taskQueue });
    return {
      arrivals,
      bookings,
      startWorker: async (options = {}) => {
        const worker = await stackWorker({ temporal: t, hotelApi }, taskQueue, {
          shutdownGraceTime: '2s',
          ...(options.slots ? { maxConcurrentActivities: options.slots } : {}),
          overrides: options.activities === false ? { enableNonLocalActivities: false } : {},
        });
        const run = worker.run();
        let stopped: Promise<void> | undefined;
        const stop = () => {
          if (!stopped) {
            if (worker.getState() === 'RUNNING') worker.shutdown();
            stopped = run;
          }
          return stopped;
        };
        cleanups.push(stop);
        return { stop };
      },
      terminateAtClose: (inputs) => {
        cleanups.push(() =>
          Promise.all(
            inputs.map((i) =>
              bookings
                .handle(i.orderId)
                .terminate('test over')
                .catch((err: unknown) => {
                  if (!(err instanceof WorkflowNotFoundError)) throw err;
                }),
            ),
          ),
        );
      },
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}

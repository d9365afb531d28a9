/**
 * A population of waiting bookings, built the way the `scale` and `ahead` parts build it: each
 * booking waits for a confirmation that never comes (simulator scenario `pending-long`), started
 * as fast as the system takes them or at a set pace, with a cap on those not yet booked.
 */
import type { BookingClient, BookRoomInput } from '../../src/client';
import type { SimulatorChild } from './children';
import { sleep } from './stats';

/** Runs `fn` over `items` with at most `concurrency` at once. */
export async function forEachLimit<T>(
  items: readonly T[],
  concurrency: number,
  fn: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      while (next < items.length) {
        const item = items[next++] as T;
        await fn(item);
      }
    }),
  );
}

/** How far {@link buildWaitingPopulation} is: bookings started, and booked at the supplier. */
export interface BuildProgress {
  started: number;
  booked: number;
}

/**
 * Starts every booking of `inputs` (each waits for a confirmation that never comes) as fast as the
 * system takes them: at most `rampInFlight` between started and booked at the supplier (through
 * price check and booking, into the polling phase). With `startsPerSecond`, the starts are paced
 * too: one at a time, on a schedule of `1 / startsPerSecond` apart; a start late by less than
 * that (a timer's jitter) keeps the schedule, one held back longer by the cap restarts it from
 * its own time, so the next ones do not catch up in a burst. Resolves once all are booked.
 */
export async function buildWaitingPopulation(o: {
  readonly inputs: readonly BookRoomInput[];
  readonly rampInFlight: number;
  readonly bookings: BookingClient;
  readonly sim: SimulatorChild;
  readonly progress?: BuildProgress;
  readonly startsPerSecond?: number;
}): Promise<void> {
  const p = o.progress ?? { started: 0, booked: 0 };
  const base = await o.sim.bookings();
  const pacedMs = o.startsPerSecond ? o.inputs.length * (1000 / o.startsPerSecond) : 0;
  const deadline = performance.now() + Math.max(300_000, o.inputs.length * 200, 2 * pacedMs);
  const spacingMs = o.startsPerSecond ? 1000 / o.startsPerSecond : 0;
  let nextStartAt = performance.now();
  let turns: Promise<void> = Promise.resolve();
  let refreshed = 0;
  const refreshBooked = async () => {
    if (performance.now() - refreshed < 100) return;
    refreshed = performance.now();
    p.booked = (await o.sim.bookings()) - base;
  };
  await forEachLimit(o.inputs, o.rampInFlight, async (input) => {
    const underCap = async () => {
      while (p.started - p.booked >= o.rampInFlight) {
        await sleep(50);
        await refreshBooked();
      }
      p.started += 1;
    };
    if (spacingMs > 0) {
      // Paced: the loops take their turns one after the other; only the start calls overlap.
      turns = turns.then(async () => {
        await sleep(Math.max(0, nextStartAt - performance.now()));
        await underCap();
        const now = performance.now();
        nextStartAt = (now - nextStartAt < spacingMs ? nextStartAt : now) + spacingMs;
      });
      await turns;
    } else {
      await underCap();
    }
    await o.bookings.startBooking(input);
  });
  while (p.booked < o.inputs.length) {
    if (performance.now() > deadline) {
      throw new Error(`only ${p.booked} of ${o.inputs.length} bookings were made`);
    }
    await sleep(200);
    await refreshBooked();
  }
}

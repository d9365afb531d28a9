/**
 * The `accounts` part's orders: a booking through a named account, a batch of them at a fixed
 * concurrency, a wait for a condition, and a sampler of a count over time.
 */
import type { BookingClient } from '../../src/client';
import type { BookRoomInput } from '../../src/shared/booking-contract';
import { NO_GUARD, benchBookingInput } from '../shared/bookings';
import { sleep } from '../shared/stats';

/** A `bookRoom` input that confirms at once, through the account `supplier`. */
export function accountInput(supplier: string, guard: boolean): BookRoomInput {
  return benchBookingInput('instant', { supplier, ...(guard ? {} : NO_GUARD) });
}

/** One booking through `supplier`, to its decision: whether it confirmed. */
export async function bookThrough(
  bookings: BookingClient,
  supplier: string,
  guard: boolean,
): Promise<boolean> {
  const started = await bookings.startBooking(accountInput(supplier, guard));
  return (await bookings.result(started)).outcome === 'CONFIRMED';
}

export interface Batch {
  readonly confirmed: number;
  readonly failures: number;
  readonly seconds: number;
  /** Confirmed ÷ seconds, first start to last decision. */
  readonly perSecond: number;
}

/** `total` runs of `one`, `concurrency` at a time, timed from the first start to the last end. */
export async function runBatch(
  total: number,
  concurrency: number,
  one: () => Promise<boolean>,
  onFirstFailure: (err: unknown) => void,
): Promise<Batch> {
  let next = 0;
  let confirmed = 0;
  let failures = 0;
  const t0 = performance.now();
  const loop = async () => {
    while (next < total) {
      next += 1;
      const ok = await one().catch((err: unknown) => {
        if (failures === 0) onFirstFailure(err);
        return false;
      });
      if (ok) confirmed += 1;
      else failures += 1;
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, total) }, loop));
  const seconds = (performance.now() - t0) / 1000;
  return { confirmed, failures, seconds, perSecond: confirmed / seconds };
}

/** Resolves once `check` holds, checked every 100 ms; throws `what` after `timeoutMs`. */
export async function until(
  check: () => Promise<boolean>,
  timeoutMs: number,
  what: string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`accounts: not within ${timeoutMs} ms: ${what}`);
    await sleep(100);
  }
}

/** Reads `read` every `everyMs` until stopped; `stop` gives every sample, with when it was read. */
export function sampler<T>(read: () => Promise<T>, everyMs: number) {
  const samples: { at: number; value: T }[] = [];
  let running = true;
  let failed: unknown;
  const loop = (async () => {
    while (running) {
      const value = await read();
      samples.push({ at: performance.now(), value });
      await sleep(everyMs);
    }
  })().catch((err: unknown) => void (failed = err));
  return {
    /** Every sample; a read that failed is thrown here. */
    async stop(): Promise<{ at: number; value: T }[]> {
      running = false;
      await loop;
      if (failed !== undefined) throw failed;
      return samples;
    },
  };
}

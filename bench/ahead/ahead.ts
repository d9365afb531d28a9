/**
 * Bookings ahead of polls: how long a new booking waits for its first supplier call (its price
 * check) while a population of waiting bookings has its polls due, with task-queue priority
 * (the product's server settings) and without it (a baseline server without
 * `matching.useNewMatcher`, which ignores priority: first come, first served), in the same run.
 *
 * Per variant: a fresh dev server, simulator and worker; a population of bookings waiting for a
 * confirmation that never comes is built (the scale part's build), polled every `pollMs`. Then the
 * worker stops for one poll interval, so every booking of the population has a poll due and the
 * activity queue holds them all; a new worker starts and, at once, new bookings are started at a
 * steady rate. Each one's time from its start call to its price check's arrival at the simulator
 * is the figure (p50, p99, max).
 */
import type { BookRoomInput } from '../../src/client';
import { benchBookingInput } from '../shared/bookings';
import type { BenchSettings } from '../shared/settings';
import { startPartStack, type PartContext, type PartStack } from '../shared/stack';
import { round, sleep, summarize } from '../shared/stats';
import { buildWaitingPopulation } from '../shared/waiting-population';

export interface AheadVariant {
  /** Bookings of the population, each with a poll due when the new bookings start. */
  readonly populationDue: number;
  /** Time from a new booking's start call to its first supplier call (price check), ms. */
  readonly firstCallP50Ms: number;
  readonly firstCallP99Ms: number;
  readonly firstCallMaxMs: number;
  /** New bookings whose price check had not arrived when the wait ended (counted at the wait). */
  readonly missing: number;
  /** Polls the supplier served from the first new booking's start to the last one's price check. */
  readonly pollsMeanwhile: number;
  readonly buildSeconds: number;
}

export interface AheadResult {
  readonly population: number;
  readonly newBookings: number;
  readonly newBookingsPerSecond: number;
  readonly pollMs: number;
  /** The product's settings: priority honoured. */
  readonly priority: AheadVariant;
  /** The same, on a server without the new matcher: priority ignored. */
  readonly baseline: AheadVariant;
}

/** How long to wait for the new bookings' price checks before counting the rest as missing. */
const WAIT_MS = 180_000;

type Settings = BenchSettings['ahead'];

/** The population: bookings polled every `pollMs`, waiting for a confirmation that never comes. */
async function buildPopulation(s: Settings, stack: PartStack): Promise<number> {
  const polling = { initialInterval: s.pollMs, maximumInterval: s.pollMs, backoffCoefficient: 1 };
  const population = Array.from({ length: s.workflows }, () =>
    benchBookingInput('pending-long', { polling, confirmationDeadline: '6h' }),
  );
  const t0 = performance.now();
  await buildWaitingPopulation({
    inputs: population,
    rampInFlight: 50,
    bookings: stack.bookings,
    sim: stack.sim,
  });
  return (performance.now() - t0) / 1000;
}

/** Every booking of the population gets a poll due while no worker takes it; then a new worker. */
async function letPollsFallDue(s: Settings, stack: PartStack): Promise<void> {
  await stack.stopWorkers();
  await sleep(s.pollMs + 2_000);
  await stack.startWorker();
}

/** New bookings started at a steady rate; when each start call was made (epoch ms). */
async function startNewBookings(s: Settings, stack: PartStack, fresh: readonly BookRoomInput[]) {
  const startedAt: number[] = [];
  const began = performance.now();
  const starts: Promise<unknown>[] = [];
  for (const [i, input] of fresh.entries()) {
    const due = began + (i * 1000) / s.newBookingsPerSecond;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    startedAt[i] = Date.now();
    starts.push(stack.bookings.startBooking(input));
  }
  await Promise.all(starts);
  return startedAt;
}

/** When each option's first price check arrived (null: not within `WAIT_MS`). */
async function priceCheckArrivals(stack: PartStack, ids: readonly string[]) {
  const deadline = performance.now() + WAIT_MS;
  let arrivals = await stack.sim.priceCheckArrivals(ids);
  while (arrivals.some((a) => a === null) && performance.now() < deadline) {
    await sleep(500);
    arrivals = await stack.sim.priceCheckArrivals(ids);
  }
  return arrivals;
}

async function runVariant(
  s: Settings,
  ctx: PartContext,
  name: string,
  dynamicConfig: Readonly<Record<string, string>>,
): Promise<AheadVariant> {
  const stack = await startPartStack(ctx, { name: 'ahead', latencyMs: s.latencyMs, dynamicConfig });
  try {
    const buildSeconds = await buildPopulation(s, stack);
    ctx.log(`ahead/${name}: ${s.workflows} waiting bookings built in ${round(buildSeconds)} s`);
    await letPollsFallDue(s, stack);
    const retrieves = async () => (await stack.sim.requests()).byEndpoint.retrieve?.total ?? 0;
    const polls0 = await retrieves();
    const fresh = Array.from({ length: s.newBookings }, () => benchBookingInput('instant'));
    const startedAt = await startNewBookings(s, stack, fresh);
    const arrivals = await priceCheckArrivals(
      stack,
      fresh.map((i) => i.optionId),
    );
    const pollsMeanwhile = (await retrieves()) - polls0;
    const missing = arrivals.filter((a) => a === null).length;
    // A price check that never came counts as the whole wait: the figure can only be understated.
    const waits = arrivals.map((a, i) => (a === null ? WAIT_MS : a - (startedAt[i] ?? a)));
    const w = summarize(waits);
    ctx.log(
      `ahead/${name}: first supplier call p50 ${round(w.p50)} p99 ${round(w.p99)} max ${round(w.max)} ms` +
        `${missing > 0 ? `, ${missing} missing` : ''}; ${pollsMeanwhile} polls served meanwhile`,
    );
    return {
      populationDue: s.workflows,
      firstCallP50Ms: round(w.p50),
      firstCallP99Ms: round(w.p99),
      firstCallMaxMs: round(w.max),
      missing,
      pollsMeanwhile,
      buildSeconds: round(buildSeconds),
    };
  } finally {
    await stack.stop();
  }
}

export async function runAheadBench(s: Settings, ctx: PartContext): Promise<AheadResult> {
  const priority = await runVariant(s, ctx, 'priority', {});
  const baseline = await runVariant(s, ctx, 'baseline', { 'matching.useNewMatcher': 'false' });
  return {
    population: s.workflows,
    newBookings: s.newBookings,
    newBookingsPerSecond: s.newBookingsPerSecond,
    pollMs: s.pollMs,
    priority,
    baseline,
  };
}

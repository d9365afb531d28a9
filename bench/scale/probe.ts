/**
 * The `scale` part's sustainable rate, measured on the standing population: after the watch, once
 * a step's length without new bookings has the population's polls on time (at most 20 such), new
 * waiting bookings are started in steps of rising rate (`probeStepMs` each, the rates 1.5 × apart
 * from `PROBE_FIRST_PER_SECOND` up to the flat-out build's sustained rate). A step holds when its
 * polls (the population's and its own) start at most `PROBE_LATE_MS` late at p99, and it kept
 * the pace. The sustainable rate is the last step that held before the first that did not: what
 * an order system can send for as long as it likes, with every poll on time.
 */
import type { BenchSettings } from '../shared/settings';
import type { PartContext, PartStack } from '../shared/stack';
import { round, sleep, summarize } from '../shared/stats';
import { build, waitingInputs, workerOf } from './build';

/** The first step's rate, bookings/s. */
const PROBE_FIRST_PER_SECOND = 1;
/** Each step's rate ÷ the one before. */
const PROBE_STEP_FACTOR = 1.5;
/** A step holds when its polls' lateness p99 is at most this, ms: the paced build's target. */
const PROBE_LATE_MS = 1_000;
/** …and it made its bookings at this share of its rate or more (the system kept the pace). */
const PROBE_KEPT_PACE = 0.9;
/** Steps' lengths without new bookings the population is given to have its polls on time. */
const PROBE_QUIET_STEPS = 20;

export interface ProbeStep {
  /** The rate asked, starts/s. */
  readonly askedPerSecond: number;
  /** Bookings made per second over the step. */
  readonly bookingsPerSecond: number;
  /** Polls started during the step, and their lateness p99, ms. */
  readonly polls: number;
  readonly pollLatenessP99Ms: number;
  readonly held: boolean;
}

export interface SustainableRate {
  /** Each step's length, s. */
  readonly stepSeconds: number;
  /** How long the population was left alone before the first step, until its polls were on time, s. */
  readonly quietSeconds: number;
  readonly steps: readonly ProbeStep[];
  /** The rate of the last step that held, bookings/s; 0 when the first did not. */
  readonly bookingsPerSecond: number;
}

/** The rates of the probe's steps: 1.5 × apart from the first, the last at most `ceiling`. */
export function probeRates(ceiling: number): number[] {
  const rates: number[] = [];
  for (let r = PROBE_FIRST_PER_SECOND; r <= ceiling; r *= PROBE_STEP_FACTOR) rates.push(round(r));
  return rates;
}

/**
 * Whether polls were on time: some started (a stretch with none says nothing about them, and its
 * p99 of nothing would be 0), and their lateness p99 at most `PROBE_LATE_MS`.
 */
export function pollsOnTime(polls: number, p99Ms: number): boolean {
  return polls > 0 && p99Ms <= PROBE_LATE_MS;
}

/** Whether a step held: its polls on time, and its bookings made at its pace. */
export function stepHolds(
  askedPerSecond: number,
  bookingsPerSecond: number,
  polls: number,
  p99Ms: number,
): boolean {
  return pollsOnTime(polls, p99Ms) && bookingsPerSecond >= PROBE_KEPT_PACE * askedPerSecond;
}

/**
 * The population's own polls first: a step's length at a time with no new booking, until one has
 * them on time (a population built flat out in ten minutes is still in its first, dearest polls,
 * and the build's backlog drains). The seconds it took, or undefined when `PROBE_QUIET_STEPS` did
 * not do it.
 */
async function waitForPollsOnTime(
  s: BenchSettings['scale'],
  ctx: PartContext,
  takeLateness: () => Promise<number[]>,
): Promise<number | undefined> {
  for (let quiet = 1; quiet <= PROBE_QUIET_STEPS; quiet++) {
    await sleep(s.probeStepMs);
    const seconds = round((quiet * s.probeStepMs) / 1000);
    const lateness = await takeLateness();
    const p99 = round(summarize(lateness).p99);
    ctx.log(
      `scale: probe waits for the population's polls: ${lateness.length} polls, p99 ${p99} ms after ${seconds} s`,
    );
    if (pollsOnTime(lateness.length, p99)) return seconds;
  }
  return undefined;
}

/**
 * Steps up the start rate on `stack`'s standing population until a step does not hold (or the
 * flat-out build's sustained rate, `ceiling`, is reached). Each step's bookings join the population.
 */
export async function probeSustainableRate(
  s: BenchSettings['scale'],
  ctx: PartContext,
  stack: PartStack,
  ceiling: number,
): Promise<SustainableRate> {
  const steps: ProbeStep[] = [];
  const takeLateness = async () => {
    await workerOf(stack).takeLatenessTimes();
    return workerOf(stack).takeLateness();
  };
  await takeLateness();
  const quietSeconds = await waitForPollsOnTime(s, ctx, takeLateness);
  for (const rate of quietSeconds === undefined ? [] : probeRates(ceiling)) {
    const count = Math.max(1, Math.round((rate * s.probeStepMs) / 1000));
    const inputs = waitingInputs({ ...s, workflows: count });
    const built = await build(s, ctx, stack, inputs, rate);
    const lateness = await takeLateness();
    const p99 = round(summarize(lateness).p99);
    const bookingsPerSecond = round(count / built.seconds);
    const held = stepHolds(rate, bookingsPerSecond, lateness.length, p99);
    steps.push({
      askedPerSecond: rate,
      bookingsPerSecond,
      polls: lateness.length,
      pollLatenessP99Ms: p99,
      held,
    });
    ctx.log(
      `scale: probe ${rate}/s: ${count} booked at ${bookingsPerSecond}/s, ${lateness.length} polls, ` +
        `lateness p99 ${p99} ms: ${held ? 'held' : 'did not hold'}`,
    );
    if (!held) break;
  }
  return {
    stepSeconds: round(s.probeStepMs / 1000),
    quietSeconds: quietSeconds ?? round((PROBE_QUIET_STEPS * s.probeStepMs) / 1000),
    steps,
    bookingsPerSecond: steps.filter((step) => step.held).at(-1)?.bookingsPerSecond ?? 0,
  };
}

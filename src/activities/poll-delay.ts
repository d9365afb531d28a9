/** When the next poll of a pending booking (or cancellation) is due: pure decisions. */
import type { Polling } from '../shared/booking-contract';
import { durationToMs } from '../shared/duration';

/**
 * How much of each poll delay is random: drawn from `[(1 - POLL_JITTER) × d, d]`, never above the
 * schedule's delay `d`, so bookings started together drift apart. Every poll is jittered, not only
 * late ones: polls that drained a backlog together otherwise stayed in step (bench, 10,000
 * bookings: p99 lateness 6.8 s instead of 1.3 s).
 */
export const POLL_JITTER = 0.2;

/**
 * The least time from one poll to the next, as a share of the schedule's delay, when the poll ran
 * on time; a late poll's next one is at least as far away as the poll was late (up to a delay).
 */
export const POLL_MIN_GAP = 0.1;

/** The schedule's delay after poll `attempt`: exponential from `initialInterval`, capped. */
function scheduleDelayMs(polling: Polling, attempt: number): number {
  const initial = durationToMs(polling.initialInterval) ?? 5_000;
  const max = durationToMs(polling.maximumInterval) ?? 300_000;
  return Math.min(max, initial * polling.backoffCoefficient ** Math.max(0, attempt - 1));
}

/**
 * Delay between poll `attempt` being due and poll `attempt + 1` being due: the schedule's delay
 * less up to {@link POLL_JITTER} of it at random. `random` is for tests.
 */
export function pollDelayMs(
  polling: Polling,
  attempt: number,
  random: () => number = Math.random,
): number {
  return Math.round(scheduleDelayMs(polling, attempt) * (1 - POLL_JITTER * random()));
}

/**
 * How long from `nowMs` until poll `attempt + 1`, for poll `attempt` due at `dueAtMs` (the
 * server's `currentAttemptScheduledTimestampMs`): the first time on the booking's own schedule at
 * least as far from now as the poll was late (between {@link POLL_MIN_GAP} and one delay). Why:
 * docs/operating.md, "Polls when the server is behind"; the runs in bench/results/log.md.
 */
export function nextPollDelayMs(
  polling: Polling,
  attempt: number,
  dueAtMs: number,
  nowMs: number,
  random: () => number = Math.random,
): number {
  const slot = scheduleDelayMs(polling, attempt);
  // Only lateness is read across the two clocks: a poll whose due time is ahead of the worker's
  // clock (a worker clock behind the server's, a time-skipping test server) counts as on time.
  const late = Math.max(0, nowMs - dueAtMs);
  const gap = Math.min(slot, Math.max(POLL_MIN_GAP * slot, late));
  let delay = pollDelayMs(polling, attempt, random) - late;
  if (delay < gap) delay += Math.ceil((gap - delay) / slot) * slot;
  return Math.max(1, Math.round(delay));
}

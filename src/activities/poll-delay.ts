/**
 * When the next poll of a pending booking (or cancellation) is due: pure decisions, unit-tested
 * (test/activities/poll-delay.test.ts).
 */
import type { Polling } from '../shared/booking-contract';
import { durationToMs } from '../shared/duration';

/**
 * How much of each poll delay is random: a delay is drawn from `[(1 - POLL_JITTER) × d, d]`, never
 * above the schedule's own delay `d`, so bookings started together (a batch from the order
 * system) drift apart instead of polling together for as long as they wait.
 *
 * Every poll is jittered, not only one that started late: jittering only late polls left the
 * polls that drained a backlog together in step (the bench's watch after building 10,000: p99
 * lateness 6.8 s instead of 1.3 s, the burst back every minute). What keeps a drained backlog
 * from coming back together is {@link nextPollDelayMs}: the next poll is due after this one was
 * due, not after it ran.
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
 * How long from `nowMs` until poll `attempt + 1`, for poll `attempt` that was due at `dueAtMs`
 * (the server's time of the attempt, `currentAttemptScheduledTimestampMs`): on the booking's own
 * schedule, one {@link pollDelayMs} after `dueAtMs` or a whole number of delays after that, the
 * first such time at least as far from now as the poll was late (at least {@link POLL_MIN_GAP}
 * of a delay, at most one delay).
 *
 * - Polls that a busy server or a worker restart held up, then served together, go back to their
 *   own times, spread as before, instead of coming due together again a delay later (which kept
 *   a machine that had drained a backlog at its limit, cycle after cycle: bench/results/log.md).
 * - A poll that ran late skips the slots it could not keep apart from itself by its lateness, so
 *   a server that is behind gets fewer polls until it catches up: from about half a delay late, a
 *   booking polls every other slot (without it, 10,000 bookings' polls stayed behind for two
 *   minutes after the bench's build: bench/results/log.md).
 * - On time, the next poll comes one jittered delay after this one, as the schedule says.
 *
 * `nowMs` is the worker's clock and `dueAtMs` the server's. A worker clock behind the server's
 * makes polls count as on time (the delay is the schedule's, as with a delay counted from the
 * run); one ahead of it by `s` makes each poll look `s` late, so polls come `s` sooner, within the
 * same bounds (a tenth of a delay apart at least, two at most).
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

/**
 * When the next poll of a pending booking (or cancellation) is due: a pure decision, unit-tested
 * (test/activities/poll-delay.test.ts).
 */
import type { Polling } from '../shared/booking-contract';
import { durationToMs } from '../shared/duration';

/**
 * How much of each poll delay is random: a delay is drawn from `[(1 - POLL_JITTER) × d, d]`, never
 * above the schedule's own delay `d`. Without it, polls that were held up together (a worker
 * restart, a busy server) stay together, every cycle: bench, 10,000 waiting bookings polled every
 * 60 s, bursts of ~2,900 polls in 10 s recurred each minute and left 15 % of polls over 1 s late
 * (p99 11.1 s); with the jitter they spread out (bench/README.md).
 *
 * Every poll is jittered, not only one that started late, although that makes polls at the cap a
 * ninth more frequent than asked (mean delay 0.9 × d): jittering only late polls left the polls
 * that drained a backlog together in step (the bench's watch after building 10,000: 171 polls/s
 * instead of 184, but p99 lateness 6.8 s instead of 1.3 s, the burst back every minute).
 */
export const POLL_JITTER = 0.2;

/**
 * Delay before poll `attempt + 1`: exponential from `initialInterval`, capped at `maximumInterval`,
 * less up to {@link POLL_JITTER} of it at random. `random` is for tests.
 */
export function pollDelayMs(
  polling: Polling,
  attempt: number,
  random: () => number = Math.random,
): number {
  const initial = durationToMs(polling.initialInterval) ?? 5_000;
  const max = durationToMs(polling.maximumInterval) ?? 300_000;
  const delay = Math.min(max, initial * polling.backoffCoefficient ** Math.max(0, attempt - 1));
  return Math.round(delay * (1 - POLL_JITTER * random()));
}

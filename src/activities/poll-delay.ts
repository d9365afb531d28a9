/**
 * When the next poll of a pending booking (or cancellation) is due: a pure decision, unit-tested
 * (test/activities/poll-delay.test.ts).
 */
import type { Polling } from '../shared/booking-contract';
import { durationToMs } from '../shared/duration';

/**
 * How much of a late poll's next delay is random: it is drawn from `[(1 - POLL_JITTER) × d, d]`,
 * never above the schedule's own delay `d`. Without it, polls that were held up together (a worker
 * restart, a busy server) stay together, every cycle: bench, 10,000 waiting bookings polled every
 * 60 s, bursts of ~2,900 polls in 10 s recurred each minute and left 15 % of polls over 1 s late
 * (p99 11.1 s); with the jitter they spread out (bench/README.md).
 */
export const POLL_JITTER = 0.2;

/**
 * A poll that started at most this late after its schedule was not held up: its next delay is the
 * schedule's, exactly. Jittering every poll shortened the mean delay by a tenth, so at the
 * schedule's cap the polls came a ninth more often than asked (10,000 bookings at 60 s: 185 polls
 * per second instead of 167) and the server ran that much closer to its limit. Only a held-up poll
 * needs spreading.
 */
export const POLL_ON_TIME_MS = 1_000;

/**
 * Delay before poll `attempt + 1`: exponential from `initialInterval`, capped at `maximumInterval`;
 * when this attempt started more than {@link POLL_ON_TIME_MS} late (`lateMs`), less up to
 * {@link POLL_JITTER} of it at random. `random` is for tests.
 */
export function pollDelayMs(
  polling: Polling,
  attempt: number,
  lateMs: number,
  random: () => number = Math.random,
): number {
  const initial = durationToMs(polling.initialInterval) ?? 5_000;
  const max = durationToMs(polling.maximumInterval) ?? 300_000;
  const delay = Math.min(max, initial * polling.backoffCoefficient ** Math.max(0, attempt - 1));
  if (lateMs <= POLL_ON_TIME_MS) return Math.round(delay);
  return Math.round(delay * (1 - POLL_JITTER * random()));
}

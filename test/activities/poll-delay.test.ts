import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  POLL_JITTER,
  POLL_MIN_GAP,
  nextPollDelayMs,
  pollDelayMs,
} from '../../src/activities/poll-delay';

const polling = { initialInterval: '30s', maximumInterval: '60s', backoffCoefficient: 1.5 };

test('poll delays follow the schedule, capped, less up to POLL_JITTER of it', () => {
  // random() = 0: the schedule itself.
  assert.deepEqual(
    [1, 2, 3, 4].map((attempt) => pollDelayMs(polling, attempt, () => 0)),
    [30_000, 45_000, 60_000, 60_000],
  );
  // random() → 1: the shortest delay the jitter allows.
  assert.equal(
    pollDelayMs(polling, 4, () => 0.999999),
    Math.round(60_000 * (1 - POLL_JITTER)),
  );
});

test('poll delays are spread, so polls held up together do not stay together', () => {
  const delays = Array.from({ length: 1_000 }, () => pollDelayMs(polling, 10));
  const min = Math.min(...delays);
  const max = Math.max(...delays);
  assert.ok(min >= 60_000 * (1 - POLL_JITTER) && max <= 60_000, `${min}..${max}`);
  // 1,000 uniform draws over a 12 s range: the spread covers most of it.
  assert.ok(max - min > 0.9 * 60_000 * POLL_JITTER, `spread ${max - min} ms`);
});

test('the next poll is due one delay after this one was due, not after it ran', () => {
  const due = 1_000_000;
  // On time (ran 20 ms): the next one is due a delay after this one was due.
  assert.equal(
    nextPollDelayMs(polling, 10, due, due + 20, () => 0),
    60_000 - 20,
  );
  // Held up 25 s: the next one keeps its time, 35 s after this one ran.
  assert.equal(
    nextPollDelayMs(polling, 10, due, due + 25_000, () => 0),
    35_000,
  );
  // With the jitter drawn: the same jittered delay, counted from when the poll was due.
  assert.equal(
    nextPollDelayMs(polling, 10, due, due + 5_000, () => 0.5),
    pollDelayMs(polling, 10, () => 0.5) - 5_000,
  );
});

test('a late poll skips the slots closer to it than it was late', () => {
  const due = 1_000_000;
  // 40 s late: the next slot (60 s) would come 20 s after it; the one after, at 120 s, comes 80 s
  // after it: a server that is behind gets half the polls until it catches up.
  assert.equal(
    nextPollDelayMs(polling, 10, due, due + 40_000, () => 0),
    80_000,
  );
  // 200 s late: slots at 60, 120, …, 300 s; 300 s is the first a delay (60 s) or more away.
  assert.equal(
    nextPollDelayMs(polling, 10, due, due + 200_000, () => 0),
    100_000,
  );
  // On time or late, never two polls of a booking closer than POLL_MIN_GAP of a delay; on time,
  // never further apart than a delay; however late, never more than two.
  for (let late = 0; late < 400_000; late += 997) {
    const d = nextPollDelayMs(polling, 10, due, due + late);
    const most = late <= 6_000 ? 60_000 : 120_000;
    assert.ok(d >= POLL_MIN_GAP * 60_000 && d <= most, `late ${late} ms: next in ${d} ms`);
    assert.ok(d >= Math.min(late, 60_000), `late ${late} ms: next in ${d} ms`);
  }
});

test("a poll due ahead of the worker's clock counts as on time: the delay is the schedule's", () => {
  // A worker clock 2 s behind the server's, or a time-skipping test server 45 h ahead of it.
  for (const ahead of [2_000, 45 * 3_600_000]) {
    assert.equal(
      nextPollDelayMs(polling, 10, 1_000_000 + ahead, 1_000_000, () => 0),
      60_000,
    );
  }
});

test('polls drained together after a hold-up go back to their own times, spread', () => {
  // 1,000 bookings polled every 60 s, due at times spread over a minute, all held up and then
  // served together within 2 s at the end of it: their next polls spread over the next minute
  // again, not within a few seconds of each other (which made a burst of them every minute).
  const due = Array.from({ length: 1_000 }, (_, i) => i * 60);
  const servedAt = (i: number) => 60_000 + (i % 100) * 20;
  const next = due.map((d, i) => servedAt(i) + nextPollDelayMs(polling, 10, d, servedAt(i)));
  const perTenSeconds = new Map<number, number>();
  for (const t of next)
    perTenSeconds.set(Math.floor(t / 10_000), (perTenSeconds.get(Math.floor(t / 10_000)) ?? 0) + 1);
  const busiest = Math.max(...perTenSeconds.values());
  // Spread evenly over 60 s, a 10 s window holds about a sixth (167) plus the jitter's drift.
  assert.ok(busiest < 350, `busiest 10 s of the next polls: ${busiest} of 1,000`);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { POLL_JITTER, POLL_ON_TIME_MS, pollDelayMs } from '../../src/activities/poll-delay';

const polling = { initialInterval: '30s', maximumInterval: '60s', backoffCoefficient: 1.5 };
const LATE = POLL_ON_TIME_MS + 1;

test('poll delays follow the schedule, capped', () => {
  assert.deepEqual(
    [1, 2, 3, 4].map((attempt) => pollDelayMs(polling, attempt, 0, () => 0.5)),
    [30_000, 45_000, 60_000, 60_000],
  );
});

test('a poll on time keeps the exact schedule: no jitter to make polls more frequent than asked', () => {
  for (const lateMs of [0, 250, POLL_ON_TIME_MS]) {
    const delays = new Set(Array.from({ length: 200 }, () => pollDelayMs(polling, 10, lateMs)));
    assert.deepEqual([...delays], [60_000], `started ${lateMs} ms late`);
  }
});

test('a late poll is shortened by up to POLL_JITTER of its delay, never lengthened', () => {
  // random() = 0: the schedule itself; random() → 1: the shortest delay the jitter allows.
  assert.equal(
    pollDelayMs(polling, 4, LATE, () => 0),
    60_000,
  );
  assert.equal(
    pollDelayMs(polling, 4, 30_000, () => 0.999999),
    Math.round(60_000 * (1 - POLL_JITTER)),
  );
});

test('late polls are spread, so polls held up together do not stay together', () => {
  const delays = Array.from({ length: 1_000 }, () => pollDelayMs(polling, 10, LATE));
  const min = Math.min(...delays);
  const max = Math.max(...delays);
  assert.ok(min >= 60_000 * (1 - POLL_JITTER) && max <= 60_000, `${min}..${max}`);
  // 1,000 uniform draws over a 12 s range: the spread covers most of it.
  assert.ok(max - min > 0.9 * 60_000 * POLL_JITTER, `spread ${max - min} ms`);
});

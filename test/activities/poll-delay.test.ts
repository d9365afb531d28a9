import assert from 'node:assert/strict';
import { test } from 'node:test';
import { POLL_JITTER, pollDelayMs } from '../../src/activities/poll-delay';

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

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  ANSWERING,
  DIRECT_DELIVERY_PAUSE_MS,
  afterDirect,
  chooseDirect,
  type DirectDeliveryState,
} from '../../src/activities/direct-delivery';

test('an answering endpoint gets every event at once, concurrent ones included', () => {
  const a = chooseDirect(ANSWERING, 0);
  const b = chooseDirect(a.next, 1);
  assert.deepEqual([a.direct, b.direct], [true, true]);
  assert.deepEqual(afterDirect(true, 5), ANSWERING);
});

test('after a failed attempt events go to their workflows for the pause, then one tries again', () => {
  const paused = afterDirect(false, 1_000);
  assert.deepEqual(paused, { kind: 'paused', until: 1_000 + DIRECT_DELIVERY_PAUSE_MS });
  assert.equal(chooseDirect(paused, 1_000 + DIRECT_DELIVERY_PAUSE_MS - 1).direct, false);
  const probe = chooseDirect(paused, 1_000 + DIRECT_DELIVERY_PAUSE_MS);
  assert.equal(probe.direct, true);
  // While the probe is out, the others do not wait on the endpoint with it.
  assert.equal(chooseDirect(probe.next, 1_000 + DIRECT_DELIVERY_PAUSE_MS + 1).direct, false);
  // The probe's answer decides: delivered opens the direct way again, a failure pauses anew.
  assert.deepEqual(afterDirect(true, 40_000), ANSWERING);
  assert.deepEqual(afterDirect(false, 40_000, 500), { kind: 'paused', until: 40_500 });
});

test('once a hanging endpoint failed an attempt, it costs one direct attempt per pause', () => {
  let state: DirectDeliveryState = ANSWERING;
  // An event every 100 ms for 10 minutes; each direct attempt fails 1 s after it started.
  const pending: number[] = [];
  const attempts: number[] = [];
  let firstFailure: number | undefined;
  for (let now = 0; now < 600_000; now += 100) {
    while (pending.length > 0 && now >= pending[0]!) {
      pending.shift();
      state = afterDirect(false, now);
      firstFailure ??= now;
    }
    const choice = chooseDirect(state, now);
    state = choice.next;
    if (choice.direct) {
      attempts.push(now);
      pending.push(now + 1_000);
    }
  }
  // Before the first answer, every event tried (nothing was known yet): the first second's.
  assert.equal(attempts.filter((t) => t < firstFailure!).length, 10);
  const later = attempts.filter((t) => t >= firstFailure!);
  assert.equal(later.length, Math.floor((600_000 - 1_000) / (DIRECT_DELIVERY_PAUSE_MS + 1_000)));
  for (let i = 1; i < later.length; i++)
    assert.ok(later[i]! - later[i - 1]! >= DIRECT_DELIVERY_PAUSE_MS, `${later[i]}`);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  ANSWERING,
  DIRECT_DELIVERY_PAUSE_MS,
  afterAsk,
  afterDirect,
  chooseDirect,
  type DirectDeliveryState,
} from '../../src/activities/direct-delivery';

test('an answering endpoint gets every event at once, concurrent ones included', () => {
  const a = chooseDirect(ANSWERING, 0);
  const b = chooseDirect(a.next, 1);
  assert.deepEqual([a.choice, b.choice], ['post', 'post']);
  assert.deepEqual(afterDirect(true, 5), ANSWERING);
});

test("after a failed attempt events are handed over for the pause, then one asks the endpoint's breaker", () => {
  const paused = afterDirect(false, 1_000);
  assert.deepEqual(paused, { kind: 'paused', until: 1_000 + DIRECT_DELIVERY_PAUSE_MS });
  assert.equal(chooseDirect(paused, 1_000 + DIRECT_DELIVERY_PAUSE_MS - 1).choice, 'hand-over');
  const ask = chooseDirect(paused, 1_000 + DIRECT_DELIVERY_PAUSE_MS);
  assert.equal(ask.choice, 'ask');
  // While it asks, the others do not wait with it.
  assert.equal(chooseDirect(ask.next, 1_000 + DIRECT_DELIVERY_PAUSE_MS + 1).choice, 'hand-over');
  // Open: the pause starts over and nobody tries the endpoint; closed: that event tries it,
  // and the others do not wait on the endpoint with it.
  assert.deepEqual(afterAsk(true, 40_000, 500), {
    post: false,
    next: { kind: 'paused', until: 40_500 },
  });
  const closed = afterAsk(false, 40_000);
  assert.equal(closed.post, true);
  assert.equal(chooseDirect(closed.next, 40_001).choice, 'hand-over');
  // The attempt's answer decides: delivered keeps the direct way open, a failure pauses anew.
  assert.deepEqual(afterDirect(true, 40_000), ANSWERING);
  assert.deepEqual(afterDirect(false, 40_000, 500), { kind: 'paused', until: 40_500 });
});

/**
 * A hanging endpoint, an event every 100 ms for 10 minutes; each direct attempt fails 1 s after
 * it started; the breaker opens at `breakerOpensAt`. Returns when direct attempts started.
 */
function hangingFor10Minutes(breakerOpensAt: number) {
  let state: DirectDeliveryState = ANSWERING;
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
    let post = choice.choice === 'post';
    if (choice.choice === 'ask') {
      const asked = afterAsk(now >= breakerOpensAt, now);
      state = asked.next;
      post = asked.post;
    }
    if (post) {
      attempts.push(now);
      pending.push(now + 1_000);
    }
  }
  return { attempts, firstFailure: firstFailure! };
}

test('a hanging endpoint costs one direct attempt per pause until the breaker opens, then none', () => {
  const never = hangingFor10Minutes(Infinity);
  // Before the first answer, every event tried (nothing was known yet): the first second's.
  assert.equal(never.attempts.filter((t) => t < never.firstFailure).length, 10);
  const later = never.attempts.filter((t) => t >= never.firstFailure);
  assert.equal(later.length, Math.floor((600_000 - 1_000) / (DIRECT_DELIVERY_PAUSE_MS + 1_000)));
  for (let i = 1; i < later.length; i++)
    assert.ok(later[i]! - later[i - 1]! >= DIRECT_DELIVERY_PAUSE_MS, `${later[i]}`);
  // The breaker open after 40 s: the pause's end asks it, and no booking waits on the endpoint.
  const opened = hangingFor10Minutes(40_000);
  // (The first second's attempts fail until 1.9 s, each starting the pause again.)
  assert.deepEqual(
    opened.attempts.filter((t) => t >= opened.firstFailure),
    [1_900 + DIRECT_DELIVERY_PAUSE_MS],
  );
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  ANSWERING,
  DIRECT_DELIVERY_PAUSE_MS,
  DIRECT_SLOW_MS,
  afterAsk,
  afterDirect,
  chooseDirect,
  type DirectDeliveryState,
} from '../../src/order-events/activities/direct';

test('an answering endpoint gets every event at once, concurrent ones included', () => {
  const a = chooseDirect(ANSWERING, 0);
  const b = chooseDirect(a.next, 1);
  assert.deepEqual([a.choice, b.choice], ['post', 'post']);
  const one = afterDirect(b.next, 0, true, 5);
  assert.deepEqual(one, { kind: 'answering', inFlight: [1] });
  assert.deepEqual(afterDirect(one, 1, true, 6), ANSWERING);
});

test('while a direct attempt is unanswered for a quarter second, the others are handed over', () => {
  const out = chooseDirect(ANSWERING, 0).next;
  assert.equal(chooseDirect(out, DIRECT_SLOW_MS - 1).choice, 'post');
  assert.equal(chooseDirect(out, DIRECT_SLOW_MS).choice, 'hand-over');
  // Answered at last: the way is open again.
  assert.equal(chooseDirect(afterDirect(out, 0, true, 400), 400).choice, 'post');
});

test("after a failed attempt events are handed over for the pause, then one asks the endpoint's breaker", () => {
  const paused = afterDirect(ANSWERING, 0, false, 1_000);
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
  // The attempt's answer decides: delivered opens the direct way again, a failure pauses anew.
  assert.deepEqual(afterDirect(closed.next, 40_000, true, 40_010), ANSWERING);
  assert.deepEqual(afterDirect(closed.next, 40_000, false, 41_000, 500), {
    kind: 'paused',
    until: 41_500,
  });
});

/**
 * A hanging endpoint, an event every 50 ms for 10 minutes; each direct attempt fails 1 s after
 * it started; the breaker opens at `breakerOpensAt`. Returns when direct attempts started.
 */
function hangingFor10Minutes(breakerOpensAt: number) {
  let state: DirectDeliveryState = ANSWERING;
  const pending: { startedAt: number; endsAt: number }[] = [];
  const attempts: number[] = [];
  for (let now = 0; now < 600_000; now += 50) {
    while (pending.length > 0 && now >= pending[0]!.endsAt) {
      state = afterDirect(state, pending.shift()!.startedAt, false, now);
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
      pending.push({ startedAt: now, endsAt: now + 1_000 });
    }
  }
  return attempts;
}

test('a hanging endpoint holds the bookings of its first quarter second, then one per pause until the breaker opens, then none', () => {
  const never = hangingFor10Minutes(Infinity);
  // Before anything was known: the events of the first 250 ms tried it.
  assert.deepEqual(
    never.filter((t) => t < 1_000),
    [0, 50, 100, 150, 200],
  );
  const later = never.filter((t) => t >= 1_000);
  // The last of the first attempts failed at 1.2 s; then one attempt per pause and its second.
  assert.equal(later[0], 1_200 + DIRECT_DELIVERY_PAUSE_MS);
  assert.equal(later.length, Math.floor((600_000 - 1_200) / (DIRECT_DELIVERY_PAUSE_MS + 1_000)));
  for (let i = 1; i < later.length; i++)
    assert.ok(later[i]! - later[i - 1]! >= DIRECT_DELIVERY_PAUSE_MS, `${later[i]}`);
  // The breaker open after 40 s: the next pause's end asks it, and no booking waits on the endpoint.
  const opened = hangingFor10Minutes(40_000);
  assert.deepEqual(
    opened.filter((t) => t >= 1_000),
    [1_200 + DIRECT_DELIVERY_PAUSE_MS],
  );
});

/** The worker's local budget of supplier reads: a token bucket, and its default from the cap. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  localCallsPerSecond,
  takeToken,
  tokenBucket,
} from '../../src/activities/local-supplier-budget';

describe('the local supplier budget', () => {
  it('gives a second of burst, then one token per 1/rate seconds', () => {
    const b = tokenBucket(4, 0);
    const taken = [0, 0, 0, 0, 0].map(() => takeToken(b, 0));
    assert.deepEqual(taken, [true, true, true, true, false]);
    assert.equal(takeToken(b, 100), false, 'a tenth of a second gives 0.4 token');
    assert.equal(takeToken(b, 250), true, 'a quarter of a second gives one');
    assert.equal(takeToken(b, 250), false);
    // Idle for long: back to one second's worth, not more.
    const after = [1, 2, 3, 4, 5].map(() => takeToken(b, 60_000));
    assert.deepEqual(after, [true, true, true, true, false]);
  });

  it('holds the rate over a long run (calls in any second ≤ rate + burst)', () => {
    const rate = 10;
    const b = tokenBucket(rate, 0);
    let taken = 0;
    for (let t = 0; t < 10_000; t += 5) if (takeToken(b, t)) taken++;
    assert.ok(taken <= rate * 10 + rate, `${taken} in 10 s`);
    assert.ok(taken >= rate * 10, `${taken} in 10 s`);
  });

  it('a budget of 0 never gives a token; Infinity always does', () => {
    const none = tokenBucket(0, 0);
    assert.equal(takeToken(none, 0), false);
    assert.equal(takeToken(none, 10_000), false);
    const all = tokenBucket(Infinity, 0);
    for (let i = 0; i < 1000; i++) assert.equal(takeToken(all, 0), true);
  });

  it('defaults: unlimited without a fleet cap, none with one, the operator’s share when set', () => {
    assert.equal(localCallsPerSecond(undefined, undefined), Infinity);
    assert.equal(localCallsPerSecond(0, undefined), Infinity);
    assert.equal(localCallsPerSecond(50, undefined), 0);
    assert.equal(localCallsPerSecond(50, 5), 5);
    assert.equal(localCallsPerSecond(0, 0), 0);
  });
});

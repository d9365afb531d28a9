/** The endpoint's breaker: when it opens, what it lets out, when it probes, when it closes. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  breakerAfter,
  breakerAllows,
  breakerMark,
  CLOSED,
  OPEN_AFTER_ORDERS,
  type EndpointBreaker,
} from '../../src/order-events/workflows/endpoint-breaker';
import { FIRST_RETRY_WAIT_MS } from '../../src/order-events/workflows/decisions';

const failed = (...orderIds: string[]) =>
  orderIds.map((orderId) => ({
    orderId,
    delivered: 0,
    failure: 'the order system answered HTTP 503',
  }));
const delivered = (...orderIds: string[]) => orderIds.map((orderId) => ({ orderId, delivered: 1 }));

describe('the endpoint breaker', () => {
  it('opens once distinct orders failed one after another with none delivered', () => {
    assert.equal(OPEN_AFTER_ORDERS, 3);
    let b: EndpointBreaker = breakerAfter(CLOSED, failed('a', 'b'), 0);
    assert.equal(b.state, 'closed');
    // The same order failing again is that order's trouble, not the endpoint's.
    b = breakerAfter(b, failed('a'), 1);
    assert.equal(b.state, 'closed');
    b = breakerAfter(b, failed('c'), 2);
    assert.deepEqual(b, {
      state: 'open',
      since: 2,
      probes: 0,
      probeAt: 2 + FIRST_RETRY_WAIT_MS,
      lastFailure: 'the order system answered HTTP 503',
    });
    assert.equal(breakerMark(b), 'OPEN');
    // One round of three orders failing opens it at once.
    assert.equal(breakerAfter(CLOSED, failed('x', 'y', 'z'), 0).state, 'open');
  });

  it('stays closed while the endpoint takes some orders: one broken order does not stop the rest', () => {
    let b = breakerAfter(CLOSED, failed('a', 'b'), 0);
    b = breakerAfter(
      b,
      [...delivered('c'), { orderId: 'd', delivered: 0, failure: 'HTTP 500' }],
      1,
    );
    assert.deepEqual(b, CLOSED);
    b = breakerAfter(b, failed('a', 'b'), 2);
    assert.equal(b.state, 'closed');
    assert.equal(breakerMark(b), 'CLOSED');
  });

  it('lets every due order out when closed; open, nothing until its probe is due', () => {
    assert.deepEqual(breakerAllows(CLOSED, 0), { kind: 'all' });
    const open = breakerAfter(CLOSED, failed('a', 'b', 'c'), 1_000, 500);
    assert.deepEqual(breakerAllows(open, 1_499), { kind: 'none', until: 1_500 });
    assert.deepEqual(breakerAllows(open, 1_500), { kind: 'probe' });
  });

  it('a failed probe waits twice as long for the next, to an hour; a probe that gets through closes it', () => {
    let b = breakerAfter(CLOSED, failed('a', 'b', 'c'), 0);
    const waits: number[] = [];
    for (let i = 0; i < 9; i++) {
      const at = b.state === 'open' ? b.probeAt : NaN;
      b = breakerAfter(b, failed('a'), at);
      waits.push(b.state === 'open' ? b.probeAt - at : NaN);
    }
    assert.deepEqual(
      waits,
      [60_000, 120_000, 240_000, 480_000, 960_000, 1_920_000, 3_600_000, 3_600_000, 3_600_000],
    );
    assert.equal(b.state === 'open' && b.since, 0, 'open since the first failure');
    assert.deepEqual(breakerAfter(b, delivered('a'), 1), CLOSED);
    // A round with no answers (nothing was sent) changes nothing.
    assert.equal(breakerAfter(b, [], 2), b);
  });
});

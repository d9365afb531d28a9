/**
 * What the endpoint's delivery holds and decides (endpoint-backlog.ts): where a handed-over event
 * goes, what a round sends, what its answers change, parking, redelivery; and what it shows, the
 * marks and `events list` (endpoint-marks.ts).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { orderEventId, type OrderEvent } from '../../src/order-events/contract/event';
import {
  afterRound,
  breakerClosed,
  breakerOpened,
  EMPTY_BACKLOG,
  heldEvents,
  hold,
  nextDueAt,
  parkExpired,
  redeliver,
  roundAt,
  type Backlog,
} from '../../src/order-events/workflows/endpoint-backlog';
import {
  backlogMark,
  failingOrders,
  orderState,
} from '../../src/order-events/workflows/endpoint-marks';
import { breakerAfter, CLOSED } from '../../src/order-events/workflows/endpoint-breaker';
import { FIRST_RETRY_WAIT_MS, RETRY_WINDOW_MS } from '../../src/order-events/workflows/decisions';

const event = (orderId: string, sequence: number): OrderEvent => ({
  id: orderEventId(orderId, sequence),
  type: 'order.confirmed',
  timestamp: '2027-01-01T00:00:00.000Z',
  data: { orderId, truth: 'CONFIRMED', phase: 'CONFIRMED', sequence },
});
const held = (events: OrderEvent[], now = 0, failing = false, maxHeld?: number) =>
  hold(EMPTY_BACKLOG, events, now, { failing, ...(maxHeld ? { maxHeld } : {}) });
const ALL = { kind: 'all' } as const;
const sequences = (b: Backlog, orderId: string) =>
  b.orders.find((o) => o.orderId === orderId)?.events.map((e) => e.data.sequence);

describe("the endpoint's backlog", () => {
  it('holds events by order, in sequence order, once, and drops what was delivered', () => {
    const { backlog, spill } = held([event('a', 5), event('b', 1), event('a', 3), event('a', 5)]);
    assert.deepEqual(spill, []);
    assert.deepEqual(sequences(backlog, 'a'), [3, 5]);
    assert.deepEqual(
      backlog.orders.map((o) => o.orderId),
      ['a', 'b'],
    );
    assert.equal(heldEvents(backlog), 3);
    const sent = roundAt(backlog, ALL, 0);
    const after = afterRound(
      backlog,
      sent,
      [{ orderId: 'a', delivered: 1, failure: 'HTTP 503' }],
      1,
    );
    // An announcement retried after event 3 went through is not sent again.
    assert.deepEqual(
      sequences(hold(after, [event('a', 3)], 2, { failing: false }).backlog, 'a'),
      [5],
    );
  });

  it("a round sends every due order's events, oldest order first, within its size", () => {
    const { backlog } = held([event('a', 1), event('a', 2), event('b', 1), event('c', 1)]);
    assert.deepEqual(
      roundAt(backlog, ALL, 0).map((p) => [p.orderId, p.events.map((e) => e.data.sequence)]),
      [
        ['a', [1, 2]],
        ['b', [1]],
        ['c', [1]],
      ],
    );
    assert.deepEqual(
      roundAt(backlog, ALL, 0, 3).map((p) => p.events.length),
      [2, 1],
    );
    // Open breaker: one order probes; before the probe is due, nothing goes.
    assert.deepEqual(
      roundAt(backlog, { kind: 'probe' }, 0).map((p) => p.orderId),
      ['a'],
    );
    assert.deepEqual(roundAt(backlog, { kind: 'none', until: 5 }, 0), []);
  });

  it('an order whose event fails waits behind it with backoff; the others are delivered and gone', () => {
    const { backlog } = held([event('a', 1), event('a', 2), event('b', 1)]);
    const sent = roundAt(backlog, ALL, 0);
    let b = afterRound(
      backlog,
      sent,
      [
        { orderId: 'a', delivered: 0, failure: 'the order system answered HTTP 503' },
        { orderId: 'b', delivered: 1 },
      ],
      1_000,
    );
    assert.deepEqual(
      b.orders.map((o) => o.orderId),
      ['a'],
    );
    const a = b.orders[0]!;
    assert.deepEqual(sequences(b, 'a'), [1, 2], 'event 2 waits behind event 1');
    assert.equal(a.nextAttemptAt, 1_000 + FIRST_RETRY_WAIT_MS);
    assert.equal(a.failingSince, 1_000);
    assert.equal(backlogMark(b), 'FAILING');
    assert.equal(failingOrders(b), 1);
    assert.deepEqual(roundAt(b, ALL, 1_000 + FIRST_RETRY_WAIT_MS - 1), [], 'not yet due');
    assert.equal(nextDueAt(b, CLOSED, 2_000), 1_000 + FIRST_RETRY_WAIT_MS);
    // Fails again: the wait doubles, the failing goes on from the first failure.
    b = afterRound(
      b,
      roundAt(b, ALL, 31_000),
      [{ orderId: 'a', delivered: 0, failure: 'x' }],
      31_000,
    );
    assert.equal(b.orders[0]!.nextAttemptAt, 31_000 + 2 * FIRST_RETRY_WAIT_MS);
    assert.equal(b.orders[0]!.failingSince, 1_000);
    // Event 1 goes, event 2 fails: event 2's failing starts then, its first wait.
    b = afterRound(
      b,
      roundAt(b, ALL, 91_000),
      [{ orderId: 'a', delivered: 1, failure: 'y' }],
      91_000,
    );
    assert.deepEqual(sequences(b, 'a'), [2]);
    assert.equal(b.orders[0]!.failingSince, 91_000);
    assert.equal(b.orders[0]!.nextAttemptAt, 91_000 + FIRST_RETRY_WAIT_MS);
    b = afterRound(b, roundAt(b, ALL, 121_000), [{ orderId: 'a', delivered: 1 }], 121_000);
    assert.deepEqual(b.orders, [], 'all delivered: the order is gone');
    assert.equal(backlogMark(b), 'DELIVERED');
  });

  it('parks an order after 72 h of failures, until it is redelivered, then retries it for 72 h more', () => {
    const { backlog } = held([event('a', 1)]);
    let b = afterRound(
      backlog,
      roundAt(backlog, ALL, 0),
      [{ orderId: 'a', delivered: 0, failure: 'x' }],
      0,
    );
    assert.equal(parkExpired(b, RETRY_WINDOW_MS - 1).orders[0]!.parked, undefined);
    b = parkExpired(b, RETRY_WINDOW_MS);
    assert.equal(b.orders[0]!.parked, true);
    assert.equal(backlogMark(b), 'UNDELIVERED');
    assert.equal(failingOrders(b), 1);
    assert.equal(nextDueAt(b, CLOSED, RETRY_WINDOW_MS), undefined, 'waits for an operator');
    assert.deepEqual(roundAt(b, ALL, RETRY_WINDOW_MS + 1), []);
    assert.equal(orderState(b.orders[0]!, CLOSED).nextAttemptAt, undefined);
    const at = RETRY_WINDOW_MS + 5_000;
    b = redeliver(b, 'a', at);
    assert.equal(b.orders[0]!.failingSince, at);
    assert.deepEqual(
      roundAt(b, { kind: 'none', until: at + 1 }, at).map((p) => p.orderId),
      ['a'],
      'redelivered: tried at once, whatever the breaker says',
    );
    b = afterRound(b, roundAt(b, ALL, at), [{ orderId: 'a', delivered: 0, failure: 'x' }], at);
    assert.equal(b.orders[0]!.parked, undefined, 'a new retry window');
    assert.equal(b.orders[0]!.nextAttemptAt, at + FIRST_RETRY_WAIT_MS);
  });

  it('while the breaker is open every order held is failing and waits for the probe; closed, all go at once', () => {
    const { backlog } = held([event('a', 1), event('b', 1), event('c', 1)]);
    const sent = roundAt(backlog, ALL, 0);
    const results = sent.map((p) => ({ orderId: p.orderId, delivered: 0, failure: 'no answer' }));
    const breaker = breakerAfter(CLOSED, results, 10);
    assert.equal(breaker.state, 'open');
    let b = breakerOpened(afterRound(backlog, sent, results, 10), 10);
    // A new order handed over while it is open fails from then on.
    b = hold(b, [event('d', 1)], 20, { failing: true }).backlog;
    assert.equal(failingOrders(b), 4);
    const d = orderState(
      b.orders.find((o) => o.orderId === 'd')!,
      breaker,
    );
    assert.equal(d.mark, 'FAILING');
    assert.equal(d.lastFailure, 'no answer');
    assert.equal(d.nextAttemptAt, new Date(10 + FIRST_RETRY_WAIT_MS).toISOString(), 'the probe');
    assert.equal(nextDueAt(b, breaker, 20), 10 + FIRST_RETRY_WAIT_MS);
    b = breakerClosed(b);
    assert.deepEqual(
      roundAt(b, ALL, 11).map((p) => p.orderId),
      ['a', 'b', 'c', 'd'],
      'the endpoint answers again: every order at once',
    );
  });

  it('holds so many events; a new order beyond them, and its later events, go to its own workflow', () => {
    const first = held([event('a', 1), event('b', 1)], 0, false, 2);
    assert.deepEqual(first.spill, []);
    const more = hold(first.backlog, [event('c', 1), event('a', 2), event('c', 2)], 1, {
      failing: false,
      maxHeld: 2,
    });
    assert.deepEqual(
      more.spill.map((e) => e.id),
      [orderEventId('c', 1), orderEventId('c', 2)],
    );
    assert.deepEqual(sequences(more.backlog, 'a'), [1, 2], 'an order held stays held');
    assert.deepEqual(more.backlog.spilled, ['c']);
    // Room again later: c's stragglers still follow c.
    const later = hold({ ...more.backlog, orders: [] }, [event('c', 3)], 2, {
      failing: false,
      maxHeld: 2,
    });
    assert.deepEqual(
      later.spill.map((e) => e.id),
      [orderEventId('c', 3)],
    );
  });
});

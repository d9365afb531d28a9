/** The order events' pure decisions: sequences, the queue, retry waits, the notice before an auto-cancel. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BookingOutcome, BookingPhase } from '../../src/shared/booking-values';
import { ENDING_NOTICE_MS, GuardPhase } from '../../src/shared/guard-values';
import {
  eventTypeOfPhase,
  orderEventId,
  type OrderEvent,
} from '../../src/order-events/contract/event';
import {
  autoCancelAfterNotice,
  endingNoticeTime,
  nextWake,
} from '../../src/workflows/guard/guard-decisions';
import {
  enqueue,
  keepRetrying,
  retryWaitMs,
  RETRY_WINDOW_MS,
  sequenceFloor,
} from '../../src/order-events/workflows/decisions';

const event = (sequence: number): OrderEvent => ({
  id: orderEventId('o-1', sequence),
  type: 'order.confirmed',
  timestamp: '2027-01-01T00:00:00.000Z',
  data: { orderId: 'o-1', truth: 'CONFIRMED', phase: 'CONFIRMED', sequence },
});

describe('order event decisions', () => {
  it('starts a run above what it took over and above every earlier run', () => {
    assert.equal(sequenceFloor(0, 1_000), 1_000_000);
    assert.equal(sequenceFloor(1_000_007, 1_000), 1_000_007, 'the guard after bookRoom');
    // A later run (started a millisecond later) is above an earlier run's few events.
    assert.ok(sequenceFloor(0, 1_001) > sequenceFloor(0, 1_000) + 5);
  });

  it('queues in sequence order, once, and drops what was delivered already', () => {
    const q = enqueue(enqueue([], event(5), 0), event(3), 0);
    assert.deepEqual(
      q.map((e) => e.data.sequence),
      [3, 5],
    );
    assert.equal(enqueue(q, event(5), 0).length, 2, 'a retried announcement is not queued twice');
    assert.equal(enqueue([], event(2), 3).length, 0, 'already delivered');
  });

  it('waits 30 s, then doubling to an hour between rounds; retries for 72 h', () => {
    assert.deepEqual(
      [0, 1, 2, 6, 7, 50].map((round) => retryWaitMs(round)),
      [30_000, 60_000, 120_000, 1_920_000, 3_600_000, 3_600_000],
    );
    assert.equal(RETRY_WINDOW_MS, 72 * 3_600_000);
    assert.equal(keepRetrying(0, RETRY_WINDOW_MS - 1), true);
    assert.equal(keepRetrying(0, RETRY_WINDOW_MS), false);
  });

  it('names one event per truth an order system acts on, none for passing phases', () => {
    assert.equal(eventTypeOfPhase(BookingOutcome.CONFIRMED), 'order.confirmed');
    assert.equal(eventTypeOfPhase(BookingPhase.AWAITING_APPROVAL), 'order.approval_required');
    assert.equal(eventTypeOfPhase(BookingPhase.STATUS_UNREADABLE), 'order.status_unreadable');
    assert.equal(eventTypeOfPhase(GuardPhase.CHECKED_OUT), 'order.stay_completed');
    assert.equal(eventTypeOfPhase(GuardPhase.CANCELLATION_PENDING), 'order.cancellation_pending');
    for (const passing of [
      BookingPhase.PRICE_CHECK,
      BookingPhase.BOOKING,
      BookingPhase.AWAITING_CONFIRMATION,
      BookingPhase.CANCELLING,
    ])
      assert.equal(eventTypeOfPhase(passing), undefined, passing);
  });

  it('announces the end of free cancellation 48 h before it, at once when closer, never after it', () => {
    const deadline = 10 * ENDING_NOTICE_MS;
    assert.equal(endingNoticeTime(deadline, 0), deadline - ENDING_NOTICE_MS);
    assert.equal(endingNoticeTime(deadline, deadline - 1_000), deadline - 1_000);
    assert.equal(endingNoticeTime(deadline, deadline), undefined);
    assert.equal(endingNoticeTime(undefined, 0), undefined);
  });

  it('runs an announced auto-cancel no sooner than the notice, and before the deadline when it can', () => {
    const notice = 15 * 60_000;
    // Announced long before: the planned moment stands.
    assert.equal(autoCancelAfterNotice(100 * notice, 0, 200 * notice, notice), 100 * notice);
    // Its moment had passed when announced: a notice later.
    assert.equal(autoCancelAfterNotice(0, 10 * notice, 20 * notice, notice), 11 * notice);
    // The deadline is nearer than the notice: a minute before the deadline.
    assert.equal(
      autoCancelAfterNotice(0, 10 * notice, 10 * notice + 5 * 60_000, notice),
      10 * notice + 4 * 60_000,
    );
    // Less than a minute left: due at once (a moment already past when announced).
    assert.ok(autoCancelAfterNotice(0, 10 * notice, 10 * notice + 30_000, notice) <= 10 * notice);
  });

  it('tells before it cancels when both are due', () => {
    assert.equal(
      nextWake({ reconfirmAt: [], endingNoticeAt: 5, autoCancelAt: 5 })?.what,
      'ending-notice',
    );
  });
});

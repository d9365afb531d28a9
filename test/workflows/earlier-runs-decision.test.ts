/** The decision on an order's earlier runs (rule 1 whoever starts the workflow), without a server. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { EarlierRun } from '../../src/activities/earlier-runs';
import { decideOnEarlierRuns } from '../../src/workflows/booking/earlier-runs-decision';

const run = (n: number, fields: Partial<EarlierRun>): EarlierRun => ({
  runId: `run-${n}`,
  status: 'COMPLETED',
  startTime: `2026-11-25T10:0${n}:00.000Z`,
  ...fields,
});

describe('decideOnEarlierRuns', () => {
  it('books when the order has no earlier run', () => {
    assert.deepEqual(decideOnEarlierRuns({ runs: [] }), { next: 'book' });
  });

  it('reports a completed run that holds a booking, with its outcome, status and price', () => {
    const price = { net: '100.00', currency: 'EUR' };
    const d = decideOnEarlierRuns({
      runs: [
        run(1, {
          bookingId: 7,
          result: { outcome: 'CONFIRMED', bookingId: 7, supplierStatus: 'CONFIRMED', price },
        }),
      ],
    });
    assert.deepEqual(d, {
      next: 'report',
      runId: 'run-1',
      outcome: 'CONFIRMED',
      bookingId: 7,
      supplierStatus: 'CONFIRMED',
      price,
      holdsBooking: true,
    });
  });

  it('says whether the booking still stands: not once cancelled, or once its guard ended the stay', () => {
    const holds = (result: NonNullable<EarlierRun['result']>) => {
      const d = decideOnEarlierRuns({ runs: [run(1, { result })] });
      return d.next === 'report' && d.holdsBooking;
    };
    assert.equal(
      holds({ outcome: 'NOT_CONFIRMED', bookingId: 4, supplierStatus: 'PENDING' }),
      true,
    );
    assert.equal(
      holds({ outcome: 'NOT_CONFIRMED', bookingId: 4, supplierStatus: 'CANCELLED' }),
      false,
    );
    assert.equal(holds({ outcome: 'CONFIRMED', bookingId: 4, guardPhase: 'CHECKED_OUT' }), false);
    assert.equal(
      holds({ outcome: 'CONFIRMED', bookingId: 4, guardPhase: 'CANCELLED_BY_SUPPLIER' }),
      false,
    );
    assert.equal(holds({ outcome: 'NOT_AVAILABLE' }), false);
  });

  it('reports a cancelled booking as CANCELLED: a cancelled order is not booked again', () => {
    const d = decideOnEarlierRuns({
      runs: [run(1, { result: { outcome: 'CANCELLED', bookingId: 9 } })],
    });
    assert.equal(d.next, 'report');
    assert.equal(d.next === 'report' && d.outcome, 'CANCELLED');
  });

  it('reports the guard’s booking even when no run is on record any more', () => {
    assert.deepEqual(
      decideOnEarlierRuns({ runs: [], guard: { status: 'RUNNING', bookingId: 5 } }),
      {
        next: 'report',
        runId: undefined,
        outcome: 'CONFIRMED',
        bookingId: 5,
        holdsBooking: false,
      },
    );
  });

  it('answers the decision of a completed run without a booking: one decision per order id', () => {
    for (const outcome of [
      'NOT_AVAILABLE',
      'PRICE_REJECTED',
      'FAILED',
      'CANCELLED',
      'NOT_CONFIRMED',
    ]) {
      const d = decideOnEarlierRuns({
        runs: [run(1, { status: 'TERMINATED', phase: 'BOOKING' }), run(2, { result: { outcome } })],
      });
      assert.deepEqual(
        d,
        { next: 'report', runId: 'run-2', outcome, holdsBooking: false },
        outcome,
      );
    }
  });

  it('looks past runs that decided nothing: an input refused, the order id alone finding no order', () => {
    for (const errorCode of ['INVALID_INPUT', 'NO_ORDER']) {
      const d = decideOnEarlierRuns({
        runs: [
          run(1, { status: 'TERMINATED', phase: 'BOOKING' }),
          run(2, { result: { outcome: 'FAILED', errorCode } }),
        ],
      });
      assert.equal(d.next, 'reconcile', errorCode);
      assert.deepEqual(
        decideOnEarlierRuns({ runs: [run(2, { result: { outcome: 'FAILED', errorCode } })] }),
        { next: 'book' },
      );
    }
  });

  it('waits for an operator when a run stopped while its booking call may have been out', () => {
    for (const phase of ['BOOKING', 'NEEDS_RECONCILIATION']) {
      const d = decideOnEarlierRuns({ runs: [run(1, { status: 'TERMINATED', phase })] });
      assert.equal(d.next, 'reconcile', phase);
      assert.equal(d.next === 'reconcile' && d.runId, 'run-1');
    }
  });

  it('follows the booking of a run that stopped after the supplier answered', () => {
    const d = decideOnEarlierRuns({
      runs: [run(1, { status: 'TIMED_OUT', phase: 'AWAITING_CONFIRMATION', bookingId: 11 })],
    });
    assert.deepEqual(d, { next: 'follow', runId: 'run-1', bookingId: 11 });
  });

  it('looks past runs that stopped before any booking call, to the runs before them', () => {
    const earlier = [
      run(1, { status: 'TERMINATED', phase: 'NEEDS_RECONCILIATION' }),
      run(2, { status: 'TERMINATED', phase: 'PRICE_CHECK' }),
      run(3, { status: 'TERMINATED', phase: 'AWAITING_APPROVAL' }),
    ];
    assert.equal(decideOnEarlierRuns({ runs: earlier }).next, 'reconcile');
    assert.deepEqual(decideOnEarlierRuns({ runs: earlier.slice(1) }), { next: 'book' });
  });

  it('decides on the newest run first, whatever order the runs come in', () => {
    const d = decideOnEarlierRuns({
      runs: [
        run(2, { result: { outcome: 'CONFIRMED', bookingId: 3 } }),
        run(1, { result: { outcome: 'NOT_AVAILABLE' } }),
      ],
    });
    assert.equal(d.next, 'report');
  });

  it('refuses to guess: a listed run whose record is gone, or that reads as running', () => {
    assert.equal(
      decideOnEarlierRuns({ runs: [run(1, { status: 'UNKNOWN', unreadable: 'no record' })] }).next,
      'reconcile',
    );
    assert.equal(
      decideOnEarlierRuns({ runs: [run(1, { status: 'RUNNING', phase: 'PRICE_CHECK' })] }).next,
      'reconcile',
    );
  });
});

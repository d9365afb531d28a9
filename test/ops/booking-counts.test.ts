/**
 * The fleet-wide booking gauges without a server: the visibility queries they send, the cache
 * that keeps scrapes from multiplying them, and what a scrape shows when counting fails.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createBookingCounter, oldestStartTime } from '../../src/observability/booking-counts';
import { createWorkerMetrics, METRIC_NAMES } from '../../src/observability/metrics';

describe('booking gauges', () => {
  it('count each phase and outcome with one visibility query, cached between scrapes', async () => {
    const queries: string[] = [];
    let now = 0;
    const counter = createBookingCounter({
      maxAgeMs: 15_000,
      now: () => now,
      count: (query) => {
        queries.push(query);
        return Promise.resolve(query.includes("'CONFIRMED'") ? 7 : 1);
      },
    });
    const [a, b] = await Promise.all([counter.get(), counter.get()]);
    assert.equal(a, b, 'concurrent callers share one round');
    assert.equal(a.outcomes.CONFIRMED, 7);
    assert.equal(a.waiting.NEEDS_RECONCILIATION, 1);
    assert.ok(
      queries.includes(
        "(WorkflowType IN ('bookRoom', 'bookRoomAndGuard') AND ExecutionStatus = 'Running' AND BookingPhase = 'AWAITING_APPROVAL') AND (TemporalNamespaceDivision IS NULL OR TemporalNamespaceDivision IS NOT NULL)",
      ),
    );
    assert.ok(
      queries.includes(
        "(WorkflowType IN ('bookRoom', 'bookRoomAndGuard') AND ExecutionStatus = 'Running' AND BookingPhase = 'STATUS_UNREADABLE') AND (TemporalNamespaceDivision IS NULL OR TemporalNamespaceDivision IS NOT NULL)",
      ),
      'a booking whose status cannot be read is counted for operators',
    );
    const round = queries.length;
    assert.equal(
      round,
      3 + 6 + 3 + 4,
      'three phases, six booking outcomes, three cancellation outcomes, four for operators',
    );
    assert.equal(a.orderEventsFailing, 1, 'orders whose events are failing, in either delivery');
    assert.ok(
      queries.includes(
        "(WorkflowType IN ('deliverOrderEventsToEndpoint', 'deliverOrderEvents') AND ExecutionStatus = 'Running' AND OrderEventsDelivery IN ('FAILING', 'UNDELIVERED')) AND (TemporalNamespaceDivision IS NULL OR TemporalNamespaceDivision IS NOT NULL)",
      ),
    );
    assert.equal(a.reconfirmationFlags, 1);
    assert.equal(a.cancellationsUnconfirmed, 2, 'pending guards plus recent STILL_ACTIVE runs');
    assert.ok(
      queries.includes(
        "(WorkflowType = 'cancelBooking' AND BookingOutcome = 'STILL_ACTIVE' AND CloseTime > '1969-12-31T00:00:00.000Z') AND (TemporalNamespaceDivision IS NULL OR TemporalNamespaceDivision IS NOT NULL)",
      ),
      'a STILL_ACTIVE cancellation counts for 24 h after it ended',
    );
    now = 10_000;
    await counter.get();
    assert.equal(queries.length, round, 'served from cache');
    now = 16_000;
    await counter.get();
    assert.equal(queries.length, 2 * round, 'recounted once stale');
  });

  it('are absent from a scrape when counting fails, and the failure is counted', async () => {
    let fail = false;
    const errors: unknown[] = [];
    const bookingCounter = createBookingCounter({
      maxAgeMs: 0,
      count: () => (fail ? Promise.reject(new Error('visibility down')) : Promise.resolve(3)),
    });
    const metrics = createWorkerMetrics({
      defaultMetrics: false,
      onCountError: (err) => errors.push(err),
      bookingCounter,
      orderEventsFailing: async () => (await bookingCounter.get()).orderEventsFailing,
    });
    const up = await metrics.registry.metrics();
    assert.match(up, /^hotel_bookings_waiting\{phase="NEEDS_RECONCILIATION"\} 3$/m);
    assert.match(up, new RegExp(`^${METRIC_NAMES.cancellationsUnconfirmed} 6$`, 'm'));
    assert.match(up, new RegExp(`^${METRIC_NAMES.orderEventsFailing} 3$`, 'm'));
    fail = true;
    const down = await metrics.registry.metrics();
    assert.doesNotMatch(down, /^hotel_bookings_waiting\{/m, 'no stale numbers');
    assert.doesNotMatch(down, /^hotel_bookings_by_outcome\{/m);
    // The unlabelled gauges too: neither their last value nor a 0 ("none" where it is unknown).
    for (const name of [
      METRIC_NAMES.cancellationsUnconfirmed,
      METRIC_NAMES.reconfirmationFlags,
      METRIC_NAMES.orderEventsFailing,
    ]) {
      assert.doesNotMatch(down, new RegExp(`^${name}[ {]`, 'm'), `${name} has no sample`);
      assert.match(down, new RegExp(`^# TYPE ${name} gauge$`, 'm'), `${name} still declared`);
    }
    assert.match(down, new RegExp(`^${METRIC_NAMES.bookingCountErrors} 1$`, 'm'));
    assert.equal(errors.length, 2, 'one failure per scrape from the round, one from order events');
    fail = false;
    const again = await metrics.registry.metrics();
    assert.match(again, new RegExp(`^${METRIC_NAMES.cancellationsUnconfirmed} 6$`, 'm'));
  });

  it('have no age for a phase whose bookings wait but whose oldest start was not read', async () => {
    const metrics = createWorkerMetrics({
      defaultMetrics: false,
      bookingCounter: createBookingCounter({
        maxAgeMs: 0,
        count: (q) => Promise.resolve(q.includes("'NEEDS_RECONCILIATION'") ? 1 : 0),
        // The booking closed between the count and the listing: nothing listed.
        oldestStart: () => Promise.resolve(undefined),
      }),
    });
    const text = await metrics.registry.metrics();
    assert.doesNotMatch(
      text,
      new RegExp(`^${METRIC_NAMES.bookingsWaitingOldest}\\{phase="NEEDS_RECONCILIATION"\\}`, 'm'),
      'unknown, not 0',
    );
    assert.match(
      text,
      new RegExp(`^${METRIC_NAMES.bookingsWaitingOldest}\\{phase="AWAITING_APPROVAL"\\} 0$`, 'm'),
      'none waits: a real 0',
    );
  });

  it('label supplier calls by account, endpoint, status and error code', async () => {
    const metrics = createWorkerMetrics({ defaultMetrics: false });
    metrics.recordSupplierCall({
      endpoint: '/booking',
      method: 'POST',
      statusCode: 201,
      durationMs: 120,
    });
    metrics.recordSupplierCall(
      { endpoint: '/retrieve', method: 'GET', statusCode: 200, durationMs: 30 },
      'eu',
    );
    metrics.recordSupplierCall({
      endpoint: '/booking',
      method: 'POST',
      durationMs: 5_000,
      code: 'TIMEOUT',
    });
    metrics.recordPollLateness(250);
    const text = await metrics.registry.metrics();
    assert.match(
      text,
      /^hotel_supplier_calls_total\{account="default",endpoint="\/booking",method="POST",status="201",code="OK"\} 1$/m,
    );
    assert.match(
      text,
      /^hotel_supplier_calls_total\{account="default",endpoint="\/booking",method="POST",status="none",code="TIMEOUT"\} 1$/m,
    );
    assert.match(
      text,
      /^hotel_supplier_calls_total\{account="eu",endpoint="\/retrieve",method="GET",status="200",code="OK"\} 1$/m,
    );
    assert.match(
      text,
      /^hotel_supplier_call_duration_seconds_bucket\{le="0.25",account="default",endpoint="\/booking",method="POST",result="ok"\} 1$/m,
    );
    assert.match(text, /^hotel_poll_lateness_seconds_count 1$/m);
  });

  it('export the age of the oldest waiting booking per phase, listing only phases that wait', async () => {
    const listed: string[] = [];
    const now = Date.UTC(2026, 0, 1, 12, 0, 0);
    const metrics = createWorkerMetrics({
      defaultMetrics: false,
      bookingCounter: createBookingCounter({
        maxAgeMs: 0,
        now: () => now,
        count: (q) => Promise.resolve(q.includes("'NEEDS_RECONCILIATION'") ? 2 : 0),
        oldestStart: (q) => {
          listed.push(q);
          return oldestStartTime(
            (async function* () {
              yield { startTime: new Date(now - 300_000) };
              yield { startTime: new Date(now - 1_200_000) };
            })(),
          );
        },
      }),
    });
    const text = await metrics.registry.metrics();
    assert.deepEqual(listed, [
      "(WorkflowType IN ('bookRoom', 'bookRoomAndGuard') AND ExecutionStatus = 'Running' AND BookingPhase = 'NEEDS_RECONCILIATION') AND (TemporalNamespaceDivision IS NULL OR TemporalNamespaceDivision IS NOT NULL)",
    ]);
    assert.match(
      text,
      new RegExp(
        `^${METRIC_NAMES.bookingsWaitingOldest}\\{phase="NEEDS_RECONCILIATION"\\} 1200$`,
        'm',
      ),
    );
    assert.match(
      text,
      new RegExp(`^${METRIC_NAMES.bookingsWaitingOldest}\\{phase="AWAITING_APPROVAL"\\} 0$`, 'm'),
    );
  });
});

/**
 * The booking call's mark (rule 1 with a lost task): `createBookingMarked` has Temporal record,
 * and acknowledge, that `POST /booking` is about to leave. A timeout without the mark proves the
 * call never left — a task handed out as a server node died, a worker that died before sending —
 * and it is sent again without a person; a timeout with it may hide a booking, and goes to
 * reconciliation as before. On the real server with its real 20 s heartbeat timeout.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Context } from '@temporalio/activity';
import { ApplicationFailure, TimeoutFailure, TimeoutType } from '@temporalio/common';
import type { Worker } from '@temporalio/worker';
import {
  createBookingActivities,
  markBookingCall,
  type CreateBookingInput,
} from '../../src/activities/booking';
import { BOOKING_CALL_MARK } from '../../src/shared/booking-call-mark';
import { BookingClient } from '../../src/client';
import { bookingCallFacts } from '../../src/workflows/failure-facts';
import {
  bookingInput,
  eventually,
  maybeRecordHistory,
  startBookingStack,
  stackWorker,
  supplierBookings,
  type BookingStack,
} from '../helpers/booking-stack';
import { uniqueTaskQueue } from '../helpers/temporal';

describe('what a failed booking call proves', () => {
  it('a timeout without the mark: never sent', () => {
    for (const type of [TimeoutType.HEARTBEAT, TimeoutType.START_TO_CLOSE]) {
      const f = bookingCallFacts(new TimeoutFailure('timed out', undefined, type));
      assert.equal(f.code, 'BOOKING_NOT_SENT');
      assert.equal(f.ambiguous, false);
      assert.equal(f.retryable, true);
    }
  });
  it('a timeout with the mark: may have been booked', () => {
    const f = bookingCallFacts(
      new TimeoutFailure('timed out', BOOKING_CALL_MARK, TimeoutType.HEARTBEAT),
    );
    assert.equal(f.ambiguous, true);
    assert.equal(f.code, 'ACTIVITY_TIMEOUT');
  });
  it('a worker that does not know the activity ran nothing', () => {
    const f = bookingCallFacts(
      ApplicationFailure.create({ type: 'NotFoundError', message: 'not registered' }),
    );
    assert.equal(f.code, 'BOOKING_NOT_SENT');
    assert.equal(f.ambiguous, false);
  });
  it('anything else is read as before (unknown: ambiguous)', () => {
    assert.equal(bookingCallFacts(new Error('?')).ambiguous, true);
  });
});

describe('a booking call lost before it left', () => {
  let s: BookingStack;
  const workers: { worker: Worker; running: Promise<void> }[] = [];
  before(async () => {
    s = await startBookingStack('booking-call-mark');
  });
  after(async () => {
    for (const w of workers) w.worker.shutdown();
    await Promise.all(workers.map((w) => w.running));
    await s?.close();
  });

  /** A worker whose first booking call does `first` (and never answers), the real one after. */
  async function workerWhoseFirstCall(first: (ctx: Context) => Promise<void>) {
    const taskQueue = uniqueTaskQueue('booking-call-mark');
    const real = createBookingActivities({ hotelApi: s.hotelApi, orderIdField: 'custom_field_10' });
    let calls = 0;
    const worker = await stackWorker(s, taskQueue, {
      extraActivities: {
        async createBookingMarked(input: CreateBookingInput) {
          calls += 1;
          if (calls > 1) return real.createBookingMarked(input);
          const ctx = Context.current();
          await first(ctx);
          // Holds the task, as a task handed out with a dying node or a hung worker does: no
          // answer, no heartbeat, until Temporal times it out (and the worker stops).
          await new Promise((_, reject) =>
            ctx.cancellationSignal.addEventListener('abort', () =>
              reject(ctx.cancellationSignal.reason),
            ),
          );
          throw new Error('unreachable');
        },
      },
    });
    workers.push({ worker, running: worker.run() });
    return {
      bookings: new BookingClient({ client: s.temporal.client, taskQueue }),
      calls: () => calls,
    };
  }

  it('is sent again without a person when it was never marked: CONFIRMED, one supplier booking', async () => {
    const w = await workerWhoseFirstCall(async () => undefined);
    const input = bookingInput('instant');
    await w.bookings.startBooking(input);
    const result = await w.bookings.result(input.orderId);
    assert.equal(result.outcome, 'CONFIRMED', JSON.stringify(result));
    assert.equal(w.calls(), 2, 'the call was sent a second time');
    assert.equal(supplierBookings(s, input.orderId).length, 1);
    const history = await s.temporal.client.workflow
      .getHandle(`booking-${input.orderId}`)
      .fetchHistory();
    const timedOut = history.events!.filter((e) => e.activityTaskTimedOutEventAttributes);
    assert.equal(timedOut.length, 1, 'the first call timed out on the server');
    await maybeRecordHistory(s, `booking-${input.orderId}`, 'unmarked-timeout-sent-again');
  });

  it('goes to reconciliation when it was marked (it may have left)', async () => {
    const w = await workerWhoseFirstCall((ctx) => markBookingCall(ctx));
    const input = bookingInput('instant');
    await w.bookings.startBooking(input);
    // The workflow stays open for the person who reconciles.
    const state = await eventually(
      async () => {
        const st = await w.bookings.state(input.orderId);
        return st.phase === 'NEEDS_RECONCILIATION' ? st : undefined;
      },
      90_000,
      'NEEDS_RECONCILIATION',
    );
    assert.match(JSON.stringify(state), /ACTIVITY_TIMEOUT/);
    await w.bookings.resolveReconciliation(input.orderId, { noBooking: true });
    await w.bookings.result(input.orderId);
    await maybeRecordHistory(s, `booking-${input.orderId}`, 'marked-timeout-reconciled');
    assert.equal(w.calls(), 1, 'never sent again');
  });
});

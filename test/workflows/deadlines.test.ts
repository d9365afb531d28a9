/**
 * Both shapes of a poll deadline give the contracted outcome (rule 8), on the dev server with
 * timings that force each shape deterministically:
 * - "the next retry would pass the deadline": polls every 5 s against an 11 s deadline; the server
 *   does not schedule the poll after the third, and the workflow sees `ActivityFailure` with
 *   `retryState: TIMEOUT` and the last pending failure as cause (the usual shape in production);
 * - "the deadline fires during a poll": a poll held by the supplier's edge past the deadline; the
 *   workflow sees a `TimeoutFailure` (SCHEDULE_TO_CLOSE).
 * Each test also checks which shape the history shows, so it cannot pass on the other one. In the
 * first shape the history holds the last poll's failure, which is checked to be lean (no details,
 * no stack trace: what every poll of a waiting booking costs the worker and the server).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { temporal } from '@temporalio/proto';
import { testDataConverter } from '../helpers/temporal';
import { startFaultProxy, type FaultProxy } from '../helpers/fault-proxy';
import {
  bookingInput,
  eventually,
  maybeRecordHistory,
  startBookingStack,
  type BookingStack,
} from '../helpers/booking-stack';

const { EventType, RetryState, TimeoutType } = temporal.api.enums.v1;

/**
 * Polls 5 s apart, jitter making it 4–5 s: the third poll starts at 8–10 s, the fourth would start
 * at 12 s or later, so against an 11 s deadline no poll can be in flight when it passes, and the
 * server refuses the fourth: the "next retry would pass the deadline" shape, every time.
 */
const EVERY_5S = { initialInterval: '5s', maximumInterval: '5s', backoffCoefficient: 1 };

describe(
  'poll deadlines end in their contracted outcome, both shapes',
  { concurrency: true },
  () => {
    let s: BookingStack;
    let proxy: FaultProxy;
    before(async () => {
      s = await startBookingStack('deadlines', {
        front: async (simUrl) => (proxy = await startFaultProxy(simUrl)),
      });
    });
    after(async () => {
      await s?.close();
    });

    const supplierBooking = (bookingId: number) =>
      s.sim.bookings().find((b) => b.bookingId === bookingId);

    /** How the last attempt of `activity` ended in the history of `workflowId`. */
    async function lastAttemptEnd(workflowId: string, activity: string) {
      const events =
        (await s.temporal.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
      const scheduled = new Set(
        events
          .filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === activity)
          .map((e) => String(e.eventId)),
      );
      const ends = events.filter(
        (e) =>
          scheduled.has(String(e.activityTaskFailedEventAttributes?.scheduledEventId)) ||
          scheduled.has(String(e.activityTaskTimedOutEventAttributes?.scheduledEventId)),
      );
      const end = ends.at(-1);
      assert.ok(end, `no end of ${activity} in the history`);
      return end;
    }

    /**
     * A poll's "not yet", as the server stores it with every attempt: BENIGN, its message naming
     * the status, no details and no stack trace (each poll of each waiting booking pays for them).
     */
    async function assertLeanPending(
      failure: temporal.api.failure.v1.IFailure | null | undefined,
      type: string,
      message: string,
    ) {
      const info = failure?.applicationFailureInfo;
      assert.equal(info?.type, type);
      assert.equal(
        info?.category,
        temporal.api.enums.v1.ApplicationErrorCategory.APPLICATION_ERROR_CATEGORY_BENIGN,
      );
      assert.equal(info?.details?.payloads?.length ?? 0, 0, 'no details');
      // The message and stack trace are encrypted (encodeCommonAttributes): decode them.
      const [encoded] = await testDataConverter.payloadCodecs![0]!.decode([
        failure!.encodedAttributes!,
      ]);
      const attributes = JSON.parse(Buffer.from(encoded!.data!).toString('utf8')) as {
        message: string;
        stack_trace: string;
      };
      assert.equal(attributes.message, message);
      assert.equal(attributes.stack_trace, '', 'no stack trace');
    }

    async function confirmedBooking(scenario: 'cancel-202-never') {
      const input = bookingInput(scenario);
      await s.bookings.startBooking(input);
      const r = await s.bookings.result(input.orderId);
      assert.equal(r.outcome, 'CONFIRMED');
      return r.bookingId!;
    }

    it('cancelBooking: a 202 never resolved ends STILL_ACTIVE when the next poll would pass the deadline', async () => {
      const bookingId = await confirmedBooking('cancel-202-never');
      const handle = await s.bookings.startCancellation({
        bookingId,
        deadline: '11s',
        polling: EVERY_5S,
      });
      const r = await handle.result();
      await maybeRecordHistory(s, handle.workflowId, 'cancel-202-never-next-retry-past-deadline');
      assert.equal(r.outcome, 'STILL_ACTIVE');
      const end = await lastAttemptEnd(handle.workflowId, 'awaitCancellation');
      assert.equal(end.eventType, EventType.EVENT_TYPE_ACTIVITY_TASK_FAILED);
      assert.equal(
        end.activityTaskFailedEventAttributes?.retryState,
        RetryState.RETRY_STATE_TIMEOUT,
      );
      await assertLeanPending(
        end.activityTaskFailedEventAttributes?.failure,
        'CANCELLATION_PENDING',
        `Cancellation of booking ${bookingId} not confirmed yet (status CONFIRMED)`,
      );
      assert.equal(supplierBooking(bookingId)?.status, 'CONFIRMED');
    });

    it('cancelBooking: a 202 never resolved ends STILL_ACTIVE when the deadline fires during a poll', async () => {
      const bookingId = await confirmedBooking('cancel-202-never');
      // Every retrieve of this booking is held 4.5 s (under the client's 5 s read timeout).
      const held = proxy.add({ method: 'GET', path: '/retrieve', bookingId, delayMs: 4_500 });
      try {
        const handle = await s.bookings.startCancellation({
          bookingId,
          deadline: '2s',
          polling: EVERY_5S,
        });
        const r = await handle.result();
        assert.equal(r.outcome, 'STILL_ACTIVE');
        const end = await lastAttemptEnd(handle.workflowId, 'awaitCancellation');
        assert.equal(end.eventType, EventType.EVENT_TYPE_ACTIVITY_TASK_TIMED_OUT);
        assert.equal(
          end.activityTaskTimedOutEventAttributes?.failure?.timeoutFailureInfo?.timeoutType,
          TimeoutType.TIMEOUT_TYPE_SCHEDULE_TO_CLOSE,
        );
        assert.ok(held.answered() >= 1);
      } finally {
        held.remove();
      }
    });

    it('bookRoom: still pending when the next poll would pass confirmationDeadline → NOT_CONFIRMED, its booking cancelled once', async () => {
      const input = bookingInput('pending-long', {
        confirmationDeadline: '11s',
        polling: EVERY_5S,
      });
      const started = await s.bookings.startBooking(input);
      const r = await s.bookings.result(input.orderId);
      await maybeRecordHistory(s, started.workflowId, 'confirmation-deadline-next-retry-past');
      assert.equal(r.outcome, 'NOT_CONFIRMED', `${r.outcome}: ${r.reason}`);
      assert.equal(r.cancellation?.outcome, 'CANCELLED');
      const end = await lastAttemptEnd(started.workflowId, 'awaitFinalBookingStatus');
      assert.equal(end.eventType, EventType.EVENT_TYPE_ACTIVITY_TASK_FAILED);
      assert.equal(
        end.activityTaskFailedEventAttributes?.retryState,
        RetryState.RETRY_STATE_TIMEOUT,
      );
      await assertLeanPending(
        end.activityTaskFailedEventAttributes?.failure,
        'BOOKING_PENDING',
        `Booking ${r.bookingId} is PENDING`,
      );
      const sb = supplierBooking(r.bookingId!);
      assert.equal(sb?.status, 'CANCELLED');
      assert.equal(sb?.cancelRequests, 1, 'exactly one cancel sent at the deadline');
    });

    it('bookRoom: still pending when confirmationDeadline fires during a poll → NOT_CONFIRMED, its booking cancelled once', async () => {
      const input = bookingInput('pending-long', {
        // The hold is added once the booking id is known (well within a second, usually): the
        // deadline must pass during the held poll, i.e. after it starts and within its 4.5 s.
        confirmationDeadline: '4s',
        polling: { initialInterval: '500ms', maximumInterval: '500ms', backoffCoefficient: 1 },
      });
      const started = await s.bookings.startBooking(input);
      const waiting = await eventually(async () => {
        const st = await s.bookings.state(input.orderId);
        return st.phase === 'AWAITING_CONFIRMATION' && st.bookingId ? st : undefined;
      });
      // The next retrieve is held past the deadline (4.5 s, under the client's 5 s read timeout).
      const held = proxy.add({
        method: 'GET',
        path: '/retrieve',
        bookingId: waiting.bookingId!,
        delayMs: 4_500,
        times: 1,
      });
      const r = await s.bookings.result(input.orderId);
      assert.equal(r.outcome, 'NOT_CONFIRMED', `${r.outcome}: ${r.reason}`);
      assert.equal(r.cancellation?.outcome, 'CANCELLED');
      assert.equal(held.answered(), 1);
      const end = await lastAttemptEnd(started.workflowId, 'awaitFinalBookingStatus');
      assert.equal(end.eventType, EventType.EVENT_TYPE_ACTIVITY_TASK_TIMED_OUT);
      const sb = supplierBooking(r.bookingId!);
      assert.equal(sb?.status, 'CANCELLED');
      assert.equal(sb?.cancelRequests, 1);
    });
  },
);

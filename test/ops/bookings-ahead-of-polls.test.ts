/**
 * Bookings ahead of polls: with a backlog of due confirmation polls on the
 * activity task queue, a new booking's price check is dispatched before the backlog, not behind it
 * (task-queue priority: src/workflows/activity-options.ts PRIORITY, the server's
 * `matching.useNewMatcher`). Order only, read from the simulator's arrival log: no timing.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { tsToMs } from '@temporalio/common/lib/time';
import { temporal } from '@temporalio/proto';
import type { BookRoomInput } from '../../src/client';
import type { ArrivedRequest } from '../../tools/simulator';
import { startArrivalStack, type ArrivalStack } from '../helpers/arrival-stack';
import { bookingInput, eventually } from '../helpers/booking-stack';

/** Bookings waiting for a confirmation that never comes, each with one poll due. */
const WAITING = 20;
/** They poll every second: while no worker takes activities, every one of them falls due. */
const POLLING = { initialInterval: '1s', maximumInterval: '1s', backoffCoefficient: 1 };
/** How long each step may take on a busy machine (waits, not assertions). */
const WAIT_MS = 180_000;

describe('bookings ahead of polls', () => {
  let stack: ArrivalStack | undefined;
  after(async () => {
    await stack?.close();
  });

  it(`a new booking's price check is served before ${WAITING} due polls queued ahead of it`, async (tc) => {
    stack = await startArrivalStack('ahead-of-polls', 18);
    const { arrivals, bookings, startWorker } = stack;
    const retrieves = () => arrivals.filter((r) => r.endpoint === 'retrieve').length;

    // 1. WAITING bookings reach their polls (each has been polled once), then the worker stops.
    const first = await startWorker();
    const waiting: BookRoomInput[] = Array.from({ length: WAITING }, () =>
      bookingInput('pending-long', { polling: POLLING }),
    );
    stack.terminateAtClose(waiting);
    await Promise.all(waiting.map((i) => bookings.startBooking(i)));
    const polling = async (orderId: string) => {
      const d = await bookings.handle(orderId).describe();
      return d.raw.pendingActivities?.[0]?.activityType?.name === 'awaitFinalBookingStatus';
    };
    await eventually(
      async () => (await Promise.all(waiting.map((i) => polling(i.orderId)))).every(Boolean),
      WAIT_MS,
      `${WAITING} bookings polling`,
    );
    await first.stop();

    // 2. With no activity worker, their next polls fall due and queue up on the server: each
    //    booking's pending poll is scheduled, its time a second past.
    const queued = async (orderId: string) => {
      const d = await bookings.handle(orderId).describe();
      const a = d.raw.pendingActivities?.[0];
      if (
        !a ||
        a.state !== temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_SCHEDULED
      ) {
        return false;
      }
      const at = a.nextAttemptScheduleTime ?? a.scheduledTime;
      return at != null && tsToMs(at) < Date.now() - 1_000;
    };
    await eventually(
      async () => (await Promise.all(waiting.map((i) => queued(i.orderId)))).every(Boolean),
      WAIT_MS,
      'every due poll queued',
    );

    // 3. A new booking, its workflow run by a worker that takes no activities: its price check
    //    is queued behind the due polls.
    const workflowsOnly = await startWorker({ activities: false });
    const input = bookingInput('instant');
    await bookings.startBooking(input);
    const handle = bookings.handle(input.orderId);
    await eventually(
      async () => {
        const history = await handle.fetchHistory();
        return history.events?.some((e) => e.activityTaskScheduledEventAttributes);
      },
      WAIT_MS,
      'the price check scheduled',
    );
    await eventually(async () => queued(input.orderId), WAIT_MS, 'the price check queued');
    const retrievesBefore = retrieves();
    await workflowsOnly.stop();

    // 4. One worker with one activity slot drains the queue: what comes first?
    await startWorker({ slots: 1 });
    const isOurs = (r: ArrivedRequest) =>
      r.endpoint === 'price-check' &&
      new URLSearchParams(r.query).get('option_id') === input.optionId;
    await eventually(async () => arrivals.some(isOurs), WAIT_MS, "the new booking's price check");
    const at = arrivals.findIndex(isOurs);
    const pollsServedFirst = arrivals.slice(0, at).filter((r) => r.endpoint === 'retrieve').length;
    const queuedPollsServedFirst = pollsServedFirst - retrievesBefore;
    tc.diagnostic(
      `${queuedPollsServedFirst} of ${WAITING} due polls served before the price check`,
    );
    assert.ok(
      queuedPollsServedFirst < WAITING / 2,
      `${queuedPollsServedFirst} of the ${WAITING} due polls were served before the new booking's price check`,
    );
    const result = await bookings.result(input.orderId);
    assert.equal(result.outcome, 'CONFIRMED');
  });
});

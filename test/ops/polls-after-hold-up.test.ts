/**
 * Polls after a hold-up: bookings waiting for a confirmation, their polls spread over the poll
 * delay, all held up together (no worker takes activities for a while, as in a restart or a busy
 * server), then served together once a worker is back. Their next polls must go back to each
 * booking's own time, spread as before, not come due together again one delay after the drain
 * (src/activities/poll-delay.ts `nextPollDelayMs`). Read from the simulator's arrival log, on the
 * dev server, across a real worker stop and start.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, describe, it } from 'node:test';
import { tsToMs } from '@temporalio/common/lib/time';
import { temporal } from '@temporalio/proto';
import type { BookRoomInput } from '../../src/client';
import { SupplierBookingIdKey } from '../../src/shared/search-attributes';
import { startArrivalStack, type ArrivalStack } from '../helpers/arrival-stack';
import { bookingInput, eventually } from '../helpers/booking-stack';

/** Bookings waiting for a confirmation that never comes. */
const WAITING = 20;
const DELAY_MS = 3_000;
/** Polled every 3 s, each delay less up to 20 % at random. */
const POLLING = { initialInterval: '3s', maximumInterval: '3s', backoffCoefficient: 1 };
/** Started this far apart, so that their polls are spread over the delay. */
const STAGGER_MS = DELAY_MS / WAITING;
/** What a busy machine may add to handing out a poll, ms (the simulator's arrival times). */
const TOLERANCE_MS = 400;
/** How long each step may take on a busy machine (waits, not assertions). */
const WAIT_MS = 180_000;

describe('polls after a hold-up', () => {
  let stack: ArrivalStack | undefined;
  after(async () => {
    await stack?.close();
  });

  it('polls held up together go back to their own times once served', async (tc) => {
    stack = await startArrivalStack('polls-after-hold-up', 19);
    const { arrivals, bookings, startWorker } = stack;
    /** Retrieve arrival times per supplier booking id, from `sinceMs`. */
    const pollsSince = (sinceMs: number) => {
      const by = new Map<string, number[]>();
      for (const r of arrivals) {
        if (r.endpoint !== 'retrieve' || r.atMs < sinceMs) continue;
        const id = new URLSearchParams(r.query).get('booking_id') ?? '?';
        const times = by.get(id);
        if (times) times.push(r.atMs);
        else by.set(id, [r.atMs]);
      }
      return by;
    };
    const everyBookingPolled = (sinceMs: number, times: number) => {
      const by = pollsSince(sinceMs);
      return by.size === WAITING && [...by.values()].every((ts) => ts.length >= times);
    };

    // 1. The bookings wait, each polled on its own time (started STAGGER_MS apart).
    const first = await startWorker();
    const waiting: BookRoomInput[] = Array.from({ length: WAITING }, () =>
      bookingInput('pending-long', { polling: POLLING }),
    );
    stack.terminateAtClose(waiting);
    for (const input of waiting) {
      await bookings.startBooking(input);
      await sleep(STAGGER_MS);
    }
    await eventually(async () => everyBookingPolled(0, 3), WAIT_MS, 'every booking polled');

    // 2. The hold-up: no worker, until every booking's next poll is over a delay late.
    await first.stop();
    const stopped = Date.now();
    const overdue = async (orderId: string) => {
      const d = await bookings.handle(orderId).describe();
      const a = d.raw.pendingActivities?.[0];
      const at = a?.nextAttemptScheduleTime ?? a?.scheduledTime;
      return at != null && tsToMs(at) < Date.now() - DELAY_MS;
    };
    await eventually(
      async () => (await Promise.all(waiting.map((i) => overdue(i.orderId)))).every(Boolean),
      WAIT_MS,
      'every poll a delay late',
    );
    // A poll handed to the stopping worker and never answered (started, or already timed out) is
    // not held up but lost: it comes back after its start-to-close timeout, on the retry policy's
    // backoff (POLL_ACTIVITY), so its times are no longer the booking's own.
    const lost = new Set<string>(); // supplier booking ids, as the arrival log names them
    for (const input of waiting) {
      const d = await bookings.handle(input.orderId).describe();
      const a = d.raw.pendingActivities?.[0];
      if (
        a?.state === temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_STARTED ||
        a?.lastFailure?.timeoutFailureInfo
      ) {
        lost.add(String(d.typedSearchAttributes.get(SupplierBookingIdKey)));
      }
    }

    // 3. A worker again: the held-up polls are served together; then each booking's next poll.
    const back = Date.now();
    await startWorker();
    await eventually(async () => everyBookingPolled(back, 2), WAIT_MS, 'two polls each after');
    const before = pollsSince(0);
    const rows = [...pollsSince(back)]
      .filter(([id]) => !lost.has(id))
      .map(([id, ts]) => {
        const last = before.get(id)!.filter((at) => at < stopped);
        return { lastBefore: last[last.length - 1]!, heldUp: ts[0]!, next: ts[1]! };
      });
    assert.ok(rows.length >= WAITING / 2, `${lost.size} of ${WAITING} polls lost, not held up`);
    const spread = (ts: number[]) => Math.max(...ts) - Math.min(...ts);
    const gaps = rows.map((r) => r.next - r.heldUp);
    tc.diagnostic(
      `held-up polls served within ${spread(rows.map((r) => r.heldUp))} ms; gaps to the next ${Math.min(...gaps)}–${Math.max(...gaps)} ms; ${lost.size} lost with the stopped worker`,
    );
    for (const r of rows) {
      // Its own time: the held-up poll was due one jittered delay (2.4–3 s) after the last poll
      // before the hold-up, the next one a jittered delay after that or whole delays later. So
      // the next poll falls 1.8–3 s past a multiple of the delay from the last one before (less
      // the few hundred ms a busy machine may take to hand out either poll). One jittered delay
      // after the drain instead, it falls anywhere.
      const offset = (r.next - r.lastBefore) % DELAY_MS;
      assert.ok(
        offset >= 0.6 * DELAY_MS - TOLERANCE_MS || offset <= TOLERANCE_MS,
        `next poll ${r.next - r.lastBefore} ms after the last before the hold-up: off its own times`,
      );
    }
    // A poll a delay late skips the slot closer to it than it was late: never sooner than a delay
    // after it, never later than two.
    for (const gap of gaps)
      assert.ok(gap >= DELAY_MS - 100 && gap <= 2 * DELAY_MS + TOLERANCE_MS, `gap ${gap} ms`);
    // And so the polls served together are followed by polls spread over the delay: one jittered
    // delay after the drain, the gaps would all be 2.4–3 s.
    assert.ok(spread(gaps) >= DELAY_MS / 2, `gaps ${Math.min(...gaps)}–${Math.max(...gaps)} ms`);
  });
});

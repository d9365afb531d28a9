/**
 * What `hotel_bookings_by_outcome` counts, on the dev server: the visibility query its gauge runs
 * (BOOKING_COUNT_QUERIES.outcome) counts an order's decision from the moment it is decided, while
 * the order's workflow still runs (its guard), and still after the guard cancelled the booking:
 * decisions, not finished workflows nor the orders' state now (docs/operating.md's table, from
 * src/observability/metric-series.ts).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BOOKING_COUNT_QUERIES } from '../../src/observability/booking-counts';
import { BOOK_ROOM_WORKFLOW, BookingOutcome } from '../../src/shared/booking-values';
import {
  bookingInput,
  eventually,
  startBookingStack,
  type BookingStack,
} from '../helpers/booking-stack';

describe('hotel_bookings_by_outcome', () => {
  let s: BookingStack;
  before(async () => {
    s = await startBookingStack('bookings-by-outcome');
  });
  after(async () => {
    await s?.close();
  });

  /** What the gauge's query counts for `outcome`, of this one workflow's runs. */
  const counted = async (outcome: BookingOutcome, workflowId: string) =>
    (
      await s.temporal.client.workflow.count(
        `${BOOKING_COUNT_QUERIES.outcome(outcome)} AND WorkflowId = '${workflowId}'`,
      )
    ).count;

  it("counts a CONFIRMED order from its decision, while its guard runs, and after the guard's cancellation", async () => {
    const input = bookingInput('instant');
    await s.bookings.startBooking(input);
    assert.equal((await s.bookings.result(input.orderId)).outcome, 'CONFIRMED');
    const handle = s.bookings.handle(input.orderId);
    assert.equal((await handle.describe()).status.name, 'RUNNING', 'guarded: still running');
    await eventually(
      async () => (await counted(BookingOutcome.CONFIRMED, handle.workflowId)) === 1,
      30_000,
      'the running order counted CONFIRMED',
    );

    assert.equal((await s.bookings.cancelOrder(input.orderId)).kind, 'requested');
    await handle.result();
    assert.equal((await handle.describe()).status.name, 'COMPLETED');
    assert.equal((await s.bookings.state(input.orderId)).truth, 'CANCELLED');
    // Closed, its booking cancelled: the decision it counts under is still CONFIRMED.
    await eventually(
      async () =>
        (
          await s.temporal.client.workflow.count(
            `WorkflowId = '${handle.workflowId}' AND ExecutionStatus = 'Completed'`,
          )
        ).count === 1,
      30_000,
      'visibility sees it closed',
    );
    assert.equal(await counted(BookingOutcome.CONFIRMED, handle.workflowId), 1);
    assert.equal(await counted(BookingOutcome.CANCELLED, handle.workflowId), 0);
    // Started again once closed: the new run answers the decision and is not counted again.
    const again = await s.temporal.client.workflow.start(BOOK_ROOM_WORKFLOW, {
      taskQueue: s.taskQueue,
      workflowId: handle.workflowId,
      args: [input],
    });
    await again.result();
    await eventually(
      async () =>
        (
          await s.temporal.client.workflow.count(
            `WorkflowId = '${handle.workflowId}' AND ExecutionStatus = 'Completed'`,
          )
        ).count === 2,
      30_000,
      'visibility sees the second run closed',
    );
    assert.equal(await counted(BookingOutcome.CONFIRMED, handle.workflowId), 1);
  });
});

/**
 * One order, one workflow, whoever starts it: the order is reached at `booking-<orderId>` before
 * the decision, while pending, after CONFIRMED and after a cancel, and cancelled by order id with
 * one `cancel` update, whether our client started it, a plain Temporal client with its SDK's
 * defaults (`ALLOW_DUPLICATE`), or a plain client whose conflict policy terminated the running run
 * (`TERMINATE_EXISTING`); once it has closed, a plain start again (`ALLOW_DUPLICATE`) answers its
 * decision and books nothing. One supplier booking per order in every case. Real dev server, real
 * worker, the simulator over HTTP. (The Python order system and the CLI recipe do the same in
 * test/examples/.)
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  WorkflowIdConflictPolicy,
  WorkflowIdReusePolicy,
  WorkflowNotFoundError,
  type WorkflowHandle,
} from '@temporalio/client';
import {
  BOOK_ROOM_WORKFLOW,
  bookingWorkflowId,
  validateBookRoomInput,
  type BookRoomInput,
  type OrderResult,
  type OrderState,
} from '../../src/client';
import { bookingStateQuery, cancelUpdate, outcomeUpdate } from '../../src/shared/booking-messages';
import type { ScenarioName } from '../../tools/simulator/scenarios';
import {
  bookingInput,
  eventually,
  startBookingStack,
  supplierBookings,
  type BookingStack,
} from '../helpers/booking-stack';

type Caller =
  | 'BookingClient'
  | 'plain client, SDK defaults (ALLOW_DUPLICATE)'
  | 'plain client, TERMINATE_EXISTING';
type Phase = 'before the decision' | 'while pending' | 'after CONFIRMED';

/** Each phase: the scenario that holds the order there, and the phase `bookingState` reads. */
const PHASES: Record<Phase, { scenario: ScenarioName; param?: number; phase: string }> = {
  'before the decision': { scenario: 'price-up', param: 20, phase: 'AWAITING_APPROVAL' },
  'while pending': { scenario: 'pending-long', phase: 'AWAITING_CONFIRMATION' },
  'after CONFIRMED': { scenario: 'instant', phase: 'CONFIRMED' },
};
const CALLERS: readonly Caller[] = [
  'BookingClient',
  'plain client, SDK defaults (ALLOW_DUPLICATE)',
  'plain client, TERMINATE_EXISTING',
];

describe('one order, one workflow, whoever starts it', { concurrency: true }, () => {
  let s: BookingStack;
  before(async () => {
    s = await startBookingStack('one-order-one-workflow');
  });
  after(async () => {
    await s?.close();
  });

  const plainStart = (input: BookRoomInput, conflict?: WorkflowIdConflictPolicy) =>
    s.temporal.client.workflow.start(BOOK_ROOM_WORKFLOW, {
      taskQueue: s.taskQueue,
      workflowId: bookingWorkflowId(input.orderId),
      args: [validateBookRoomInput(input)],
      workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
      ...(conflict ? { workflowIdConflictPolicy: conflict } : {}),
    });

  /** The order's state, read at `booking-<orderId>` by a plain query, once it is in `phase`. */
  const reached = (orderId: string, phase: string) =>
    eventually(
      async () => {
        const handle = s.temporal.client.workflow.getHandle(bookingWorkflowId(orderId));
        const st: OrderState = await handle.query(bookingStateQuery);
        return st.phase === phase ? st : undefined;
      },
      30_000,
      `${orderId} in ${phase}`,
    );

  /** Starts the order the way `caller` does, and waits until it is in the phase. */
  async function startAs(caller: Caller, input: BookRoomInput, phase: string) {
    if (caller === 'BookingClient') await s.bookings.startBooking(input);
    else await plainStart(input);
    let st = await reached(input.orderId, phase);
    if (caller === 'plain client, TERMINATE_EXISTING') {
      // Another caller ends the running run and starts a new one: the new run holds the order.
      const second = await plainStart(input, WorkflowIdConflictPolicy.TERMINATE_EXISTING);
      st = await eventually(async () => {
        const now: OrderState = await second.query(bookingStateQuery);
        return now.phase === phase ? now : undefined;
      });
    }
    return st;
  }

  for (const caller of CALLERS) {
    for (const [name, at] of Object.entries(PHASES) as [Phase, (typeof PHASES)[Phase]][]) {
      it(`${caller}: reached ${name} at booking-<orderId> and cancelled by order id in one update; one supplier booking`, async () => {
        const input = bookingInput(at.scenario, at.param !== undefined ? { param: at.param } : {});
        const st = await startAs(caller, input, at.phase);
        assert.equal(st.workflowId, bookingWorkflowId(input.orderId));
        const handle: WorkflowHandle = s.temporal.client.workflow.getHandle(
          bookingWorkflowId(input.orderId),
        );
        // Cancel by order id: one update on the one id, whatever the phase.
        const answer = await handle.executeUpdate(cancelUpdate, { args: [{ reason: 'test' }] });
        assert.equal(answer.cancelRequested, true);
        const closed = (await handle.result()) as OrderResult;
        const booked = supplierBookings(s, input.orderId);
        if (name === 'before the decision') {
          assert.equal(closed.outcome, 'CANCELLED');
          assert.equal(booked.length, 0, 'nothing booked');
        } else {
          if (name === 'after CONFIRMED') {
            assert.equal(closed.outcome, 'CONFIRMED');
            assert.equal(closed.guard?.phase, 'CANCELLED');
          } else assert.equal(closed.outcome, 'CANCELLED');
          assert.equal(booked.length, 1, 'one supplier booking');
          assert.equal(booked[0]?.status, 'CANCELLED');
        }
        // After the cancel: still reached at the one id, and the order knows it is over.
        const last: OrderState = await handle.query(bookingStateQuery);
        assert.equal(last.workflowId, bookingWorkflowId(input.orderId));
        const state = await s.bookings.state(input.orderId);
        assert.equal(state.open, false);
        assert.match(state.truth, /CANCELLED/);
        // The decision is the same one call's answer; a second cancel has nothing left to do.
        await assert.rejects(handle.executeUpdate(outcomeUpdate), WorkflowNotFoundError);
        assert.equal((await s.bookings.cancelOrder(input.orderId)).kind, 'nothing-to-cancel');
        // Started again once closed (ALLOW_DUPLICATE): the order's decision is answered, and
        // nothing is booked (one decision per order id).
        const again = await plainStart(input);
        const reported = (await again.result()) as OrderResult;
        assert.equal(reported.outcome, 'CANCELLED');
        assert.match(reported.reason ?? '', /decided by an earlier run/);
        assert.equal(
          supplierBookings(s, input.orderId).length,
          name === 'before the decision' ? 0 : 1,
          'no new supplier booking',
        );
      });
    }
  }
});

/**
 * One decision per order id (docs/contract.md): once an order has a decision, every later start,
 * update-with-start or `outcome` call for that order id — with a plain Temporal client's defaults
 * (`ALLOW_DUPLICATE`), `USE_EXISTING`, or a policy that terminates — answers that decision and
 * makes no call to the supplier; a cancel sent with a start of the order id alone reaches a
 * closed order and cancels the supplier booking it still holds, or is refused with the reason.
 * The simulator's request count is the witness: the tests run one at a time on a stack of their
 * own, so every request it counts is the test's.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  WithStartWorkflowOperation,
  WorkflowIdConflictPolicy,
  WorkflowUpdateFailedError,
  type WorkflowHandle,
} from '@temporalio/client';
import {
  BOOK_ROOM_WORKFLOW,
  bookingWorkflowId,
  type BookRoomInput,
  type BookRoomResult,
  type OrderResult,
  type OrderState,
} from '../../src/client';
import { cancelUpdate, outcomeUpdate } from '../../src/shared/booking-messages';
import { BookingOutcomeKey } from '../../src/shared/search-attributes';
import {
  bookingInput,
  maybeRecordHistory,
  startBookingStack,
  supplierBookings,
  type BookingStack,
} from '../helpers/booking-stack';

describe('one decision per order id, whoever asks and however', () => {
  let s: BookingStack;
  before(async () => {
    s = await startBookingStack('one-decision');
  });
  after(async () => {
    await s?.close();
  });

  /** A start operation as any SDK builds it: `USE_EXISTING`, the id-reuse policy left default. */
  const startOf = (input: BookRoomInput | { orderId: string }) =>
    new WithStartWorkflowOperation(BOOK_ROOM_WORKFLOW, {
      taskQueue: s.taskQueue,
      workflowId: bookingWorkflowId(input.orderId),
      args: [input as BookRoomInput],
      workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
    });
  /** The documented call: the `outcome` update sent with the start. */
  const outcomeWithStart = (input: BookRoomInput | { orderId: string }) =>
    s.temporal.client.workflow.executeUpdateWithStart(outcomeUpdate, {
      startWorkflowOperation: startOf(input),
    }) as Promise<BookRoomResult>;
  const cancelWithStart = (orderId: string, request: object = {}) =>
    s.temporal.client.workflow.executeUpdateWithStart(cancelUpdate, {
      args: [request],
      startWorkflowOperation: startOf({ orderId }),
    }) as Promise<OrderState>;
  /** A plain start with the SDK's defaults (`ALLOW_DUPLICATE`, conflict `FAIL`). */
  const plainStart = (input: BookRoomInput) =>
    s.temporal.client.workflow.start(BOOK_ROOM_WORKFLOW, {
      taskQueue: s.taskQueue,
      workflowId: bookingWorkflowId(input.orderId),
      args: [input],
    });
  const supplierRequests = () => s.sim.requests().total;
  /** The order's latest run, for the replay test (RECORD_HISTORIES=1). */
  const record = (orderId: string, name: string) =>
    maybeRecordHistory(s, bookingWorkflowId(orderId), name);
  const closed = async (orderId: string) => {
    await s.temporal.client.workflow.getHandle(bookingWorkflowId(orderId)).result();
  };

  const decided: Array<[string, BookRoomInput, string]> = [
    ['NOT_AVAILABLE', bookingInput('not-available'), 'NOT_AVAILABLE'],
    ['NOT_CONFIRMED', bookingInput('not-confirmed'), 'NOT_CONFIRMED'],
    [
      'PRICE_REJECTED',
      bookingInput('policy-change', { priceChangePolicy: { approvalTimeout: '300ms' } }),
      'PRICE_REJECTED',
    ],
    ['CONFIRMED, guard off', bookingInput('instant', { guard: { enabled: false } }), 'CONFIRMED'],
  ];
  for (const [name, input, outcome] of decided) {
    it(`after ${name}: every later call answers ${outcome} and calls no supplier`, async () => {
      const first = await outcomeWithStart(input);
      assert.equal(first.outcome, outcome);
      await closed(input.orderId);
      const before = supplierRequests();
      // The documented call again, a plain start with the defaults, the order id alone.
      const again = await outcomeWithStart(input);
      const plain = (await (await plainStart(input)).result()) as OrderResult;
      const alone = await outcomeWithStart({ orderId: input.orderId });
      await record(input.orderId, `answered-${outcome}`);
      for (const r of [again, plain, alone]) {
        assert.equal(r.outcome, outcome);
        assert.equal(r.bookingId, first.bookingId);
        assert.match(r.reason ?? '', /decided by an earlier run/);
      }
      assert.equal(supplierRequests(), before, 'no supplier call after the decision');
      // Counted once: a run that answers an earlier decision writes no BookingOutcome of its own.
      const latest = await s.temporal.client.workflow
        .getHandle(bookingWorkflowId(input.orderId))
        .describe();
      assert.equal(latest.typedSearchAttributes.get(BookingOutcomeKey), undefined);
      assert.equal(supplierBookings(s, input.orderId).length, first.bookingId ? 1 : 0);
    });
  }

  it('a plain start of a sold-out order, then the documented call: the decision, never an abort', async () => {
    const input = bookingInput('not-available');
    const handle: WorkflowHandle = await plainStart(input);
    // The order may be decided and closed within its first task: the update alone could meet a
    // closed workflow; sent with the start it is answered either way.
    assert.equal((await outcomeWithStart(input)).outcome, 'NOT_AVAILABLE');
    assert.equal(((await handle.result()) as OrderResult).outcome, 'NOT_AVAILABLE');
  });

  it('a closed order that holds an unguarded booking is cancelled by its id in one call, once', async () => {
    const input = bookingInput('instant', { guard: { enabled: false } });
    const first = await outcomeWithStart(input);
    assert.equal(first.outcome, 'CONFIRMED');
    await closed(input.orderId);
    const taken = await cancelWithStart(input.orderId, { reason: 'guest cancelled' });
    assert.equal(taken.cancelRequested, true);
    assert.equal(taken.phase, 'CANCELLING');
    const done = await outcomeWithStart({ orderId: input.orderId });
    assert.equal(done.outcome, 'CANCELLED');
    await record(input.orderId, 'closed-booking-cancelled-by-order-id');
    assert.equal(done.bookingId, first.bookingId);
    const [booking, ...more] = supplierBookings(s, input.orderId);
    assert.equal(booking?.status, 'CANCELLED');
    assert.equal(more.length, 0);
    // The order's truth is now CANCELLED, for every later call; a second cancel is answered.
    assert.equal((await outcomeWithStart(input)).outcome, 'CANCELLED');
    assert.equal((await s.bookings.state(input.orderId)).truth, 'CANCELLED');
    const again = await cancelWithStart(input.orderId);
    assert.equal(again.truth, 'CANCELLED');
    assert.equal((await s.bookings.cancelOrder(input.orderId)).kind, 'nothing-to-cancel');
  });

  it('a cancel with nothing to cancel is refused with the reason, never accepted and dropped', async () => {
    const input = bookingInput('not-available');
    assert.equal((await outcomeWithStart(input)).outcome, 'NOT_AVAILABLE');
    await closed(input.orderId);
    const refusedWith = (code: string) => (err: unknown) => {
      assert.ok(err instanceof WorkflowUpdateFailedError, String(err));
      assert.equal((err.cause as { type?: string }).type, code);
      return true;
    };
    await assert.rejects(cancelWithStart(input.orderId), refusedWith('NOTHING_TO_CANCEL'));
    await closed(input.orderId);
    await record(input.orderId, 'cancel-refused-nothing-to-cancel');
    // An order id nobody booked: the start books nothing, and leaves the id free.
    const unknown = bookingInput('instant');
    await assert.rejects(cancelWithStart(unknown.orderId), refusedWith('NO_ORDER'));
    const none = await outcomeWithStart({ orderId: unknown.orderId });
    assert.equal(none.outcome, 'FAILED');
    assert.equal(none.error?.code, 'NO_ORDER');
    await record(unknown.orderId, 'order-id-alone-no-order');
    assert.equal((await outcomeWithStart(unknown)).outcome, 'CONFIRMED');
    assert.equal(supplierBookings(s, unknown.orderId).length, 1);
    await s.bookings.cancelOrder(unknown.orderId);
  });

  it('BookingClient.cancelOrder reaches a closed unguarded booking the same way', async () => {
    const input = bookingInput('instant', { guard: { enabled: false } });
    assert.equal((await outcomeWithStart(input)).outcome, 'CONFIRMED');
    await closed(input.orderId);
    const c = await s.bookings.cancelOrder(input.orderId, { reason: 'test' });
    assert.equal(c.kind, 'requested');
    assert.equal((await s.bookings.result(input.orderId)).outcome, 'CANCELLED');
    assert.equal(supplierBookings(s, input.orderId)[0]?.status, 'CANCELLED');
  });
});

/**
 * bookRoomAndGuard (the client's default) on a real dev server, a real worker and the simulator
 * over HTTP: the booking answers its caller when it is decided and lives on, in the same workflow,
 * as the order's guard. Checked as callers see it: the client, the Temporal API (describe, cancel,
 * another SDK's start), the search attributes, what the supplier received.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/client';
import {
  BOOK_ROOM_AND_GUARD_WORKFLOW,
  BOOK_ROOM_WORKFLOW,
  BookingClient,
  bookingWorkflowId,
  guardWorkflowId,
  validateBookRoomInput,
  type OrderResult,
  type BookRoomResult,
} from '../../src/client';
import {
  BookingPhaseKey,
  FreeCancellationUntilKey,
  SupplierBookingIdKey,
} from '../../src/shared/search-attributes';
import {
  bookingInput,
  eventually,
  maybeRecordHistory,
  stackWorker,
  startBookingStack,
  supplierBookings,
  type BookingStack,
} from '../helpers/booking-stack';
import { uniqueTaskQueue } from '../helpers/temporal';
import { startUpdateOf } from '../../src/client/order-decisions';

const isoIn = (ms: number) => new Date(Date.now() + ms).toISOString();

describe('bookRoomAndGuard', { concurrency: true }, () => {
  let s: BookingStack;
  before(async () => {
    s = await startBookingStack('book-and-guard');
  });
  after(async () => {
    await s?.close();
  });

  const supplier = (orderId: string) => {
    const [b, ...more] = supplierBookings(s, orderId);
    assert.ok(b, `a supplier booking for ${orderId}`);
    assert.equal(more.length, 0, 'one supplier booking per order');
    return b;
  };
  const describeGuard = (orderId: string) =>
    s.temporal.client.workflow.getHandle(guardWorkflowId(orderId)).describe();

  it('answers its caller with the decision and guards the order in the same workflow', async () => {
    const input = bookingInput('instant', { guard: { reconfirmBefore: ['24h'] } });
    const started = await s.bookings.startBooking(input);
    assert.equal(started.status, 'STARTED');
    const decided = await s.bookings.result(input.orderId);
    assert.equal(decided.outcome, 'CONFIRMED');
    assert.ok(decided.bookingId);

    // Decided, and still running: the order's guard is this workflow, not a second one.
    const handle = s.bookings.handle(input.orderId);
    const d = await handle.describe();
    assert.equal(d.type, BOOK_ROOM_WORKFLOW);
    assert.equal(d.status.name, 'RUNNING');
    assert.equal(d.runId, started.runId);
    await assert.rejects(describeGuard(input.orderId), WorkflowNotFoundError);
    const st = await eventually(async () => {
      const x = await s.bookings.state(input.orderId);
      return x.terms?.source === 'supplier' ? x : undefined;
    });
    assert.equal(st.holder, 'guard');
    assert.equal(st.workflowId, bookingWorkflowId(input.orderId));
    assert.equal(st.truth, 'CONFIRMED');
    assert.equal(st.open, true);
    assert.equal(st.bookingId, decided.bookingId);
    const sa = (await handle.describe()).typedSearchAttributes;
    assert.equal(sa.get(BookingPhaseKey), 'CONFIRMED');
    assert.equal(sa.get(SupplierBookingIdKey), decided.bookingId);
    assert.equal(sa.get(FreeCancellationUntilKey)?.toISOString(), st.terms?.freeCancellationUntil);
    // The booking and the guard's start in one history, within the performance budget (the
    // marker of this shape, written first, included).
    const { events } = await handle.fetchHistory();
    assert.ok(
      (events?.length ?? 0) <= 25,
      `${events?.length} events while guarding: ${events?.map((e) => e.eventType).join(',')}`,
    );

    // Asking again answers the same; starting again reuses the running workflow.
    assert.deepEqual(await s.bookings.result(input.orderId), decided);
    const again = await s.bookings.startBooking(input);
    assert.equal(again.status, 'ALREADY_RUNNING');

    // Cancel by order id reaches the guard part; the decision stays what it was.
    assert.equal((await s.bookings.cancelOrder(input.orderId)).kind, 'requested');
    const settled = await s.bookings.cancellationSettled(input.orderId, 100);
    assert.equal(settled.truth, 'CANCELLED');
    const done = (await handle.result()) as OrderResult;
    assert.equal(done.outcome, 'CONFIRMED');
    assert.equal(done.bookingId, decided.bookingId);
    assert.equal(done.guard?.phase, 'CANCELLED');
    assert.equal(done.guard?.state.cancellation?.by, 'update');
    assert.equal(supplier(input.orderId).status, 'CANCELLED');
    assert.equal(supplier(input.orderId).cancelRequests, 1);

    // Closed: the decision still reads the same, nothing restarts, nothing is left to cancel.
    assert.equal((await s.bookings.result(input.orderId)).outcome, 'CONFIRMED');
    assert.equal((await s.bookings.startBooking(input)).status, 'ALREADY_FINISHED');
    assert.equal((await s.bookings.cancelOrder(input.orderId)).kind, 'nothing-to-cancel');
    assert.equal((await s.bookings.state(input.orderId)).truth, 'CANCELLED');
    await maybeRecordHistory(s, started.workflowId, 'book-and-guard-cancelled');
  });

  it('a Temporal cancellation after the decision is the guard’s cancellation (rule 8)', async () => {
    const input = bookingInput('instant');
    await s.bookings.startBooking(input);
    assert.equal((await s.bookings.result(input.orderId)).outcome, 'CONFIRMED');
    const handle = s.bookings.handle(input.orderId);
    await handle.cancel();
    const done = (await handle.result()) as OrderResult;
    assert.equal(done.outcome, 'CONFIRMED');
    assert.equal(done.guard?.phase, 'CANCELLED');
    assert.equal(done.guard?.state.cancellation?.by, 'temporal');
    assert.equal(supplier(input.orderId).status, 'CANCELLED');
  });

  it('a stay that ends closes the workflow CHECKED_OUT, its result the decision and the guard’s end', async () => {
    // The reconfirmation point (6 s before check-in) must still be ahead when the guard starts:
    // one already past is covered by the guard's first read. 6 s leaves the booking room on
    // 2 busy cores.
    const input = bookingInput('confirm-after-polls', {
      param: 2,
      guard: { checkInAt: isoIn(12_000), checkOutAt: isoIn(14_000), reconfirmBefore: ['6s'] },
    });
    await s.bookings.startBooking(input);
    const decided = await s.bookings.result(input.orderId);
    assert.equal(decided.outcome, 'CONFIRMED');
    const done = (await s.bookings.handle(input.orderId).result()) as OrderResult;
    assert.equal(done.guard?.phase, 'CHECKED_OUT');
    assert.equal(done.guard?.truth, 'STAY_COMPLETED');
    assert.equal(done.guard?.state.reconfirmations?.length, 2, 'handed-over read and one more');
    assert.equal(done.bookingId, decided.bookingId);
    assert.equal(supplier(input.orderId).status, 'CONFIRMED');
  });

  it('an outcome other than CONFIRMED closes the workflow with it, as bookRoom does', async () => {
    const input = bookingInput('not-available');
    const started = await s.bookings.startBooking(input);
    const r = await s.bookings.result(input.orderId);
    assert.equal(r.outcome, 'NOT_AVAILABLE');
    const closed = (await s.bookings.handle(input.orderId).result()) as OrderResult;
    assert.deepEqual(closed, r);
    assert.equal(closed.guard, undefined);
    assert.equal(supplierBookings(s, input.orderId).length, 0);
    assert.equal((await s.bookings.startBooking(input)).status, 'ALREADY_FINISHED');
    await maybeRecordHistory(s, started.workflowId, 'book-and-guard-not-available');
  });

  it('another caller starting bookRoom for the order with its SDK’s defaults books nothing (rule 1)', async () => {
    const input = bookingInput('instant');
    await s.bookings.startBooking(input);
    const decided = await s.bookings.result(input.orderId);
    const valid = validateBookRoomInput(input);
    const foreign = (workflowIdReusePolicy?: 'ALLOW_DUPLICATE') =>
      s.temporal.client.workflow.start(BOOK_ROOM_WORKFLOW, {
        taskQueue: s.taskQueue,
        workflowId: bookingWorkflowId(input.orderId),
        args: [valid],
        ...(workflowIdReusePolicy ? { workflowIdReusePolicy } : {}),
      });
    // While the order is guarded, the id is taken (Temporal's default conflict policy).
    await assert.rejects(foreign(), WorkflowExecutionAlreadyStartedError);
    await s.bookings.handle(input.orderId).cancel();
    await s.bookings.handle(input.orderId).result();
    // Closed: a new bookRoom run (the default reuse policy allows it) reports what exists: the
    // booking, as its guard ended it.
    const second = await foreign('ALLOW_DUPLICATE');
    const reported = (await second.result()) as BookRoomResult;
    assert.equal(reported.outcome, 'CANCELLED');
    assert.equal(reported.bookingId, decided.bookingId);
    assert.equal(supplierBookings(s, input.orderId).length, 1, 'one supplier booking');
  });

  it("result answers the order's decision once the workflow id has a newer run started by another caller", async () => {
    const input = bookingInput('instant');
    const started = await s.bookings.startBooking(input);
    const first = s.temporal.client.workflow.getHandle(started.workflowId, started.runId);
    // Decided, then stopped by an operator; another caller starts the order again.
    await eventually(async () =>
      (await first.describe()).typedSearchAttributes.get(SupplierBookingIdKey) !== undefined
        ? true
        : undefined,
    );
    await first.terminate('an operator stopped it');
    const second = await s.temporal.client.workflow.start(BOOK_ROOM_AND_GUARD_WORKFLOW, {
      taskQueue: s.taskQueue,
      workflowId: started.workflowId,
      args: [validateBookRoomInput(input)],
      workflowIdReusePolicy: 'ALLOW_DUPLICATE',
    });
    await eventually(async () =>
      (await second.describe()).typedSearchAttributes.get(BookingPhaseKey) === 'CONFIRMED'
        ? true
        : undefined,
    );

    const decided = await s.bookings.result(input.orderId);
    assert.equal(decided.outcome, 'CONFIRMED');
    assert.equal(decided.bookingId, supplier(input.orderId).bookingId);
    // The newer run carries no start's update: it was asked, and answered the decision.
    assert.equal(await startUpdateOf(await second.describe()), undefined);
    assert.equal(supplierBookings(s, input.orderId).length, 1, 'one supplier booking');
    await second.terminate('test over');
  });

  it('startBooking returns while no worker takes the update; result answers once one does', async () => {
    const taskQueue = uniqueTaskQueue('book-and-guard-late');
    const bookings = new BookingClient({ client: s.temporal.client, taskQueue });
    const input = bookingInput('instant');
    const started = await bookings.startBooking(input);
    assert.equal(started.status, 'STARTED');
    assert.equal((await bookings.handle(input.orderId).describe()).status.name, 'RUNNING');
    const worker = await stackWorker(s, taskQueue);
    const running = worker.run();
    try {
      const r = await bookings.result(input.orderId);
      assert.equal(r.outcome, 'CONFIRMED');
      assert.equal(supplier(input.orderId).status, 'CONFIRMED');
    } finally {
      await bookings.handle(input.orderId).terminate('test over');
      worker.shutdown();
      await running;
    }
  });

  it('a start of the earlier name bookRoomAndGuard runs the same one workflow: the order guarded in it, no second workflow', async () => {
    const bookings = new BookingClient({
      client: s.temporal.client,
      taskQueue: s.taskQueue,
      workflow: BOOK_ROOM_AND_GUARD_WORKFLOW,
    });
    const input = bookingInput('instant');
    await bookings.startBooking(input);
    assert.equal((await bookings.result(input.orderId)).outcome, 'CONFIRMED');
    const described = await bookings.handle(input.orderId).describe();
    assert.equal(described.type, BOOK_ROOM_AND_GUARD_WORKFLOW);
    assert.equal(described.status.name, 'RUNNING');
    assert.equal((await bookings.state(input.orderId)).holder, 'guard');
    await assert.rejects(describeGuard(input.orderId), WorkflowNotFoundError);
    assert.equal((await bookings.cancelOrder(input.orderId)).kind, 'requested');
    assert.equal((await bookings.cancellationSettled(input.orderId, 100)).truth, 'CANCELLED');
    assert.equal(supplierBookings(s, input.orderId).length, 1);
  });
});

/**
 * The guard on a real dev server, a real worker and the simulator over HTTP: a confirmed booking's
 * life until check-out, in the order's one workflow (`booking-<orderId>`). Each test books its
 * order with stay instants seconds away (`guard.checkInAt` etc.) and checks the order's truth
 * everywhere: the client's state, the search attributes, what the supplier received. The last
 * tests run the guard of an earlier version (`guardBooking`, `guard-<orderId>`), still registered
 * for the guards those versions started.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { supplierBookingBody } from '../../src/activities/booking';
import { bookingStateQuery } from '../../src/shared/booking-messages';
import {
  CancellationRefusedError,
  bookingWorkflowId,
  type OrderResult,
  GUARD_BOOKING_WORKFLOW,
  guardWorkflowId,
  type GuardInput,
  type GuardResult,
  type GuardPolicyInput,
  type OrderState,
} from '../../src/client';
import { savedQueries } from '../../src/observability/saved-queries';
import {
  BookingPhaseKey,
  FreeCancellationUntilKey,
  ReconfirmationKey,
  SupplierStatusKey,
} from '../../src/shared/search-attributes';
import { scenarioOptionId, type ScenarioName } from '../../tools/simulator/scenarios';
import {
  FAST_POLLING,
  bookingInput,
  eventually,
  maybeRecordHistory,
  newOrderId,
  stackWorker,
  startBookingStack,
  type BookingStack,
} from '../helpers/booking-stack';
import { uniqueTaskQueue } from '../helpers/temporal';

const DAY = 86_400_000;
const isoIn = (ms: number) => new Date(Date.now() + ms).toISOString();
const dateIn = (days: number) => new Date(Date.now() + days * DAY).toISOString().slice(0, 10);

describe('the guard of a confirmed order', { concurrency: true }, () => {
  let s: BookingStack;
  before(async () => {
    s = await startBookingStack('guard-booking');
  });
  after(async () => {
    await s?.close();
  });

  /** A real supplier booking for `orderId` (price check, then POST /booking). */
  async function supplierBooking(
    orderId: string,
    scenario: ScenarioName,
    opts: { param?: number; checkin?: string } = {},
  ): Promise<number> {
    const optionId = scenarioOptionId(scenario, opts);
    const pc = await s.hotelApi.priceCheck({ optionId });
    assert.ok(pc.booking_id);
    const r = await s.hotelApi.createBooking({
      optionId: pc.booking_id,
      body: supplierBookingBody(
        {
          orderId,
          token: pc.booking_id,
          rooms: [{ firstName: 'Ada', lastName: 'Lovelace' }],
          contact: { phonePrefix: '+39', phone: '3331234567' },
        },
        'custom_field_10',
      ),
    });
    assert.equal(r.status, 'CONFIRMED');
    return r.booking_id;
  }

  /** Books the order (one workflow) and waits for its decision: CONFIRMED, then guarded. */
  async function guarded(
    scenario: ScenarioName,
    guard: GuardPolicyInput = {},
    opts: { param?: number; checkin?: string } = {},
  ) {
    const input = bookingInput(scenario, {
      guard,
      cancellationDeadline: '30s',
      ...(opts.param !== undefined ? { param: opts.param } : {}),
      ...(opts.checkin !== undefined
        ? { optionId: scenarioOptionId(scenario, { ...opts, checkin: opts.checkin }) }
        : {}),
    });
    const { orderId } = input;
    await s.bookings.startBooking(input);
    const decided = await s.bookings.result(orderId);
    assert.equal(decided.outcome, 'CONFIRMED');
    const workflow = s.bookings.handle(orderId);
    // The guard's end, from the order's result.
    const handle = {
      result: async () => ((await workflow.result()) as OrderResult).guard!,
      cancel: () => workflow.cancel(),
      terminate: (reason: string) => workflow.terminate(reason),
      fetchHistory: () => workflow.fetchHistory(),
    };
    return { orderId, bookingId: decided.bookingId!, handle };
  }

  /** The state of an earlier version's guard (`guard-<orderId>`), read from it directly. */
  const earlierGuardState = (orderId: string) =>
    s.temporal.client.workflow.getHandle(guardWorkflowId(orderId)).query(bookingStateQuery);

  const supplier = (orderId: string) => {
    const [b] = s.sim.bookings({ customFields: { custom_field_10: orderId } });
    assert.ok(b, `a supplier booking for ${orderId}`);
    return b;
  };

  /** The client's state, checked against the guard's search attributes. */
  async function agreed(orderId: string): Promise<OrderState> {
    const st = await s.bookings.state(orderId);
    const sa = (await s.bookings.handle(orderId).describe()).typedSearchAttributes;
    assert.equal(sa.get(BookingPhaseKey), st.phase, 'BookingPhase agrees with the state');
    assert.equal(sa.get(SupplierStatusKey), st.supplierStatus, 'SupplierStatus agrees');
    assert.equal(
      sa.get(FreeCancellationUntilKey)?.toISOString(),
      st.terms?.freeCancellationUntil,
      'FreeCancellationUntil agrees',
    );
    return st;
  }

  /** Waits until the guard has read the booking's terms and is in `wanted`. */
  const phase = (orderId: string, wanted: string, read = () => s.bookings.state(orderId)) =>
    eventually(
      async () => {
        const st = await read();
        return st.phase === wanted && (st.reconfirmations?.length ?? 0) >= 1 ? st : undefined;
      },
      30_000,
      `${orderId} in ${wanted}`,
    );

  it('guards a CONFIRMED order in its own workflow: the decision returns at once, the guard holds the order after it', async () => {
    const input = bookingInput('instant', { guard: { reconfirmBefore: ['24h'] } });
    const started = await s.bookings.startBooking(input);
    const result = await s.bookings.result(input.orderId);
    assert.equal(result.outcome, 'CONFIRMED');
    // One workflow for the order: still running as its guard, no second workflow.
    const booking = await s.bookings.handle(input.orderId).describe();
    assert.equal(booking.status.name, 'RUNNING');
    await assert.rejects(
      s.temporal.client.workflow.getHandle(guardWorkflowId(input.orderId)).describe(),
      /not found/i,
    );
    const st = await phase(input.orderId, 'CONFIRMED');
    assert.equal(st.holder, 'guard');
    assert.equal(st.workflowId, started.workflowId);
    assert.equal(st.bookingId, result.bookingId);
    assert.equal(st.truth, 'CONFIRMED');
    assert.equal((await agreed(input.orderId)).terms?.source, 'supplier');
    // Cancel by order id reaches the guard; the decision stays what was decided.
    assert.equal((await s.bookings.cancelOrder(input.orderId)).kind, 'requested');
    const settled = await s.bookings.cancellationSettled(input.orderId, 100);
    assert.equal(settled.truth, 'CANCELLED');
    assert.equal(supplier(input.orderId).status, 'CANCELLED');
    assert.equal((await s.bookings.result(input.orderId)).outcome, 'CONFIRMED');
    await maybeRecordHistory(s, started.workflowId, 'instant-confirmed-guarded');
  });

  it('a booking confirmed by its polls hands the last read to its guard, which reads nothing more', async () => {
    const input = bookingInput('confirm-after-polls', {
      polling: FAST_POLLING,
      guard: { reconfirmBefore: ['24h'] },
    });
    await s.bookings.startBooking(input);
    assert.equal((await s.bookings.result(input.orderId)).outcome, 'CONFIRMED');
    const readsByBookRoom = supplier(input.orderId).retrieves;
    const st = await phase(input.orderId, 'CONFIRMED');
    assert.match(st.terms?.freeCancellationUntil ?? '', /T12:00:00\.000Z$/);
    assert.equal(st.terms?.source, 'supplier');
    assert.equal((await agreed(input.orderId)).checkIn, st.checkIn);
    assert.ok(st.checkIn, 'the stay dates came with the terms');
    assert.equal(supplier(input.orderId).retrieves, readsByBookRoom, 'no read of its own');
  });

  it('reads the terms once, knows the free-cancellation deadline, and cancels by order id before it', async () => {
    const { orderId, handle } = await guarded('instant');
    const st = await phase(orderId, 'CONFIRMED');
    // The simulator's penalty_date: noon UTC two days before check-in (30 days ahead).
    assert.match(st.terms?.freeCancellationUntil ?? '', /T12:00:00\.000Z$/);
    assert.equal(st.terms?.source, 'supplier');
    assert.equal(st.truth, 'CONFIRMED');
    assert.equal(st.holder, 'guard');
    await eventually(async () => (await agreed(orderId)).reconfirmations?.length === 1);
    assert.equal(supplier(orderId).retrieves, 1, 'one supplier read so far');

    const c = await s.bookings.cancelOrder(orderId, { reason: 'guest changed plans' });
    assert.equal(c.kind, 'requested');
    const done = (await handle.result()) as GuardResult;
    assert.equal(done.phase, 'CANCELLED');
    assert.equal(done.truth, 'CANCELLED');
    assert.equal(done.state.cancellation?.by, 'update');
    assert.equal(done.state.cancellation?.acceptPenalty, false);
    const final = await agreed(orderId);
    assert.equal(final.truth, 'CANCELLED');
    assert.equal(final.open, false);
    assert.equal(supplier(orderId).status, 'CANCELLED');
    assert.equal(supplier(orderId).cancelRequests, 1);
    // Cancelling twice is harmless and says so.
    assert.equal((await s.bookings.cancelOrder(orderId)).kind, 'nothing-to-cancel');
    await maybeRecordHistory(s, bookingWorkflowId(orderId), 'guard-cancelled-by-order');
  });

  it('after free cancellation ends, refuses a cancellation naming the deadline, and cancels with acceptPenalty', async () => {
    // Check-in tomorrow: the supplier's free cancellation ended yesterday at noon.
    const { orderId, handle } = await guarded('instant', {}, { checkin: dateIn(1) });
    const st = await phase(orderId, 'CONFIRMED');
    const deadline = st.terms?.freeCancellationUntil;
    assert.ok(deadline && Date.parse(deadline) < Date.now(), `deadline ${deadline} has passed`);

    await assert.rejects(
      s.bookings.cancelOrder(orderId, { reason: 'no penalty please' }),
      (err) => {
        assert.ok(err instanceof CancellationRefusedError, String(err));
        assert.equal(err.code, 'PENALTY');
        assert.ok(err.message.includes(`free cancellation ended at ${deadline}`), err.message);
        assert.match(err.message, /acceptPenalty: true \(CLI --accept-penalty\)/);
        return true;
      },
    );
    assert.equal(supplier(orderId).cancelRequests, 0, 'nothing sent to the supplier');
    assert.equal((await agreed(orderId)).phase, 'CONFIRMED');

    // A Temporal cancellation (the UI's button) is the same request: refused the same way.
    await handle.cancel();
    const refused = await eventually(async () => {
      const x = await s.bookings.state(orderId);
      return x.refusal ? x : undefined;
    });
    assert.match(refused.refusal!.message, /free cancellation ended at/);
    assert.equal(refused.phase, 'CONFIRMED');
    assert.equal(supplier(orderId).cancelRequests, 0);

    const c = await s.bookings.cancelOrder(orderId, { acceptPenalty: true });
    assert.equal(c.kind, 'requested');
    const done = (await handle.result()) as GuardResult;
    assert.equal(done.phase, 'CANCELLED');
    assert.equal(done.state.cancellation?.acceptPenalty, true);
    assert.equal(supplier(orderId).status, 'CANCELLED');
    assert.equal((await agreed(orderId)).truth, 'CANCELLED');
    await maybeRecordHistory(s, bookingWorkflowId(orderId), 'guard-penalty-accepted');
  });

  it('a Temporal cancellation before the deadline cancels at the supplier like the update', async () => {
    const { orderId, handle } = await guarded('instant');
    await phase(orderId, 'CONFIRMED');
    await handle.cancel();
    const done = (await handle.result()) as GuardResult;
    assert.equal(done.phase, 'CANCELLED');
    assert.equal(done.state.cancellation?.by, 'temporal');
    assert.equal(supplier(orderId).status, 'CANCELLED');
  });

  it('a 202 cancellation of a confirmed order is polled until the supplier confirms it', async () => {
    const { orderId, handle } = await guarded('cancel-202-resolves', {}, { param: 2 });
    await phase(orderId, 'CONFIRMED');
    const c = await s.bookings.cancelOrder(orderId);
    assert.equal(c.kind, 'requested');
    const settled = await s.bookings.cancellationSettled(orderId, 100);
    assert.equal(settled.truth, 'CANCELLED');
    assert.equal(settled.cancellation?.outcome, 'CANCELLED');
    const done = (await handle.result()) as GuardResult;
    assert.equal(done.phase, 'CANCELLED');
    const b = supplier(orderId);
    assert.equal(b.status, 'CANCELLED');
    assert.ok(b.cancelRequests >= 1);
    assert.equal((await agreed(orderId)).phase, 'CANCELLED');
    await maybeRecordHistory(s, bookingWorkflowId(orderId), 'guard-cancel-202-resolves');
  });

  it('flags a booking the supplier cancelled after confirmation, before check-in', async () => {
    // The second read of the booking shows CANCELLED: the guard's first read at start is fine,
    // its reconfirmation (12 s before a check-in 20 s away) finds the supplier's cancellation.
    // (Margins: on 2 busy cores a guard's start can take seconds; a point already past at the
    // start counts as covered by the first read.)
    const checkInAt = isoIn(20_000);
    const { orderId, handle } = await guarded(
      'supplier-cancels',
      { checkInAt, checkOutAt: isoIn(25_000), reconfirmBefore: ['12s'] },
      { param: 2 },
    );
    const done = (await handle.result()) as GuardResult;
    assert.equal(done.phase, 'CANCELLED_BY_SUPPLIER');
    assert.equal(done.truth, 'CANCELLED_BY_SUPPLIER');
    assert.equal(done.state.flag?.reason, 'SUPPLIER_CANCELLED');
    const flaggedAt = Date.parse(done.state.flag!.at);
    assert.ok(
      flaggedAt < Date.parse(checkInAt),
      `flagged at ${done.state.flag!.at}, before check-in ${checkInAt}`,
    );
    const st = await agreed(orderId);
    assert.equal(st.truth, 'CANCELLED_BY_SUPPLIER');
    const sa = (await s.bookings.handle(orderId).describe()).typedSearchAttributes;
    assert.equal(sa.get(ReconfirmationKey), 'FLAGGED');
    assert.equal(supplier(orderId).retrieves, 2, 'two supplier reads over its life');
    assert.equal(supplier(orderId).cancelledBy, 'supplier');
    // The operator's view finds it.
    const view = savedQueries().find((q) => q.name === 'Reconfirmation flagged')!;
    await eventually(async () => {
      for await (const wf of s.temporal.client.workflow.list({
        query: `${view.query} AND TaskQueue = '${s.taskQueue}'`,
      }))
        if (wf.workflowId === bookingWorkflowId(orderId)) return true;
      return false;
    });
    // Nothing is left to cancel, and it says why.
    assert.equal((await s.bookings.cancelOrder(orderId)).kind, 'nothing-to-cancel');
    await maybeRecordHistory(s, bookingWorkflowId(orderId), 'guard-supplier-cancels');
  });

  it("an earlier version's guard takes over bookRoom's unconfirmed cancellation: a later CANCELLED read is ours, not the supplier's", async () => {
    const orderId = newOrderId('g-pending');
    const bookingId = await supplierBooking(orderId, 'supplier-cancels', { param: 2 });
    const handle = await s.temporal.client.workflow.start(GUARD_BOOKING_WORKFLOW, {
      taskQueue: s.taskQueue,
      workflowId: guardWorkflowId(orderId),
      args: [
        {
          orderId,
          bookingId,
          cancellationPending: true,
          guard: { checkInAt: isoIn(20_000), checkOutAt: isoIn(25_000), reconfirmBefore: ['12s'] },
        } satisfies GuardInput,
      ],
    });
    const st = await phase(orderId, 'CANCELLATION_PENDING', () => earlierGuardState(orderId));
    assert.equal(st.truth, 'CANCELLATION_PENDING');
    const done = (await handle.result()) as GuardResult;
    assert.equal(done.phase, 'CANCELLED');
    assert.equal(done.state.flag, undefined);
  });

  it('autoCancelBeforePenalty cancels a provisional order before free cancellation ends', async () => {
    const freeCancellationUntil = isoIn(15_000);
    const { orderId, handle } = await guarded('instant', {
      freeCancellationUntil,
      autoCancelBeforePenalty: true,
      autoCancelMargin: '5s',
    });
    const st = await phase(orderId, 'CONFIRMED');
    assert.equal(st.terms?.freeCancellationUntil, freeCancellationUntil);
    assert.equal(st.terms?.source, 'order', "the order's deadline is the earlier one");
    assert.equal(st.autoCancel?.kept, false);
    // The saved view sees a deadline within 48 h.
    const view = savedQueries().find((q) => q.name === 'Free cancellation ends within 48 h')!;
    await eventually(async () => {
      for await (const wf of s.temporal.client.workflow.list({
        query: `${view.query} AND TaskQueue = '${s.taskQueue}'`,
      }))
        if (wf.workflowId === bookingWorkflowId(orderId)) return true;
      return false;
    });
    const done = (await handle.result()) as GuardResult;
    assert.equal(done.phase, 'CANCELLED');
    assert.equal(done.state.cancellation?.by, 'auto');
    assert.equal(done.state.cancellation?.acceptPenalty, false);
    const requestedAt = Date.parse(done.state.cancellation!.requestedAt);
    assert.ok(
      requestedAt < Date.parse(freeCancellationUntil),
      `cancelled at ${done.state.cancellation!.requestedAt}, before ${freeCancellationUntil}`,
    );
    assert.equal(supplier(orderId).status, 'CANCELLED');
    await maybeRecordHistory(s, bookingWorkflowId(orderId), 'guard-auto-cancelled');
  });

  it('keep stops autoCancelBeforePenalty: the booking stands past the deadline', async () => {
    const freeCancellationUntil = isoIn(14_000);
    const checkInAt = isoIn(18_000);
    const { orderId, handle } = await guarded('instant', {
      freeCancellationUntil,
      autoCancelBeforePenalty: true,
      autoCancelMargin: '4s',
      checkInAt,
      checkOutAt: isoIn(20_000),
      // A reconfirmation after the deadline: when it has run, the automatic one would have too.
      reconfirmBefore: ['2s'],
    });
    await phase(orderId, 'CONFIRMED');
    const kept = await s.bookings.keep(orderId, 'the order system confirmed it');
    assert.equal(kept.autoCancel?.kept, true);
    const done = (await handle.result()) as GuardResult;
    assert.equal(done.phase, 'CHECKED_OUT');
    assert.equal(done.truth, 'STAY_COMPLETED');
    assert.equal(done.state.cancellation, undefined);
    assert.equal(done.state.reconfirmations?.length, 2);
    assert.equal(supplier(orderId).cancelRequests, 0);
    assert.equal(supplier(orderId).status, 'CONFIRMED');
    // Keep without the policy is refused with a reason.
    const plain = await guarded('instant');
    await phase(plain.orderId, 'CONFIRMED');
    await assert.rejects(s.bookings.keep(plain.orderId), /without autoCancelBeforePenalty/);
    await plain.handle.terminate('test over');
    await maybeRecordHistory(s, bookingWorkflowId(orderId), 'guard-kept-checked-out');
  });

  it("a continued run (continueAsNew) of an earlier version's guard resumes from its carried state without reading the terms again", async () => {
    const orderId = newOrderId('g-carried');
    const bookingId = await supplierBooking(orderId, 'instant');
    const now = Date.now();
    const carried = {
      phase: 'CONFIRMED',
      checkIn: dateIn(30),
      checkInAt: now + 60_000,
      checkOutAt: now + 9_000,
      terms: { refundable: true, freeCancellationUntil: isoIn(50_000), source: 'supplier' },
      reconfirmAt: [now + 5_000],
      reconfirmations: [{ at: new Date(now - 1_000).toISOString(), status: 'CONFIRMED' }],
    };
    const handle = await s.temporal.client.workflow.start(GUARD_BOOKING_WORKFLOW, {
      taskQueue: s.taskQueue,
      workflowId: guardWorkflowId(orderId),
      args: [{ orderId, bookingId, carried } satisfies GuardInput],
    });
    const st = await eventually(() => earlierGuardState(orderId));
    assert.equal(st.terms?.freeCancellationUntil, carried.terms.freeCancellationUntil);
    assert.equal(st.nextReconfirmationAt, new Date(now + 5_000).toISOString());
    const done = (await handle.result()) as GuardResult;
    assert.equal(done.phase, 'CHECKED_OUT');
    assert.equal(done.state.reconfirmations?.length, 2);
    assert.equal(supplier(orderId).retrieves, 1, 'only the carried reconfirmation point read');
  });

  it("an earlier version's guard survives a worker restart: a new worker replays it and keeps its timers", async () => {
    const taskQueue = uniqueTaskQueue('guard-restart');
    const startWorker = async () => {
      // No cache: the new worker must rebuild the guard from its history.
      const worker = await stackWorker(s, taskQueue, { maxCachedWorkflows: 0 });
      return { worker, running: worker.run() };
    };
    const orderId = newOrderId('g-restart');
    const bookingId = await supplierBooking(orderId, 'instant');
    const first = await startWorker();
    const handle = await s.temporal.client.workflow.start(GUARD_BOOKING_WORKFLOW, {
      taskQueue,
      workflowId: guardWorkflowId(orderId),
      args: [
        {
          orderId,
          bookingId,
          guard: { checkInAt: isoIn(20_000), checkOutAt: isoIn(22_000), reconfirmBefore: ['8s'] },
        } satisfies GuardInput,
      ],
    });
    await phase(orderId, 'CONFIRMED', () => earlierGuardState(orderId));
    first.worker.shutdown();
    await first.running;
    const second = await startWorker();
    try {
      const done = (await handle.result()) as GuardResult;
      assert.equal(done.phase, 'CHECKED_OUT');
      assert.equal(
        done.state.reconfirmations?.length,
        2,
        'the reconfirmation ran after the restart',
      );
      assert.equal(supplier(orderId).retrieves, 2);
    } finally {
      second.worker.shutdown();
      await second.running;
    }
  });

  it('refuses a cancellation after check-in, and closes at check-out with its final truth', async () => {
    const checkInAt = isoIn(2_000);
    const { orderId, handle } = await guarded('instant', {
      checkInAt,
      checkOutAt: isoIn(12_000),
    });
    await phase(orderId, 'CONFIRMED');
    await eventually(async () => Date.now() > Date.parse(checkInAt) + 200);
    await assert.rejects(s.bookings.cancelOrder(orderId, { acceptPenalty: true }), (err) => {
      assert.ok(err instanceof CancellationRefusedError);
      assert.equal(err.code, 'CHECK_IN_PASSED');
      return true;
    });
    const done = (await handle.result()) as GuardResult;
    assert.equal(done.phase, 'CHECKED_OUT');
    assert.equal(done.truth, 'STAY_COMPLETED');
    const st = await agreed(orderId);
    assert.equal(st.open, false);
    // All reconfirmation points (72 h, 24 h) were past at the start: one read over its life.
    assert.equal(supplier(orderId).retrieves, 1);
    const history = await handle.fetchHistory();
    assert.ok((history.events?.length ?? 0) < 60, `${history.events?.length} events`);
  });
});

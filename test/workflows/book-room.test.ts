/**
 * bookRoom and cancelBooking on a real dev server, a real worker and the simulator over HTTP: one
 * test per outcome and per hard rule, each checking the result AND what the supplier received.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { WorkflowNotFoundError } from '@temporalio/client';
import { BookingInputError, type BookRoomInput, type OrderState } from '../../src/client';
import { scenarioOptionId } from '../../tools/simulator';
import {
  bookingInput,
  eventually,
  maybeRecordHistory,
  startBookingStack,
  type BookingStack,
  phaseOf as waitForPhase,
  supplierBookings as bookingsOf,
} from '../helpers/booking-stack';

describe('bookRoom', { concurrency: true }, () => {
  let s: BookingStack;
  before(async () => {
    s = await startBookingStack('book-room');
  });
  after(async () => {
    await s?.close();
  });

  const supplierBookings = (orderId: string) => bookingsOf(s, orderId);

  async function book(input: BookRoomInput, record?: string) {
    const started = await s.bookings.startBooking(input);
    assert.equal(started.status, 'STARTED');
    const result = await s.bookings.result(input.orderId);
    if (record) await maybeRecordHistory(s, started.workflowId, record);
    return result;
  }

  const phaseOf = (orderId: string, phase: string) => waitForPhase(s, orderId, phase);

  /** The base price of an option, from a price check of the same room without a scenario. */
  async function offeredPrice(optionId: string) {
    const pc = await s.hotelApi.priceCheck({ optionId });
    assert.ok(pc.price, 'price change carries the new price');
    return pc.price;
  }

  it('confirms a booking the supplier confirms at once, with exactly one supplier booking', async () => {
    const input = bookingInput('instant');
    const r = await book(input, 'instant-confirmed');
    assert.equal(r.outcome, 'CONFIRMED');
    assert.equal(r.supplierStatus, 'CONFIRMED');
    const sb = supplierBookings(input.orderId);
    assert.equal(sb.length, 1);
    assert.equal(r.bookingId, sb[0]!.bookingId);
    assert.equal((await s.bookings.state(input.orderId)).phase, 'CONFIRMED');
  });

  it('polls a PROCESSING booking until the supplier confirms it', async () => {
    const input = bookingInput('confirm-after-polls', { param: 3 });
    const r = await book(input, 'confirm-after-polls');
    assert.equal(r.outcome, 'CONFIRMED');
    const [sb] = supplierBookings(input.orderId);
    assert.ok(sb && sb.retrieves >= 3, `retrieved ${sb?.retrieves} times`);
  });

  it('ends NOT_CONFIRMED when the supplier does not confirm', async () => {
    const input = bookingInput('not-confirmed');
    const r = await book(input, 'not-confirmed');
    assert.equal(r.outcome, 'NOT_CONFIRMED');
    assert.equal(r.supplierStatus, 'NOT_CONFIRMED');
  });

  it('ends NOT_AVAILABLE at the price check and books nothing', async () => {
    const input = bookingInput('not-available');
    const r = await book(input, 'not-available');
    assert.equal(r.outcome, 'NOT_AVAILABLE');
    assert.equal(supplierBookings(input.orderId).length, 0);
  });

  it('ends NOT_AVAILABLE when the room sells out between price check and booking', async () => {
    const input = bookingInput('sold-out');
    const r = await book(input, 'sold-out');
    assert.equal(r.outcome, 'NOT_AVAILABLE');
    assert.equal(supplierBookings(input.orderId).length, 0);
  });

  it('retries a price check that fails with 5xx, then books', async () => {
    const input = bookingInput('price-check-5xx', { param: 2 });
    const r = await book(input, 'price-check-5xx');
    assert.equal(r.outcome, 'CONFIRMED');
    assert.equal(supplierBookings(input.orderId).length, 1);
  });

  it('accepts a price increase within maxIncreasePercent without asking', async () => {
    const optionId = scenarioOptionId('price-up', { param: 10 });
    const offered = await offeredPrice(optionId);
    const expected = { net: (Number(offered.net) / 1.1).toFixed(2), currency: offered.currency! };
    const input = bookingInput('price-up', {
      optionId,
      expectedPrice: expected,
      priceChangePolicy: { maxIncreasePercent: 15 },
    });
    const r = await book(input, 'price-up-within-policy');
    assert.equal(r.outcome, 'CONFIRMED');
    assert.equal(r.price?.net, offered.net);
  });

  it('accepts a price decrease without asking', async () => {
    const optionId = scenarioOptionId('price-down', { param: 10 });
    const offered = await offeredPrice(optionId);
    const expected = { net: (Number(offered.net) / 0.9).toFixed(2), currency: offered.currency! };
    const r = await book(
      bookingInput('price-down', { optionId, expectedPrice: expected }),
      'price-down',
    );
    assert.equal(r.outcome, 'CONFIRMED');
  });

  it('waits for approval of an increase beyond tolerance and books once approved', async () => {
    const optionId = scenarioOptionId('price-up', { param: 20 });
    const offered = await offeredPrice(optionId);
    const expected = { net: (Number(offered.net) / 1.2).toFixed(2), currency: offered.currency! };
    const input = bookingInput('price-up', {
      optionId,
      expectedPrice: expected,
      priceChangePolicy: { maxIncreasePercent: 5 },
    });
    const started = await s.bookings.startBooking(input);
    const waiting = await phaseOf(input.orderId, 'AWAITING_APPROVAL');
    assert.equal(waiting.pendingDecision?.status, 'PRICE CHANGE');
    assert.ok(Math.abs((waiting.pendingDecision?.increasePercent ?? 0) - 20) < 0.1);
    assert.equal(supplierBookings(input.orderId).length, 0, 'nothing booked while waiting');
    const after = await s.bookings.approvePriceChange(input.orderId, true);
    assert.notEqual(after.phase, 'AWAITING_APPROVAL');
    const r = await s.bookings.result(input.orderId);
    await maybeRecordHistory(s, started.workflowId, 'price-up-approved');
    assert.equal(r.outcome, 'CONFIRMED');
    assert.equal(supplierBookings(input.orderId).length, 1);
  });

  it('ends PRICE_REJECTED when the change is rejected, booking nothing', async () => {
    const input = bookingInput('price-up', { param: 30 });
    await s.bookings.startBooking(input);
    await phaseOf(input.orderId, 'AWAITING_APPROVAL');
    await s.bookings.approvePriceChange(input.orderId, false);
    const r = await s.bookings.result(input.orderId);
    assert.equal(r.outcome, 'PRICE_REJECTED');
    assert.equal(supplierBookings(input.orderId).length, 0);
  });

  it('ends PRICE_REJECTED when nobody decides within approvalTimeout', async () => {
    const input = bookingInput('policy-change', { priceChangePolicy: { approvalTimeout: '1s' } });
    const r = await book(input, 'policy-change-timeout');
    assert.equal(r.outcome, 'PRICE_REJECTED');
    assert.match(r.reason ?? '', /no decision/);
    assert.equal(supplierBookings(input.orderId).length, 0);
  });

  it('accepts a policy change when the policy says so', async () => {
    const input = bookingInput('policy-change', {
      priceChangePolicy: { acceptPolicyChange: true },
    });
    assert.equal((await book(input)).outcome, 'CONFIRMED');
  });

  it('asks a person about a price change when there is no expected price to compare with', async () => {
    // (A maxIncreasePercent without expectedPrice is refused at the boundary: input-boundary.test.ts.)
    const input = bookingInput('price-down');
    await s.bookings.startBooking(input);
    await phaseOf(input.orderId, 'AWAITING_APPROVAL');
    await s.bookings.cancelOrder(input.orderId, { reason: 'test over' });
    assert.equal((await s.bookings.result(input.orderId)).outcome, 'CANCELLED');
  });

  it('cancels before the supplier booking exists without ever booking', async () => {
    const input = bookingInput('price-up', { param: 40 });
    await s.bookings.startBooking(input);
    await phaseOf(input.orderId, 'AWAITING_APPROVAL');
    const { state: st } = (await s.bookings.cancelOrder(input.orderId, {
      reason: 'customer changed their mind',
    })) as { state: OrderState };
    assert.equal(st.cancelRequested, true);
    const r = await s.bookings.result(input.orderId);
    assert.equal(r.outcome, 'CANCELLED');
    assert.equal(r.bookingId, undefined);
    assert.equal(supplierBookings(input.orderId).length, 0);
  });

  it('cancels after the supplier booking exists and the outcome reflects the cancellation', async () => {
    const input = bookingInput('pending-long');
    const started = await s.bookings.startBooking(input);
    const waiting = await phaseOf(input.orderId, 'AWAITING_CONFIRMATION');
    assert.ok(waiting.bookingId);
    await s.bookings.cancelOrder(input.orderId);
    const r = await s.bookings.result(input.orderId);
    await maybeRecordHistory(s, started.workflowId, 'pending-cancelled');
    assert.equal(r.outcome, 'CANCELLED');
    assert.equal(r.cancellation?.outcome, 'CANCELLED');
    const [sb] = supplierBookings(input.orderId);
    assert.equal(sb?.status, 'CANCELLED');
    assert.equal(sb?.cancelledBy, 'client');
  });

  it('ends NOT_CONFIRMED at the confirmation deadline and cancels the pending booking', async () => {
    const input = bookingInput('pending-long', { confirmationDeadline: '1s' });
    const r = await book(input, 'confirmation-deadline');
    assert.equal(r.outcome, 'NOT_CONFIRMED');
    assert.equal(r.cancellation?.outcome, 'CANCELLED');
    assert.equal(supplierBookings(input.orderId)[0]?.status, 'CANCELLED');
  });

  it('keeps the history small however many times it polls', async () => {
    const input = bookingInput('confirm-after-polls', {
      param: 40,
      polling: { initialInterval: '10ms', maximumInterval: '30ms', backoffCoefficient: 1.2 },
    });
    const started = await s.bookings.startBooking(input);
    const r = await s.bookings.result(input.orderId);
    assert.equal(r.outcome, 'CONFIRMED');
    const [sb] = supplierBookings(input.orderId);
    assert.ok(sb && sb.retrieves >= 40, `polled ${sb?.retrieves} times`);
    const history = await s.temporal.client.workflow.getHandle(started.workflowId).fetchHistory();
    const events = history.events?.length ?? 0;
    console.log(`# history events after ${sb?.retrieves} polls: ${events}`);
    // A fixed count whatever the number of polls; the check of the order's earlier runs is part
    // of it (42 events after 40 polls).
    assert.ok(events <= 44, `history has ${events} events`);
  });

  it('starting the same order twice yields one workflow and one supplier booking', async () => {
    const input = bookingInput('confirm-after-polls', { param: 3 });
    const [a, b] = await Promise.all([
      s.bookings.startBooking(input),
      s.bookings.startBooking(input),
    ]);
    assert.deepEqual([a.status, b.status].sort(), ['ALREADY_RUNNING', 'STARTED']);
    assert.equal(a.runId, b.runId);
    assert.equal((await s.bookings.result(input.orderId)).outcome, 'CONFIRMED');
    const again = await s.bookings.startBooking(input);
    assert.equal(again.status, 'ALREADY_RUNNING', 'the confirmed booking lives on as its guard');
    assert.equal(again.runId, a.runId);
    assert.equal(supplierBookings(input.orderId).length, 1);
  });

  it('a lost booking answer waits in NEEDS_RECONCILIATION and resumes with the operator’s booking id', async () => {
    const input = bookingInput('booking-lost');
    const started = await s.bookings.startBooking(input);
    const st = await phaseOf(input.orderId, 'NEEDS_RECONCILIATION');
    assert.ok(st.lastError, 'the ambiguous failure is recorded');
    const sb = supplierBookings(input.orderId);
    assert.equal(sb.length, 1, 'the supplier committed exactly one booking, never a second');
    // Another order's booking is refused: its custom field does not carry this order id.
    const other = await book(bookingInput('instant'));
    await assert.rejects(
      s.bookings.resolveReconciliation(input.orderId, { bookingId: other.bookingId! }),
      (err: Error) =>
        /does not carry order/.test(String((err.cause as Error | undefined)?.message)),
    );
    assert.equal((await s.bookings.state(input.orderId)).phase, 'NEEDS_RECONCILIATION');
    await s.bookings.resolveReconciliation(input.orderId, { bookingId: sb[0]!.bookingId });
    const r = await s.bookings.result(input.orderId);
    await maybeRecordHistory(s, started.workflowId, 'booking-lost-resolved');
    assert.equal(r.outcome, 'CONFIRMED');
    assert.equal(r.bookingId, sb[0]!.bookingId);
    assert.equal(supplierBookings(input.orderId).length, 1);
  });

  it('a 5xx on booking is ambiguous, and an operator’s "no booking" ends it FAILED', async () => {
    const input = bookingInput('booking-5xx');
    const started = await s.bookings.startBooking(input);
    const st = await phaseOf(input.orderId, 'NEEDS_RECONCILIATION');
    assert.equal(st.lastError?.code, 'SUPPLIER_UNAVAILABLE');
    await s.bookings.resolveReconciliation(input.orderId, { noBooking: true });
    const r = await s.bookings.result(input.orderId);
    await maybeRecordHistory(s, started.workflowId, 'booking-5xx-no-booking');
    assert.equal(r.outcome, 'FAILED');
    assert.equal(supplierBookings(input.orderId).length, 0);
    // Never re-sent: the workflow scheduled the booking call once (and its policy allows 1 attempt).
    const history = await s.temporal.client.workflow.getHandle(started.workflowId).fetchHistory();
    const bookingCalls = (history.events ?? []).filter(
      (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'createBookingMarked',
    );
    assert.equal(bookingCalls.length, 1, 'never re-sent');
    assert.equal(
      bookingCalls[0]?.activityTaskScheduledEventAttributes?.retryPolicy?.maximumAttempts,
      1,
    );
  });

  it('lists bookings waiting for an operator by their BookingPhase search attribute', async () => {
    const input = bookingInput('booking-5xx');
    await s.bookings.startBooking(input);
    await phaseOf(input.orderId, 'NEEDS_RECONCILIATION');
    const found = await eventually(
      async () => {
        for await (const b of s.bookings.list(
          `BookingPhase = 'NEEDS_RECONCILIATION' AND OrderId = '${input.orderId}'`,
        )) {
          return b;
        }
        return undefined;
      },
      15_000,
      'visibility',
    );
    assert.equal(found.workflowId, `booking-${input.orderId}`);
    await s.bookings.resolveReconciliation(input.orderId, { noBooking: true });
  });
});

describe('bookRoom input validation', () => {
  let s: BookingStack;
  before(async () => {
    s = await startBookingStack('book-room-input');
  });
  after(async () => {
    await s?.close();
  });

  it('rejects invalid input before anything starts: named fields, no workflow, no supplier call', async () => {
    const before = s.sim.requests().total;
    const bad = {
      ...bookingInput('instant'),
      rooms: [{ firstName: '', lastName: 'X' }],
      contact: { phonePrefix: 'abc', phone: '1' },
      customFields: { custom_field_10: 'mine', custom_field_11: 'x' },
    };
    const err = await s.bookings.startBooking(bad as BookRoomInput).then(
      () => assert.fail('should have thrown'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof BookingInputError);
    const fields = err.issues.map((i) => i.field);
    for (const f of [
      'rooms.0.firstName',
      'contact.phonePrefix',
      'contact.phone',
      'customFields.custom_field_10',
    ]) {
      assert.ok(fields.includes(f), `${f} named in ${fields.join(', ')}`);
    }
    assert.ok(
      fields.some((f) => f.startsWith('customFields')),
      'custom_field_11 rejected',
    );
    await assert.rejects(s.bookings.handle(bad.orderId).describe(), WorkflowNotFoundError);
    assert.equal(s.sim.requests().total, before);
  });
});

describe('cancelBooking', { concurrency: true }, () => {
  let s: BookingStack;
  before(async () => {
    s = await startBookingStack('cancel-booking');
  });
  after(async () => {
    await s?.close();
  });

  async function confirmed(scenario: 'instant' | 'cancel-202-resolves' | 'cancel-202-never') {
    const input = bookingInput(scenario);
    await s.bookings.startBooking(input);
    const r = await s.bookings.result(input.orderId);
    assert.equal(r.outcome, 'CONFIRMED');
    return r.bookingId!;
  }

  it('a 204 is a cancellation', async () => {
    const bookingId = await confirmed('instant');
    const r = await s.bookings.cancelByBookingId({ bookingId });
    assert.deepEqual(r, { bookingId, outcome: 'CANCELLED' });
    assert.equal(s.sim.bookings().find((b) => b.bookingId === bookingId)?.status, 'CANCELLED');
  });

  it('a 202 is not a cancellation: it polls until the booking reads CANCELLED', async () => {
    const bookingId = await confirmed('cancel-202-resolves');
    const handle = await s.bookings.startCancellation({
      bookingId,
      polling: { initialInterval: '50ms', maximumInterval: '100ms', backoffCoefficient: 1 },
    });
    const r = await handle.result();
    await maybeRecordHistory(s, handle.workflowId, 'cancel-202-resolves');
    assert.equal(r.outcome, 'CANCELLED');
    const sb = s.sim.bookings().find((b) => b.bookingId === bookingId);
    assert.ok(sb && sb.retrieves >= 2, 'it polled retrieve');
  });

  it('a 202 that never resolves ends STILL_ACTIVE at the deadline', async () => {
    const bookingId = await confirmed('cancel-202-never');
    const handle = await s.bookings.startCancellation({
      bookingId,
      deadline: '1500ms',
      polling: { initialInterval: '100ms', maximumInterval: '200ms', backoffCoefficient: 1 },
    });
    const r = await handle.result();
    await maybeRecordHistory(s, handle.workflowId, 'cancel-202-never');
    assert.equal(r.outcome, 'STILL_ACTIVE');
    const sb = s.sim.bookings().find((b) => b.bookingId === bookingId);
    assert.equal(sb?.status, 'CONFIRMED');
    assert.ok((sb?.cancelRequests ?? 0) >= 2, 'the cancel was re-sent');
  });

  it('an unknown booking id ends NOT_FOUND', async () => {
    const r = await s.bookings.cancelByBookingId({
      bookingId: 987_654_321,
      polling: { initialInterval: '50ms', maximumInterval: '100ms', backoffCoefficient: 1 },
    });
    assert.equal(r.outcome, 'NOT_FOUND');
  });

  it('cancelling twice is harmless', async () => {
    const bookingId = await confirmed('instant');
    const first = await s.bookings.cancelByBookingId({ bookingId });
    const second = await s.bookings.cancelByBookingId({
      bookingId,
      polling: { initialInterval: '50ms', maximumInterval: '100ms', backoffCoefficient: 1 },
    });
    assert.equal(first.outcome, 'CANCELLED');
    assert.equal(second.outcome, 'CANCELLED');
  });
});

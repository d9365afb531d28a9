/**
 * Rule 8: a cancellation from Temporal (`handle.cancel()`, which is what the UI's Cancel button and
 * `temporal workflow cancel` send) means exactly what the `cancel` update means, in every phase,
 * with a cleanup that cannot itself be cancelled. An ambiguous booking still waits, open and
 * searchable, for reconciliation.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  bookingInput,
  eventually,
  maybeRecordHistory,
  startBookingStack,
  type BookingStack,
  phaseOf as waitForPhase,
  supplierBookings as bookingsOf,
} from '../helpers/booking-stack';

describe('a cancellation from Temporal is a cancellation', { concurrency: true }, () => {
  let s: BookingStack;
  before(async () => {
    s = await startBookingStack('temporal-cancel');
  });
  after(async () => {
    await s?.close();
  });

  const supplierBookings = (orderId: string) => bookingsOf(s, orderId);

  const phaseOf = (orderId: string, phase: string) => waitForPhase(s, orderId, phase);

  it('while awaiting approval: CANCELLED, nothing booked, the execution completes with its result', async () => {
    const input = bookingInput('price-up', { param: 40 });
    const started = await s.bookings.startBooking(input);
    await phaseOf(input.orderId, 'AWAITING_APPROVAL');
    await s.bookings.handle(input.orderId).cancel();
    const r = await s.bookings.result(input.orderId);
    await maybeRecordHistory(s, started.workflowId, 'temporal-cancel-awaiting-approval');
    assert.equal(r.outcome, 'CANCELLED');
    assert.equal(supplierBookings(input.orderId).length, 0);
    assert.equal((await s.bookings.handle(input.orderId).describe()).status.name, 'COMPLETED');
  });

  it('while awaiting confirmation: the pending supplier booking is cancelled, outcome CANCELLED', async () => {
    const input = bookingInput('pending-long');
    const started = await s.bookings.startBooking(input);
    await phaseOf(input.orderId, 'AWAITING_CONFIRMATION');
    await s.bookings.handle(input.orderId).cancel();
    const r = await s.bookings.result(input.orderId);
    await maybeRecordHistory(s, started.workflowId, 'temporal-cancel-awaiting-confirmation');
    assert.equal(r.outcome, 'CANCELLED');
    assert.equal(r.cancellation?.outcome, 'CANCELLED');
    const [sb] = supplierBookings(input.orderId);
    assert.equal(sb?.status, 'CANCELLED');
    assert.equal(sb?.cancelRequests, 1);
    assert.equal((await s.bookings.handle(input.orderId).describe()).status.name, 'COMPLETED');
  });

  it('during the booking call: the call is not aborted; the booking it made is cancelled', async () => {
    const input = bookingInput('booking-slow', { param: 4000 });
    const started = await s.bookings.startBooking(input);
    await phaseOf(input.orderId, 'BOOKING');
    await s.bookings.handle(input.orderId).cancel();
    const r = await s.bookings.result(input.orderId);
    await maybeRecordHistory(s, started.workflowId, 'temporal-cancel-during-booking');
    assert.equal(r.outcome, 'CANCELLED', `${r.outcome}: ${r.reason}`);
    const sb = supplierBookings(input.orderId);
    assert.equal(sb.length, 1, 'exactly one supplier booking');
    assert.equal(sb[0]?.status, 'CANCELLED');
  });

  it('an ambiguous booking still waits, open and searchable, and is cancelled once reconciled', async () => {
    const input = bookingInput('booking-lost');
    const started = await s.bookings.startBooking(input);
    await phaseOf(input.orderId, 'NEEDS_RECONCILIATION');
    await s.bookings.handle(input.orderId).cancel();
    const st = await eventually(async () => {
      const x = await s.bookings.state(input.orderId);
      return x.cancelRequested ? x : undefined;
    });
    assert.equal(st.phase, 'NEEDS_RECONCILIATION');
    assert.equal((await s.bookings.handle(input.orderId).describe()).status.name, 'RUNNING');
    await eventually(
      async () => {
        for await (const b of s.bookings.list(
          `BookingPhase = 'NEEDS_RECONCILIATION' AND ExecutionStatus = 'Running' AND OrderId = '${input.orderId}'`,
        ))
          return b;
        return undefined;
      },
      15_000,
      'the saved view finds it',
    );
    const [sb] = supplierBookings(input.orderId);
    await s.bookings.resolveReconciliation(input.orderId, { bookingId: sb!.bookingId });
    const r = await s.bookings.result(input.orderId);
    await maybeRecordHistory(s, started.workflowId, 'temporal-cancel-needs-reconciliation');
    assert.equal(r.outcome, 'CANCELLED');
    assert.equal(supplierBookings(input.orderId)[0]?.status, 'CANCELLED');
  });
});

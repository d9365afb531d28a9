/**
 * What a real supplier's edge does now and then, through a fault proxy in front of the simulator
 * (the simulator itself cannot answer a proxy's HTML page, a 404 from a lagging replica, a 401
 * during a key rotation, a 408, or a 404 on cancel): transient read failures never end a live
 * booking (rule 3), a cancellation's every step is bounded by its deadline (rule 4), and the
 * smaller outcomes of the booking call and reconciliation are the contracted ones.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { savedQueries } from '../../src/observability/saved-queries';
import { scenarioOptionId } from '../../tools/simulator';
import { startFaultProxy, type FaultProxy } from '../helpers/fault-proxy';
import {
  bookingInput,
  eventually,
  maybeRecordHistory,
  startBookingStack,
  type BookingStack,
} from '../helpers/booking-stack';

const HTML_PAGE = '<html><body><h1>502 Bad Gateway</h1></body></html>';
const FAST = { initialInterval: '50ms', maximumInterval: '200ms', backoffCoefficient: 1.5 };

async function edgeStack(name: string): Promise<{ s: BookingStack; proxy: FaultProxy }> {
  let proxy: FaultProxy | undefined;
  const s = await startBookingStack(name, {
    front: async (simUrl) => (proxy = await startFaultProxy(simUrl)),
  });
  return { s, proxy: proxy! };
}

async function phaseOf(s: BookingStack, orderId: string, phase: string) {
  return eventually(
    async () => {
      const st = await s.bookings.state(orderId);
      return st.phase === phase ? st : undefined;
    },
    30_000,
    `phase ${phase}`,
  );
}

// One booking at a time: these rules match every retrieve (the booking id is not known before
// the first one, which is the point of the replica-lag case).
describe('transient read failures do not end a live booking', { concurrency: false }, () => {
  let s: BookingStack;
  let proxy: FaultProxy;
  before(async () => {
    ({ s, proxy } = await edgeStack('transient-reads'));
  });
  after(async () => {
    await s?.close();
  });

  const supplierBookings = (orderId: string) =>
    s.sim.bookings({ customFields: { custom_field_10: orderId } });

  it('a 404 right after creation, an HTML page, a 401, a 403 and a 408 while polling: still CONFIRMED', async () => {
    const json = (status: number, detail: string) => ({
      method: 'GET',
      path: '/retrieve',
      times: 1,
      status,
      body: JSON.stringify({ detail }),
    });
    const rules = [
      proxy.add(json(404, 'Booking not found')),
      proxy.add({
        method: 'GET',
        path: '/retrieve',
        times: 1,
        status: 200,
        body: HTML_PAGE,
        contentType: 'text/html',
      }),
      proxy.add(json(401, 'Invalid API key')),
      proxy.add(json(403, 'Account inactive')),
      proxy.add(json(408, 'Request timeout')),
    ];
    try {
      const input = bookingInput('confirm-after-polls', {
        param: 3,
        polling: { initialInterval: '50ms', maximumInterval: '50ms', backoffCoefficient: 1 },
      });
      const started = await s.bookings.startBooking(input);
      const r = await s.bookings.result(input.orderId);
      await maybeRecordHistory(s, started.workflowId, 'transient-read-failures-confirmed');
      assert.equal(r.outcome, 'CONFIRMED', `${r.outcome}: ${r.reason}`);
      assert.deepEqual(
        rules.map((x) => x.answered()),
        [1, 1, 1, 1, 1],
      );
    } finally {
      for (const x of rules) x.remove();
    }
  });

  it('a booking unreadable for long shows STATUS_UNREADABLE (searchable, still running) and goes on when reads come back', async () => {
    const failing = proxy.add({
      method: 'GET',
      path: '/retrieve',
      status: 200,
      body: HTML_PAGE,
      contentType: 'text/html',
    });
    try {
      const input = bookingInput('confirm-after-polls', { param: 2, polling: FAST });
      await s.bookings.startBooking(input);
      const st = await phaseOf(s, input.orderId, 'STATUS_UNREADABLE');
      assert.equal(st.lastError?.code, 'CONTRACT');
      await eventually(
        async () => {
          for await (const b of s.bookings.list(
            `BookingPhase = 'STATUS_UNREADABLE' AND ExecutionStatus = 'Running' AND OrderId = '${input.orderId}'`,
          ))
            return b;
          return undefined;
        },
        15_000,
        'visibility',
      );
      failing.remove();
      const r = await s.bookings.result(input.orderId);
      assert.equal(r.outcome, 'CONFIRMED', `${r.outcome}: ${r.reason}`);
    } finally {
      failing.remove();
    }
  });

  it('a retrieve answer with null email and special_requests (as we sent them) is read', async () => {
    const input = bookingInput('pending-long', {
      polling: FAST,
      contact: { phonePrefix: '+39', phone: '3331234567' },
    });
    await s.bookings.startBooking(input);
    const st = await eventually(async () => {
      const x = await s.bookings.state(input.orderId);
      return x.phase === 'AWAITING_CONFIRMATION' && x.bookingId ? x : undefined;
    });
    const confirmed = proxy.add({
      method: 'GET',
      path: '/retrieve',
      bookingId: st.bookingId!,
      status: 200,
      body: JSON.stringify({
        booking_id: st.bookingId,
        status: 'CONFIRMED',
        guest_contact_number: '+39 3331234567',
        email: null,
        check_in: '2027-03-10',
        check_out: '2027-03-12',
        cancel_policy: true,
        penalty_date: null,
        price: { total_amount: '328.00', currency: 'EUR', payment_status: 'PAID' },
        package: false,
        created_at: '2026-11-23T18:00:00Z',
        custom_fields: { custom_field_10: input.orderId },
        rooms: [
          {
            room_id: 1,
            lead_name: 'Ada',
            lead_last_name: 'Lovelace',
            special_requests: null,
            room_name: 'Standard Double Room',
            bed_type: 'double',
            treatments: [],
            number_of_adults: 2,
            child_ages: [],
          },
        ],
      }),
    });
    try {
      const r = await s.bookings.result(input.orderId);
      assert.equal(r.outcome, 'CONFIRMED', `${r.outcome}: ${r.reason}`);
      assert.ok(confirmed.answered() >= 1);
    } finally {
      confirmed.remove();
    }
  });
  it('a booking call refused at connect (ECONNREFUSED) is sent again, and books once', async () => {
    const input = bookingInput('instant');
    const optionId = input.optionId;
    // Right after the price check, nothing listens: POST /booking is refused, proof it never left.
    const priced = proxy.add({
      method: 'GET',
      path: '/price-check',
      query: { option_id: optionId },
      times: 1,
      onAnswered: () => proxy.pause(),
    });
    try {
      const started = await s.bookings.startBooking(input);
      await eventually(async () => {
        const st = await s.bookings.state(input.orderId);
        return st.lastError?.code === 'CONNECTION_FAILED_BEFORE_SEND';
      });
      await proxy.resume();
      const r = await s.bookings.result(input.orderId);
      await maybeRecordHistory(s, started.workflowId, 'resend-after-refused-connection');
      assert.equal(r.outcome, 'CONFIRMED', `${r.outcome}: ${r.reason}`);
      assert.equal(priced.answered(), 1);
      assert.equal(supplierBookings(input.orderId).length, 1, 'one supplier booking');
      const { events } = await s.temporal.client.workflow
        .getHandle(started.workflowId)
        .fetchHistory();
      const sends = (events ?? []).filter(
        (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'createBookingMarked',
      );
      assert.ok(sends.length >= 2, `sent ${sends.length} times`);
    } finally {
      priced.remove();
      await proxy.resume().catch(() => undefined);
    }
  });
});

describe('edge cases of cancelling and booking', { concurrency: true }, () => {
  let s: BookingStack;
  let proxy: FaultProxy;
  before(async () => {
    ({ s, proxy } = await edgeStack('edge-cases'));
  });
  after(async () => {
    await s?.close();
  });

  const supplierBookings = (orderId: string) =>
    s.sim.bookings({ customFields: { custom_field_10: orderId } });

  async function confirmedBooking(): Promise<number> {
    const input = bookingInput('instant');
    await s.bookings.startBooking(input);
    const r = await s.bookings.result(input.orderId);
    assert.equal(r.outcome, 'CONFIRMED');
    return r.bookingId!;
  }

  it('cancelBooking: the first DELETE /cancel is retried through an outage (HTML pages), then CANCELLED', async () => {
    const bookingId = await confirmedBooking();
    const outage = proxy.add({
      method: 'DELETE',
      path: '/cancel',
      bookingId,
      times: 2,
      status: 200,
      body: HTML_PAGE,
      contentType: 'text/html',
    });
    const r = await s.bookings.cancelByBookingId({ bookingId, polling: FAST });
    assert.equal(r.outcome, 'CANCELLED');
    assert.equal(outage.answered(), 2);
  });

  it('cancelBooking: an outage longer than the deadline ends STILL_ACTIVE, saying why', async () => {
    const bookingId = await confirmedBooking();
    const outage = proxy.add({ method: 'DELETE', path: '/cancel', bookingId, status: 503 });
    try {
      const r = await s.bookings.cancelByBookingId({ bookingId, deadline: '3s', polling: FAST });
      assert.equal(r.outcome, 'STILL_ACTIVE');
      assert.match(r.reason ?? '', /3s/);
      assert.ok(outage.answered() >= 2, 'it kept trying');
    } finally {
      outage.remove();
    }
  });

  it('cancelBooking: a 404 on DELETE /cancel is NOT_FOUND', async () => {
    const bookingId = await confirmedBooking();
    const gone = proxy.add({
      method: 'DELETE',
      path: '/cancel',
      bookingId,
      status: 404,
      body: JSON.stringify({ detail: 'Booking not found' }),
    });
    try {
      const r = await s.bookings.cancelByBookingId({ bookingId, polling: FAST });
      assert.equal(r.outcome, 'NOT_FOUND');
    } finally {
      gone.remove();
    }
  });

  it('bookRoom: a cancel during the booking call followed by a 422 ends CANCELLED', async () => {
    const input = bookingInput('instant');
    const refused = proxy.add({
      method: 'POST',
      path: '/booking',
      bodyIncludes: input.orderId,
      delayMs: 4_000,
      status: 422,
      body: JSON.stringify({ detail: 'The rate is no longer available' }),
    });
    try {
      const started = await s.bookings.startBooking(input);
      await phaseOf(s, input.orderId, 'BOOKING');
      await s.bookings.cancelOrder(input.orderId, { reason: 'customer changed their mind' });
      const r = await s.bookings.result(input.orderId);
      await maybeRecordHistory(s, started.workflowId, 'cancel-during-booking-then-422');
      assert.equal(r.outcome, 'CANCELLED', `${r.outcome}: ${r.reason}`);
      assert.equal(refused.answered(), 1);
      assert.equal(supplierBookings(input.orderId).length, 0);
    } finally {
      refused.remove();
    }
  });

  it('bookRoom: a 422 whose re-check answers AVAILABLE books again once with the fresh token', async () => {
    const input = bookingInput('instant');
    const refused = proxy.add({
      method: 'POST',
      path: '/booking',
      bodyIncludes: input.orderId,
      times: 1,
      status: 422,
      body: JSON.stringify({ detail: 'Token expired' }),
    });
    try {
      const started = await s.bookings.startBooking(input);
      const r = await s.bookings.result(input.orderId);
      await maybeRecordHistory(s, started.workflowId, 'token-refresh-after-422');
      assert.equal(r.outcome, 'CONFIRMED', `${r.outcome}: ${r.reason}`);
      assert.equal(refused.answered(), 1);
      assert.equal(supplierBookings(input.orderId).length, 1);
    } finally {
      refused.remove();
    }
  });

  it('bookRoom: a 422 whose re-check answers PRICE CHANGE goes back to the price decision', async () => {
    const optionId = scenarioOptionId('instant');
    const expected = { net: '100.00', currency: 'EUR' };
    const raised = {
      net: '110.00',
      currency: 'EUR',
      without_tax: '100.00',
      taxes: '10.00',
      sales_taxes: '0.00',
    };
    // A real token for the re-check's answer: the simulator's own, from a price check.
    const second = await s.hotelApi.priceCheck({ optionId });
    const input = bookingInput('instant', {
      optionId,
      expectedPrice: expected,
      priceChangePolicy: { maxIncreasePercent: 15 },
    });
    const refused = proxy.add({
      method: 'POST',
      path: '/booking',
      bodyIncludes: input.orderId,
      times: 1,
      status: 422,
      body: JSON.stringify({ detail: 'Price changed' }),
    });
    const recheck = proxy.add({
      method: 'GET',
      path: '/price-check',
      query: { option_id: optionId },
      after: 1,
      times: 1,
      status: 200,
      body: JSON.stringify({ ...second, status: 'PRICE CHANGE', price: raised }),
    });
    try {
      await s.bookings.startBooking(input);
      const r = await s.bookings.result(input.orderId);
      assert.equal(r.outcome, 'CONFIRMED', `${r.outcome}: ${r.reason}`);
      assert.equal(r.price?.net, raised.net);
      assert.equal(refused.answered(), 1);
      assert.equal(recheck.answered(), 1);
      assert.equal(supplierBookings(input.orderId).length, 1);
    } finally {
      refused.remove();
      recheck.remove();
    }
  });

  it('bookRoom: after reconciliation the price is the one decided on, not the retrieve total', async () => {
    const optionId = scenarioOptionId('booking-lost');
    // The supplier's AVAILABLE carries no price: the decided price is the expected one.
    const input = bookingInput('booking-lost', {
      optionId,
      expectedPrice: { net: '1.00', currency: 'EUR' },
    });
    await s.bookings.startBooking(input);
    const st = await phaseOf(s, input.orderId, 'NEEDS_RECONCILIATION');
    const decided = st.price;
    assert.ok(decided, 'the price check price is known before booking');
    const [sb] = supplierBookings(input.orderId);
    await s.bookings.resolveReconciliation(input.orderId, { bookingId: sb!.bookingId });
    const r = await s.bookings.result(input.orderId);
    assert.equal(r.outcome, 'CONFIRMED');
    assert.deepEqual(r.price, decided);
  });

  it('bookRoom: a cancellation the supplier never confirms shows in the "cancellations never confirmed" view', async () => {
    const input = bookingInput('pending-long', {
      polling: FAST,
      confirmationDeadline: '4s',
      cancellationDeadline: '2s',
    });
    const started = await s.bookings.startBooking(input);
    const st = await eventually(async () => {
      const x = await s.bookings.state(input.orderId);
      return x.bookingId ? x : undefined;
    });
    const unresolved = proxy.add({
      method: 'DELETE',
      path: '/cancel',
      bookingId: st.bookingId!,
      status: 202,
      body: JSON.stringify({ status: 'OK', message: null }),
    });
    try {
      const r = await s.bookings.result(input.orderId);
      await maybeRecordHistory(s, started.workflowId, 'confirmation-deadline-cancel-still-active');
      assert.equal(r.outcome, 'NOT_CONFIRMED');
      assert.equal(r.cancellation?.outcome, 'STILL_ACTIVE');
      const view = savedQueries().find(
        (q) => q.name === 'Cancellations the supplier never confirmed',
      );
      assert.ok(view);
      const found = await eventually(
        async () => {
          for await (const b of s.bookings.list(`${view.query} AND OrderId = '${input.orderId}'`))
            return b;
          return undefined;
        },
        15_000,
        'the view lists it',
      );
      assert.equal(found.workflowId, `cancel-${st.bookingId}`);
    } finally {
      unresolved.remove();
    }
  });
});

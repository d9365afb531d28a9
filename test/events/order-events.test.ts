/**
 * Order events end to end: real bookings (dev server, the simulator's scenarios over HTTP), the
 * worker announcing each change of an order's truth, its second worker delivering them, and a
 * receiver that verifies every request with the `standardwebhooks` library. Every event type is
 * produced by a real run; order, ids, retries, the failing view and personal data are checked.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { bookingWorkflowId } from '../../src/shared/booking-values';
import { OrderEventsDeliveryKey } from '../../src/shared/search-attributes';
import {
  endpointDeliveryWorkflowId,
  endpointEventsStateQuery,
  orderEventsWorkflowId,
  type OrderEventsState,
} from '../../src/order-events/contract/delivery';
import { OrderEventType } from '../../src/order-events/contract/event';
import { createBookingCounter } from '../../src/observability/booking-counts';
import { savedQueries } from '../../src/observability/saved-queries';
import { cli, explain, json } from '../cli/cli-process';
import {
  bookingInput,
  eventually,
  maybeRecordHistory,
  startBookingStack,
  type BookingStack,
} from '../helpers/booking-stack';
import { startFaultProxy, type FaultProxy } from '../helpers/fault-proxy';
import { jsonSchemaPython, startPythonSchemaValidator } from '../helpers/json-schema';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver';

const isoIn = (ms: number) => new Date(Date.now() + ms).toISOString();
const MINUTE = 60_000;
/** What bookingInput sends as the guest: no event may carry any of it. */
const PERSONAL = ['Ada', 'Lovelace', '3331234567', 'ada@example.com'];

let s: BookingStack;
let receiver: WebhookReceiver;
let proxy: FaultProxy;

before(async () => {
  receiver = await startWebhookReceiver();
  s = await startBookingStack('order-events', {
    // Direct attempts pause half a second after a failure (30 s in production), so that a test
    // sees the endpoint tried again within its run. A failed round waits 30 s, as in production:
    // the failing order waits for `events redeliver`.
    orderEvents: { url: receiver.url, secret: receiver.secret, directPauseMs: 500 },
    front: async (simUrl) => (proxy = await startFaultProxy(simUrl)),
  });
});
after(async () => {
  await s?.close();
  await receiver?.close();
});

/** Records the order's workflow once it closed (RECORD_HISTORIES=1), for the replay test. */
async function recordClosed(orderId: string, name: string): Promise<void> {
  const handle = s.temporal.client.workflow.getHandle(bookingWorkflowId(orderId));
  await handle.result();
  await maybeRecordHistory(s, handle.workflowId, name);
}

const typesOf = (orderId: string) => receiver.events(orderId).map((e) => e.type);

/** Waits until the receiver verified `types` (in this order) for the order; returns its events. */
async function received(orderId: string, types: readonly OrderEventType[], timeoutMs = 60_000) {
  const events = await eventually(
    async () => {
      const got = receiver.events(orderId);
      return got.length >= types.length ? got : undefined;
    },
    timeoutMs,
    `${orderId}: ${types.join(', ')} (got ${typesOf(orderId).join(', ') || 'nothing'})`,
  );
  assert.deepEqual(
    events.map((e) => e.type),
    types,
  );
  const sequences = events.map((e) => e.data.sequence);
  assert.deepEqual(
    sequences,
    [...sequences].sort((a, b) => a - b),
    'arrived in sequence order',
  );
  assert.equal(new Set(events.map((e) => e.id)).size, events.length, 'one webhook-id per event');
  for (const e of events) assert.equal(e.data.orderId, orderId);
  return events;
}

describe('order events', { concurrency: true }, () => {
  it('a confirmed order: order.confirmed from bookRoom, then free cancellation ending and the stay completed from its guard', async () => {
    const input = bookingInput('instant', {
      guard: {
        freeCancellationUntil: isoIn(60 * MINUTE),
        checkInAt: isoIn(4_000),
        checkOutAt: isoIn(7_000),
      },
    });
    await s.bookings.startBooking(input);
    const r = await s.bookings.result(input.orderId);
    assert.equal(r.outcome, 'CONFIRMED');
    const events = await received(input.orderId, [
      'order.confirmed',
      'order.free_cancellation_ending',
      'order.stay_completed',
    ]);
    const [confirmed, ending, completed] = events;
    assert.equal(confirmed!.data.truth, 'CONFIRMED');
    assert.equal(confirmed!.data.bookingId, r.bookingId);
    assert.equal(confirmed!.data.supplierStatus, 'CONFIRMED');
    assert.deepEqual(confirmed!.data.price, r.price);
    assert.equal(ending!.data.truth, 'CONFIRMED');
    assert.equal(typeof ending!.data.freeCancellationUntil, 'string');
    assert.equal(completed!.data.truth, 'STAY_COMPLETED');
    assert.equal(completed!.data.phase, 'CHECKED_OUT');
  });

  it('orders that end without a booking: not confirmed, not available', async () => {
    const notConfirmed = bookingInput('not-confirmed', { param: 2 });
    const notAvailable = bookingInput('not-available');
    await s.bookings.startBooking(notConfirmed);
    await s.bookings.startBooking(notAvailable);
    const [a] = await received(notConfirmed.orderId, ['order.not_confirmed']);
    assert.equal(a!.data.truth, 'NOT_CONFIRMED');
    const [b] = await received(notAvailable.orderId, ['order.not_available']);
    assert.equal(b!.data.truth, 'NOT_AVAILABLE');
  });

  it('a price change waits for a person, then ends rejected: approval_required, price_rejected', async () => {
    const input = bookingInput('price-up', {
      param: 10,
      priceChangePolicy: { maxIncreasePercent: 0, approvalTimeout: '3s' },
    });
    await s.bookings.startBooking(input);
    const [asked, rejected] = await received(input.orderId, [
      'order.approval_required',
      'order.price_rejected',
    ]);
    assert.equal(asked!.data.truth, 'PENDING');
    assert.equal(asked!.data.phase, 'AWAITING_APPROVAL');
    assert.equal(rejected!.data.truth, 'PRICE_REJECTED');
  });

  it('an ambiguous booking call waits for an operator, whose "no booking" ends it: needs_reconciliation, failed', async () => {
    const input = bookingInput('booking-5xx');
    await s.bookings.startBooking(input);
    const [waiting] = await received(input.orderId, ['order.needs_reconciliation']);
    assert.equal(waiting!.data.phase, 'NEEDS_RECONCILIATION');
    assert.match(String(waiting!.data.reason), /SUPPLIER_UNAVAILABLE/);
    await s.bookings.resolveReconciliation(input.orderId, { noBooking: true });
    const [, failed] = await received(input.orderId, [
      'order.needs_reconciliation',
      'order.failed',
    ]);
    assert.equal(failed!.data.truth, 'FAILED');
  });

  it('cancelled by the order system after confirmation, and a cancellation the supplier never confirms', async () => {
    const ours = bookingInput('instant', { cancellationDeadline: '10s' });
    const never = bookingInput('cancel-202-never', { cancellationDeadline: '2s' });
    await s.bookings.startBooking(ours);
    await s.bookings.startBooking(never);
    await received(ours.orderId, ['order.confirmed']);
    await received(never.orderId, ['order.confirmed']);
    await s.bookings.cancelOrder(ours.orderId, { reason: 'guest changed plans' });
    await s.bookings.cancelOrder(never.orderId).catch(() => undefined);
    const [, cancelled] = await received(ours.orderId, ['order.confirmed', 'order.cancelled']);
    assert.equal(cancelled!.data.truth, 'CANCELLED');
    const [, pending] = await received(never.orderId, [
      'order.confirmed',
      'order.cancellation_pending',
    ]);
    assert.equal(pending!.data.truth, 'CANCELLATION_PENDING');
  });

  it('the supplier cancels a confirmed booking: cancelled_by_supplier', async () => {
    const input = bookingInput('supplier-cancels', { param: 1 });
    await s.bookings.startBooking(input);
    const [, gone] = await received(input.orderId, [
      'order.confirmed',
      'order.cancelled_by_supplier',
    ]);
    assert.equal(gone!.data.truth, 'CANCELLED_BY_SUPPLIER');
    assert.match(String(gone!.data.reason), /cancelled/);
  });

  it('a provisional order whose cancel moment had passed is announced, then cancelled after the stated notice unless kept', async () => {
    const guard = {
      autoCancelBeforePenalty: true,
      freeCancellationUntil: isoIn(30 * MINUTE),
      autoCancelMargin: '1h',
      autoCancelNotice: '4s',
    };
    const cancelled = bookingInput('instant', { guard });
    const kept = bookingInput('instant', { guard });
    await s.bookings.startBooking(cancelled);
    await s.bookings.startBooking(kept);
    const [, told] = await received(cancelled.orderId, [
      'order.confirmed',
      'order.free_cancellation_ending',
    ]);
    assert.match(String(told!.data.reason), /cancelled automatically at .* unless kept/);
    await received(kept.orderId, ['order.confirmed', 'order.free_cancellation_ending']);
    // The order system answers within the notice: this one stands.
    await s.bookings.keep(kept.orderId, 'the guest paid');
    const events = await received(cancelled.orderId, [
      'order.confirmed',
      'order.free_cancellation_ending',
      'order.cancelled',
    ]);
    const toldAt = Date.parse(events[1]!.timestamp);
    const cancelledAt = Date.parse(events[2]!.timestamp);
    assert.ok(
      cancelledAt - toldAt >= 4_000,
      `cancelled ${cancelledAt - toldAt} ms after the notice`,
    );
    const st = await s.bookings.state(kept.orderId);
    assert.equal(st.truth, 'CONFIRMED');
    assert.equal(st.autoCancel?.kept, true);
    assert.deepEqual(typesOf(kept.orderId), ['order.confirmed', 'order.free_cancellation_ending']);
  });

  it('an answering endpoint gets the events at once: no delivery workflow starts', async () => {
    const input = bookingInput('instant');
    await s.bookings.startBooking(input);
    await received(input.orderId, ['order.confirmed']);
    await s.bookings.cancelOrder(input.orderId);
    await received(input.orderId, ['order.confirmed', 'order.cancelled']);
    await recordClosed(input.orderId, 'confirmed-then-cancelled');
    const handle = s.temporal.client.workflow.getHandle(orderEventsWorkflowId(input.orderId));
    await assert.rejects(handle.describe(), { name: 'WorkflowNotFoundError' });
  });
});

describe('order events when the endpoint fails', () => {
  it('a hanging endpoint does not hold bookings up: each waits at most the direct attempt, and their events wait', async () => {
    const inputs = [1, 2, 3].map(() => bookingInput('instant', { guard: { enabled: false } }));
    receiver.hang(true);
    try {
      const took = await Promise.all(
        inputs.map(async (i) => {
          const t0 = Date.now();
          await s.bookings.startBooking(i);
          assert.equal((await s.bookings.result(i.orderId)).outcome, 'CONFIRMED');
          return Date.now() - t0;
        }),
      );
      // A direct attempt waits 1 s; a delivery's own POST waits 10 s and is no booking's business.
      for (const ms of took) assert.ok(ms < 5_000, `a booking took ${ms} ms`);
      assert.deepEqual(
        inputs.flatMap((i) => typesOf(i.orderId)),
        [],
      );
    } finally {
      receiver.hang(false);
    }
    // Released, the held attempts fail; the delivery workflows' next attempts deliver.
    for (const i of inputs) await received(i.orderId, ['order.confirmed']);
  });

  it('a receiver that answers 500 twice gets the same webhook-id a third time', async () => {
    receiver.fail(500, 2);
    const input = bookingInput('instant', { guard: { enabled: false } });
    await s.bookings.startBooking(input);
    const [confirmed] = await received(input.orderId, ['order.confirmed']);
    const tries = receiver.attempts().filter((a) => a.id === confirmed!.id);
    assert.deepEqual(
      tries.map((a) => a.status),
      [500, 500, 204],
    );
  });

  it('unreadable bookings: status_unreadable while booking, needs_attention after confirmation', async () => {
    const failing = proxy.add({
      method: 'GET',
      path: '/retrieve',
      status: 200,
      body: '<html>maintenance</html>',
      contentType: 'text/html',
    });
    try {
      const booking = bookingInput('confirm-after-polls', { param: 2 });
      const guarded = bookingInput('instant');
      await s.bookings.startBooking(booking);
      await s.bookings.startBooking(guarded);
      const [unreadable] = await received(booking.orderId, ['order.status_unreadable']);
      assert.equal(unreadable!.data.phase, 'STATUS_UNREADABLE');
      const [, attention] = await received(guarded.orderId, [
        'order.confirmed',
        'order.needs_attention',
      ]);
      assert.equal(attention!.data.truth, 'NEEDS_ATTENTION');
      failing.remove();
      await received(booking.orderId, ['order.status_unreadable', 'order.confirmed']);
    } finally {
      failing.remove();
    }
  });

  it('a failing endpoint shows the order FAILING; redelivery after it recovers sends the events in order', async () => {
    // The order system's handler of order.confirmed fails; it takes every other type.
    receiver.fail(503, Infinity, 'order.confirmed');
    const input = bookingInput('cancel-202-resolves', { guard: { enabled: true } });
    await s.bookings.startBooking(input);
    assert.equal((await s.bookings.result(input.orderId)).outcome, 'CONFIRMED');
    // Handed to the endpoint's delivery, which holds every order's events the endpoint did not take.
    const handle = s.temporal.client.workflow.getHandle(endpointDeliveryWorkflowId(s.taskQueue));
    const held = async () =>
      (await handle.query(endpointEventsStateQuery)).orders.find(
        (o) => o.orderId === input.orderId,
      );
    await eventually(async () => (await held())?.mark === 'FAILING', 60_000, 'the order FAILING');
    // Deliveries have their own task queue: they take no slot nor share of the supplier's cap.
    assert.equal((await handle.describe()).taskQueue, `${s.taskQueue}-order-events`);
    await eventually(
      async () =>
        (await handle.describe()).typedSearchAttributes.get(OrderEventsDeliveryKey) === 'FAILING',
      60_000,
      'the delivery marked FAILING',
    );
    // One order's broken handler is not the endpoint failing for every order: no breaker.
    assert.equal((await handle.query(endpointEventsStateQuery)).breaker.mark, 'CLOSED');
    // The operator's views: the saved view, the metric's count and `events list` show it.
    const view = savedQueries().find((q) => q.name === 'Order events failing')!;
    await eventually(
      async () => {
        for await (const wf of s.temporal.client.workflow.list({ query: view.query }))
          if (wf.workflowId === handle.workflowId) return true;
        return false;
      },
      30_000,
      'the saved view lists it',
    );
    const counter = createBookingCounter({
      maxAgeMs: 0,
      count: async (q) => (await s.temporal.client.workflow.count(q)).count,
    });
    assert.ok(
      (await counter.get()).orderEventsFailing >= 1,
      'hotel_order_events_failing counts it',
    );
    const tool = cli({ ...process.env, TEMPORAL_TASK_QUEUE: s.taskQueue });
    const listed = await tool('events', 'list', '--json');
    assert.equal(listed.code, 0, explain(listed));
    const row = json<{ orders: OrderEventsState[] }>(listed).orders.find(
      (o) => o.orderId === input.orderId,
    );
    assert.equal(row?.mark, 'FAILING');
    assert.match(String(row?.lastFailure), /HTTP 503/);
    assert.equal(row?.pending[0]?.type, 'order.confirmed');
    // order.cancelled would be taken at once (and direct attempts are allowed again: the pause
    // is long over), but it waits behind order.confirmed: in order per order.
    await s.bookings.cancelOrder(input.orderId);
    await eventually(
      async () => (await held())?.pending.length === 2,
      30_000,
      'order.cancelled queued behind order.confirmed',
    );
    assert.deepEqual(typesOf(input.orderId), []);
    receiver.fail(0, 0);
    const redelivered = await tool('events', 'redeliver', input.orderId);
    assert.equal(redelivered.code, 0, explain(redelivered));
    await received(input.orderId, ['order.confirmed', 'order.cancelled']);
    // The same webhook-id on every attempt: 503s, then the 204.
    const confirmedId = receiver.events(input.orderId)[0]!.id;
    const statuses = receiver
      .attempts()
      .filter((a) => a.id === confirmedId)
      .map((a) => a.status);
    assert.ok(statuses.length >= 3 && statuses.at(-1) === 204, statuses.join(','));
    assert.ok(
      statuses.slice(0, -1).every((st) => st === 503),
      statuses.join(','),
    );
    await recordClosed(input.orderId, 'confirmed-failing-then-cancelled');
    await eventually(
      async () =>
        (await handle.describe()).typedSearchAttributes.get(OrderEventsDeliveryKey) === 'DELIVERED',
      30_000,
      'the delivery marked DELIVERED',
    );
    // An order the endpoint's delivery does not hold: nothing to redeliver.
    const none = await tool('events', 'redeliver', input.orderId);
    assert.equal(none.code, 1, explain(none));
  });

  it('no event body carries personal data', () => {
    const bodies = receiver.bodies();
    assert.ok(bodies.length > 20, `${bodies.length} bodies`);
    for (const body of bodies) for (const p of PERSONAL) assert.ok(!body.includes(p), p);
  });

  it("every event body is valid against its type's published JSON Schema, read by Python's jsonschema", async (t) => {
    const python = jsonSchemaPython();
    if (!('python' in python)) return t.skip(python.skip);
    const schemas = await startPythonSchemaValidator(python.python);
    try {
      const types = new Set<string>();
      for (const text of receiver.bodies()) {
        const body = JSON.parse(text) as { type: string };
        types.add(body.type);
        const verdict = await schemas.validate(`orderEvent.${body.type}.schema.json`, body);
        assert.ok(verdict.valid, `${text}: ${verdict.errors.join('; ')}`);
      }
      assert.deepEqual([...types].sort(), Object.values(OrderEventType).sort(), 'every type sent');
    } finally {
      await schemas.close();
    }
  });
});

/**
 * How an order event goes, each case on a stack of its own (its own endpoint, so its own
 * endpoint delivery and breaker), with real bookings, a real worker pair and a receiver that
 * verifies every request: an answering endpoint takes every event from the booking's own
 * workflow task, no delivery workflow of any kind; a hanging one does not hold a booking's
 * decision; one failing for every order opens the breaker (deliveries pause, one order probes,
 * it closes when the endpoint answers again); a delivery holding all it may hands a new order to
 * a workflow of its own, and that order's later events follow it there.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { WorkflowNotFoundError } from '@temporalio/client';
import { bookingWorkflowId } from '../../src/shared/booking-values';
import {
  endpointDeliveryWorkflowId,
  endpointEventsStateQuery,
  orderEventsStateQuery,
  orderEventsWorkflowId,
  type EndpointDeliveryMemo,
  type OrderEventsState,
} from '../../src/order-events/contract/delivery';
import { OrderEventsDeliveryKey } from '../../src/shared/search-attributes';
import { createBookingCounter, failingOrderCount } from '../../src/observability/booking-counts';
import { cli, explain, json } from '../cli/cli-process';
import {
  bookingInput,
  eventually,
  maybeRecordHistory,
  startBookingStack,
  type BookingStack,
} from '../helpers/booking-stack';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver';

const MINUTE = 60_000;
const isoIn = (ms: number) => new Date(Date.now() + ms).toISOString();

interface Endpoint {
  readonly s: BookingStack;
  readonly receiver: WebhookReceiver;
}

/** A stack whose worker sends its order events to a receiver of its own. */
function endpointStack(
  name: string,
  settings: { maxHeldEvents?: number; firstRetryWaitMs?: number } = {},
) {
  const e = {} as { s: BookingStack; receiver: WebhookReceiver };
  before(async () => {
    e.receiver = await startWebhookReceiver();
    e.s = await startBookingStack(name, {
      orderEvents: {
        url: e.receiver.url,
        secret: e.receiver.secret,
        // 30 s each in production: a test sees pauses, retries and probes within its run.
        directPauseMs: 500,
        firstRetryWaitMs: 1_500,
        ...settings,
      },
    });
  });
  after(async () => {
    await e.s?.close();
    await e.receiver?.close();
  });
  return e as Endpoint;
}

/** Waits until the receiver verified `types`, in this order, for the order. */
async function received(e: Endpoint, orderId: string, types: readonly string[]) {
  const events = await eventually(
    async () => {
      const got = e.receiver.events(orderId);
      return got.length >= types.length ? got : undefined;
    },
    90_000,
    `${orderId}: ${types.join(', ')} (got ${e.receiver
      .events(orderId)
      .map((x) => x.type)
      .join(', ')})`,
  );
  assert.deepEqual(
    events.map((x) => x.type),
    types,
  );
  return events;
}

/** Every attempt at the order's events, by webhook-id: the statuses the receiver answered. */
function attemptsOf(e: Endpoint, orderId: string): Map<string, number[]> {
  const byId = new Map<string, number[]>();
  for (const a of e.receiver.attempts()) {
    if (!a.id?.startsWith(`evt_${orderId}_`)) continue;
    byId.set(a.id, [...(byId.get(a.id) ?? []), a.status]);
  }
  return byId;
}

const notFound = async (s: BookingStack, workflowId: string) => {
  await assert.rejects(s.temporal.client.workflow.getHandle(workflowId).describe(), (err) => {
    assert.ok(err instanceof WorkflowNotFoundError, String(err));
    return true;
  });
};

const record = (s: BookingStack, workflowId: string, name: string) =>
  maybeRecordHistory(s, workflowId, name);

describe('an endpoint that answers', () => {
  const e = endpointStack('events-answering');

  it("takes every event at once, in order, from the bookings' own workflow tasks: no delivery workflow starts", async () => {
    const guarded = bookingInput('instant', {
      guard: {
        freeCancellationUntil: isoIn(60 * MINUTE),
        // Far enough that a loaded machine still confirms before check-in: a guard that starts
        // after check-in has no free cancellation left to announce.
        checkInAt: isoIn(20_000),
        checkOutAt: isoIn(22_000),
      },
    });
    const cancelled = bookingInput('instant');
    const plain = bookingInput('not-available');
    for (const input of [guarded, cancelled, plain]) await e.s.bookings.startBooking(input);
    await received(e, cancelled.orderId, ['order.confirmed']);
    await e.s.bookings.cancelOrder(cancelled.orderId);
    await received(e, guarded.orderId, [
      'order.confirmed',
      'order.free_cancellation_ending',
      'order.stay_completed',
    ]);
    await received(e, cancelled.orderId, ['order.confirmed', 'order.cancelled']);
    await received(e, plain.orderId, ['order.not_available']);
    // Each event once, taken at its first attempt: its webhook-id, one 204.
    for (const input of [guarded, cancelled, plain]) {
      const events = e.receiver.events(input.orderId);
      const attempts = attemptsOf(e, input.orderId);
      assert.deepEqual(
        [...attempts.keys()],
        events.map((x) => x.id),
      );
      for (const statuses of attempts.values()) assert.deepEqual(statuses, [204]);
      await notFound(e.s, orderEventsWorkflowId(input.orderId));
    }
    // Nothing was handed over: the endpoint's delivery never started.
    await notFound(e.s, endpointDeliveryWorkflowId(e.s.taskQueue));
    const handle = e.s.temporal.client.workflow.getHandle(bookingWorkflowId(cancelled.orderId));
    await handle.result();
    await record(e.s, handle.workflowId, 'answering-confirmed-then-cancelled');
  });
});

describe('an endpoint that hangs', () => {
  const e = endpointStack('events-hanging');

  it("does not hold a booking's decision: orders decided while it still holds their events' requests", async () => {
    const inputs = [1, 2, 3].map(() => bookingInput('instant', { guard: { enabled: false } }));
    e.receiver.hang(true);
    try {
      for (const input of inputs) await e.s.bookings.startBooking(input);
      for (const input of inputs)
        assert.equal((await e.s.bookings.result(input.orderId)).outcome, 'CONFIRMED');
      // Decided, while the endpoint has answered nothing: it holds the direct attempts' requests.
      assert.ok(e.receiver.held().length >= 1, 'the endpoint holds requests');
      assert.deepEqual(
        inputs.flatMap((i) => e.receiver.events(i.orderId)),
        [],
      );
      const handle = e.s.temporal.client.workflow.getHandle(
        endpointDeliveryWorkflowId(e.s.taskQueue),
      );
      await eventually(
        async () => {
          const st = await handle.query(endpointEventsStateQuery);
          return inputs.every((i) => st.orders.some((o) => o.orderId === i.orderId));
        },
        30_000,
        "the events in the endpoint's delivery",
      );
      // Still decided with nothing answered.
      assert.deepEqual(
        inputs.flatMap((i) => e.receiver.events(i.orderId)),
        [],
      );
    } finally {
      e.receiver.hang(false);
    }
    // Released, the held requests fail; the delivery's next attempts deliver, same webhook-ids.
    for (const input of inputs) {
      const [event] = await received(e, input.orderId, ['order.confirmed']);
      assert.deepEqual([...attemptsOf(e, input.orderId).keys()], [event!.id]);
    }
    const held = new Set(e.receiver.held());
    assert.ok(
      inputs.some((i) => held.has(e.receiver.events(i.orderId)[0]!.id)),
      'a held request was one of these events',
    );
    await record(e.s, bookingWorkflowId(inputs[0]!.orderId), 'hanging-handed-over');
  });
});

describe('an endpoint failing for every order', () => {
  // Probes 5 s, 10 s, 20 s… after it opens: the views below are read between two probes.
  const e = endpointStack('events-breaker', { firstRetryWaitMs: 5_000 });

  it('opens the breaker: deliveries pause, one order probes it, and it closes when the endpoint answers again', async () => {
    const { s } = e;
    const handle = s.temporal.client.workflow.getHandle(endpointDeliveryWorkflowId(s.taskQueue));
    const state = () => handle.query(endpointEventsStateQuery);
    e.receiver.fail(503, Infinity);
    const inputs = [1, 2, 3, 4].map(() => bookingInput('instant', { guard: { enabled: false } }));
    for (const input of inputs) await s.bookings.startBooking(input);
    for (const input of inputs)
      assert.equal((await s.bookings.result(input.orderId)).outcome, 'CONFIRMED');
    await eventually(async () => (await state()).breaker.mark === 'OPEN', 60_000, 'breaker open');
    const opened = receiver503s(e);
    // The operator's views: the delivery FAILING, its memo, the gauge, `events list`.
    await eventually(
      async () => {
        const described = await handle.describe();
        const memo = described.memo as unknown as EndpointDeliveryMemo;
        return (
          described.typedSearchAttributes.get(OrderEventsDeliveryKey) === 'FAILING' &&
          memo.breaker === 'OPEN' &&
          memo.failingOrders === 4
        );
      },
      10_000,
      'the delivery FAILING, its memo: the breaker open, 4 orders failing',
    );
    const counter = createBookingCounter({
      maxAgeMs: 0,
      count: async (q) => (await s.temporal.client.workflow.count(q)).count,
      failingOrders: (q) => failingOrderCount(s.temporal.client.workflow.list({ query: q })),
    });
    await eventually(
      async () => (await counter.get()).orderEventsFailing >= 4,
      30_000,
      'hotel_order_events_failing counts the orders',
    );
    const tool = cli({ ...process.env, TEMPORAL_TASK_QUEUE: s.taskQueue });
    const listed = await tool('events', 'list', '--json');
    assert.equal(listed.code, 0, explain(listed));
    const rows = json<{ orders: OrderEventsState[] }>(listed).orders;
    for (const input of inputs) {
      const row = rows.find((r) => r.orderId === input.orderId);
      assert.equal(row?.mark, 'FAILING');
      assert.match(String(row?.lastFailure), /HTTP 503/);
      assert.equal(row?.pending[0]?.type, 'order.confirmed');
    }
    // Every order's next attempt is the breaker's one probe.
    const nextAttempts = new Set(
      inputs.map((i) => rows.find((r) => r.orderId === i.orderId)?.nextAttemptAt),
    );
    assert.equal(nextAttempts.size, 1, [...nextAttempts].join(', '));
    const probeAt = (await state()).breaker.nextProbeAt;

    // An order decided while it is open: the worker asks the breaker and does not try the
    // endpoint; its event waits with the others.
    const late = bookingInput('instant', { guard: { enabled: false } });
    await s.bookings.startBooking(late);
    assert.equal((await s.bookings.result(late.orderId)).outcome, 'CONFIRMED');
    await eventually(
      async () => (await state()).orders.some((o) => o.orderId === late.orderId),
      30_000,
      'the late order held',
    );
    // A probe: one order's event, while the others wait.
    await eventually(
      async () => (await state()).breaker.nextProbeAt !== probeAt,
      60_000,
      'a failed probe',
    );
    const probed = new Set(
      receiver503s(e)
        .slice(opened.length)
        .map((a) => a.id),
    );
    assert.equal(probed.size, 1, `one order probed: ${[...probed].join(', ')}`);
    assert.equal(attemptsOf(e, late.orderId).size, 0, 'the late order was not tried');

    // The endpoint answers again: the next probe gets through, the breaker closes, all go.
    e.receiver.fail(0, 0);
    for (const input of [...inputs, late]) {
      const [event] = await received(e, input.orderId, ['order.confirmed']);
      const statuses = attemptsOf(e, input.orderId).get(event!.id)!;
      assert.deepEqual(
        [...attemptsOf(e, input.orderId).keys()],
        [event!.id],
        'the same webhook-id on every attempt',
      );
      assert.equal(statuses.at(-1), 204);
    }
    await handle.result();
    const closed = await handle.describe();
    assert.equal(closed.typedSearchAttributes.get(OrderEventsDeliveryKey), 'DELIVERED');
    assert.equal((closed.memo as unknown as EndpointDeliveryMemo).breaker, 'CLOSED');
    await record(s, handle.workflowId, 'endpoint-breaker-opened-probed-closed');

    // Closed: the worker tries the endpoint directly again, and nothing is handed over.
    const after = bookingInput('instant', { guard: { enabled: false } });
    await s.bookings.startBooking(after);
    const [event] = await received(e, after.orderId, ['order.confirmed']);
    assert.deepEqual(attemptsOf(e, after.orderId).get(event!.id), [204]);
    assert.equal((await handle.describe()).runId, closed.runId, 'no delivery started again');
  });
});

/** The receiver's failed answers so far, in order. */
const receiver503s = (e: Endpoint) => e.receiver.attempts().filter((a) => a.status === 503);

describe('a delivery that holds all it may', () => {
  const e = endpointStack('events-spill', { maxHeldEvents: 1 });

  it("hands a new order to a delivery workflow of its own; the order's later events follow it there, in order", async () => {
    const { s } = e;
    // The order system's handler of order.confirmed fails; it would take every other type.
    e.receiver.fail(503, Infinity, 'order.confirmed');
    const endpoint = s.temporal.client.workflow.getHandle(endpointDeliveryWorkflowId(s.taskQueue));
    const first = bookingInput('instant', { guard: { enabled: false } });
    const second = bookingInput('instant');
    await s.bookings.startBooking(first);
    await eventually(
      async () =>
        (await endpoint.query(endpointEventsStateQuery)).orders.some(
          (o) => o.orderId === first.orderId,
        ),
      30_000,
      'the first order held',
    );
    await s.bookings.startBooking(second);
    assert.equal((await s.bookings.result(second.orderId)).outcome, 'CONFIRMED');
    const own = s.temporal.client.workflow.getHandle(orderEventsWorkflowId(second.orderId));
    await eventually(
      async () =>
        (await own.describe()).typedSearchAttributes.get(OrderEventsDeliveryKey) === 'FAILING',
      60_000,
      'the second order FAILING in a delivery of its own',
    );
    // order.cancelled would be taken at once, but it goes behind order.confirmed, there.
    await s.bookings.cancelOrder(second.orderId);
    await eventually(
      async () => (await own.query(orderEventsStateQuery)).pending.length === 2,
      30_000,
      'order.cancelled behind order.confirmed in its own delivery',
    );
    assert.deepEqual(e.receiver.events(second.orderId), []);
    const tool = cli({ ...process.env, TEMPORAL_TASK_QUEUE: s.taskQueue });
    const listed = await tool('events', 'list', '--json');
    assert.equal(listed.code, 0, explain(listed));
    const rows = json<{ orders: OrderEventsState[] }>(listed).orders;
    assert.deepEqual(
      [first.orderId, second.orderId].map((id) => rows.find((r) => r.orderId === id)?.mark),
      ['FAILING', 'FAILING'],
    );
    // Fixed: the endpoint's delivery retries the first order within seconds here; the second's
    // own delivery waits 30 s between rounds, so an operator redelivers it.
    e.receiver.fail(0, 0);
    const redelivered = await tool('events', 'redeliver', second.orderId);
    assert.equal(redelivered.code, 0, explain(redelivered));
    await received(e, first.orderId, ['order.confirmed']);
    await received(e, second.orderId, ['order.confirmed', 'order.cancelled']);
    await own.result();
    await endpoint.result();
    await record(s, own.workflowId, 'order-delivery-after-spill');
    await record(s, endpoint.workflowId, 'endpoint-delivery-spilled-an-order');
  });
});

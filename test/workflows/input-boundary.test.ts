/**
 * The input boundary as order systems in other languages meet it: JSON `null` in optional fields
 * (a plain Temporal client, as a Java or Python starter sends it, and `BookingClient`), a price
 * policy that cannot be applied, and the order-id field carried from the client to the worker.
 * A real dev server, a real worker (BOOKING_ORDER_ID_FIELD left at its default) and the simulator.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { WorkflowIdReusePolicy } from '@temporalio/client';
import {
  BookingClient,
  BookingInputError,
  validateBookRoomInput,
  type BookRoomResult,
} from '../../src/client';
import {
  BOOK_ROOM_WORKFLOW,
  CancelRequestSchema,
  ResolveReconciliationSchema,
  bookingWorkflowId,
} from '../../src/shared/booking-contract';
import { cancelUpdate } from '../../src/shared/booking-messages';
import { GuardCancelRequestSchema, KeepRequestSchema } from '../../src/shared/guard-contract';
import {
  FAST_POLLING,
  bookingInput,
  eventually,
  newOrderId,
  decisionOf,
  startBookingStack,
  type BookingStack,
} from '../helpers/booking-stack';

/** A bookRoom input the way Jackson or json.dumps serialise an object with unset fields. */
function inputWithNulls(scenario: Parameters<typeof bookingInput>[0], param?: number) {
  const base = bookingInput(scenario, param !== undefined ? { param } : {});
  return {
    orderId: base.orderId,
    optionId: base.optionId,
    rooms: [{ firstName: 'Ada', lastName: 'Lovelace', notes: null }],
    contact: { phonePrefix: '+39', phone: '3331234567', email: null },
    customFields: { custom_field_1: 'VIP', custom_field_2: null },
    expectedPrice: null,
    priceChangePolicy: {
      maxIncreasePercent: null,
      acceptPolicyChange: null,
      approvalTimeout: null,
    },
    confirmationDeadline: null,
    cancelOnConfirmationTimeout: null,
    cancellationDeadline: null,
    checkIn: null,
    polling: { ...FAST_POLLING, backoffCoefficient: null },
    orderIdField: null,
    guard: {
      enabled: null,
      freeCancellationUntil: null,
      checkInAt: null,
      checkOutAt: null,
      reconfirmBefore: null,
      autoCancelBeforePenalty: null,
      autoCancelMargin: null,
    },
  };
}

describe('bookRoom input boundary', { concurrency: true }, () => {
  let s: BookingStack;
  before(async () => {
    s = await startBookingStack('input-boundary');
  });
  after(async () => {
    await s?.close();
  });

  /** Starts bookRoom with a plain Temporal client and the raw JSON, bypassing BookingClient. */
  async function startRaw(input: { orderId: string }): Promise<BookRoomResult> {
    const handle = await s.temporal.client.workflow.start(BOOK_ROOM_WORKFLOW, {
      taskQueue: s.taskQueue,
      workflowId: bookingWorkflowId(input.orderId),
      args: [input],
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
    });
    return decisionOf(handle);
  }

  it('books an input with JSON null in every optional field, started by a plain Temporal client', async () => {
    const input = inputWithNulls('instant');
    const r = await startRaw(input);
    assert.equal(r.outcome, 'CONFIRMED', JSON.stringify(r.error));
    const [sb, ...more] = s.sim.bookings({ customFields: { custom_field_10: input.orderId } });
    assert.equal(more.length, 0);
    assert.deepEqual(sb?.customFields, {
      custom_field_1: 'VIP',
      custom_field_10: input.orderId,
    });
  });

  it('books an input with JSON null in every optional field through BookingClient', async () => {
    const input = inputWithNulls('confirm-after-polls', 2);
    const started = await s.bookings.startBooking(input);
    assert.equal(started.status, 'STARTED');
    const r = await s.bookings.result(input.orderId);
    assert.equal(r.outcome, 'CONFIRMED', JSON.stringify(r.error));
  });

  it('still refuses null where a field is required, naming it', () => {
    const input = { ...inputWithNulls('instant'), contact: { phonePrefix: '+39', phone: null } };
    assert.throws(
      () => validateBookRoomInput(input),
      (err: unknown) =>
        err instanceof BookingInputError && err.issues.some((i) => i.field === 'contact.phone'),
    );
  });

  it('takes null as absent in update arguments too (cancel reason, reconciliation)', async () => {
    assert.equal(CancelRequestSchema.parse({ reason: null }).reason, undefined);
    // The guard's messages too (cancel by order id after CONFIRMED, keep).
    const guardCancel = GuardCancelRequestSchema.parse({ reason: null, acceptPenalty: null });
    assert.equal(guardCancel.reason, undefined);
    assert.equal(guardCancel.acceptPenalty, undefined);
    assert.equal(KeepRequestSchema.parse({ reason: null }).reason, undefined);
    assert.deepEqual(ResolveReconciliationSchema.parse({ bookingId: 7, noBooking: null }), {
      bookingId: 7,
    });
    assert.deepEqual(ResolveReconciliationSchema.parse({ bookingId: null, noBooking: true }), {
      noBooking: true,
    });
    const input = bookingInput('price-up', { param: 40 });
    await s.bookings.startBooking(input);
    await eventually(
      async () => (await s.bookings.state(input.orderId)).phase === 'AWAITING_APPROVAL',
      30_000,
      'AWAITING_APPROVAL',
    );
    const handle = s.bookings.handle(input.orderId);
    const state = await handle.executeUpdate(cancelUpdate, {
      args: [{ reason: null } as unknown as { reason?: string }],
    });
    assert.equal(state.cancelRequested, true);
    const r = await s.bookings.result(input.orderId);
    assert.equal(r.outcome, 'CANCELLED');
    assert.doesNotMatch(r.reason ?? '', /null/);
  });

  it('refuses maxIncreasePercent without expectedPrice at the client, naming both fields, nothing started', async () => {
    const input = bookingInput('price-up', {
      param: 10,
      priceChangePolicy: { maxIncreasePercent: 15 },
    });
    const err = await s.bookings.startBooking(input).then(
      () => assert.fail('accepted'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof BookingInputError, String(err));
    assert.match(err.message, /priceChangePolicy\.maxIncreasePercent/);
    assert.match(err.message, /expectedPrice/);
    await assert.rejects(s.bookings.handle(input.orderId).describe(), /not found/i);
    // The rule is about a policy that cannot be applied: 0 (the default) asks a person as before.
    assert.doesNotThrow(() =>
      validateBookRoomInput({ ...input, priceChangePolicy: { maxIncreasePercent: 0 } }),
    );
  });

  it('fails a direct start with maxIncreasePercent and no expectedPrice, before any supplier call', async () => {
    const input = bookingInput('price-up', {
      param: 10,
      priceChangePolicy: { maxIncreasePercent: 15 },
    });
    const r = await startRaw(input);
    assert.equal(r.outcome, 'FAILED');
    assert.equal(r.error?.code, 'INVALID_INPUT');
    assert.match(r.error?.message ?? '', /priceChangePolicy\.maxIncreasePercent.*expectedPrice/);
    const history = await s.temporal.client.workflow
      .getHandle(bookingWorkflowId(input.orderId))
      .fetchHistory();
    const scheduled = (history.events ?? []).filter((e) => e.activityTaskScheduledEventAttributes);
    assert.equal(scheduled.length, 0, 'no activity, so no supplier call');
  });

  it("fails a direct start the workflow's fast path cannot vouch for with zod's own field and message (zod loaded in the sandbox)", async () => {
    // Workflows check inputs without zod and require the schema only for inputs like this.
    const input = {
      ...bookingInput('instant'),
      rooms: [{ firstName: 'Ada', lastName: 'Lovelace', notes: 'x'.repeat(1001) }],
      contact: { phonePrefix: '+39', phone: null },
    };
    const r = await startRaw(input);
    assert.equal(r.outcome, 'FAILED');
    assert.equal(r.error?.code, 'INVALID_INPUT');
    assert.equal(
      r.error?.message,
      'rooms.0.notes: at most 1000 characters; contact.phone: Invalid input: expected string, received null',
    );
    const history = await s.temporal.client.workflow
      .getHandle(bookingWorkflowId(input.orderId))
      .fetchHistory();
    const scheduled = (history.events ?? []).filter((e) => e.activityTaskScheduledEventAttributes);
    assert.equal(scheduled.length, 0, 'no activity, so no supplier call');
  });

  it('books with the order-id field the client validated against, whatever the worker is configured with', async () => {
    // The worker runs with the default custom_field_10; this client is configured with another.
    const client = new BookingClient({
      client: s.temporal.client,
      taskQueue: s.taskQueue,
      orderIdField: 'custom_field_3',
    });
    const input = bookingInput('instant', { customFields: { custom_field_10: 'free here' } });
    await client.startBooking(input);
    const r = await client.result(input.orderId);
    assert.equal(r.outcome, 'CONFIRMED', JSON.stringify(r.error));
    const [sb] = s.sim.bookings({ customFields: { custom_field_3: input.orderId } });
    assert.ok(sb, 'the supplier booking carries the order id in custom_field_3');
    assert.equal(r.bookingId, sb.bookingId);
    assert.deepEqual(sb.customFields, {
      custom_field_10: 'free here',
      custom_field_3: input.orderId,
    });
    // And the client reserves that field, not the worker's.
    const taken = bookingInput('instant', {
      orderId: newOrderId('reserved'),
      customFields: { custom_field_3: 'mine' },
    });
    await assert.rejects(
      client.startBooking(taken),
      (e: unknown) =>
        e instanceof BookingInputError &&
        e.issues.some((i) => i.field === 'customFields.custom_field_3'),
    );
  });
});

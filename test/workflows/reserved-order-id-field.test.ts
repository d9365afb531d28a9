/**
 * The order id's custom field, on direct starts (a plain Temporal client, as an order system in
 * another language starts bookRoom): the workflow holds them to the published contract, which
 * reserves `orderIdField`, else `custom_field_10` (src/workflows/input-verdicts.ts). Runs recorded
 * before this rule replay as they ran (test/workflows/replay.test.ts).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { WorkflowIdReusePolicy } from '@temporalio/client';
import {
  BOOK_ROOM_WORKFLOW,
  bookingWorkflowId,
  type BookRoomInput,
  type BookRoomResult,
} from '../../src/shared/booking-contract';
import {
  bookingInput,
  decisionOf,
  startBookingStack,
  type BookingStack,
} from '../helpers/booking-stack';

describe('the order id travels in its own custom field, whoever starts the workflow', () => {
  let s: BookingStack;
  before(async () => {
    s = await startBookingStack('reserved-order-id-field');
  });
  after(async () => {
    await s?.close();
  });

  async function startRaw(input: BookRoomInput): Promise<BookRoomResult> {
    const handle = await s.temporal.client.workflow.start(BOOK_ROOM_WORKFLOW, {
      taskQueue: s.taskQueue,
      workflowId: bookingWorkflowId(input.orderId),
      args: [input],
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
    });
    return decisionOf(handle);
  }

  it('a direct start that sets custom_field_10 without naming orderIdField is refused before anything reaches the supplier', async () => {
    const input = bookingInput('instant', {
      customFields: { custom_field_1: 'VIP', custom_field_10: 'the caller' },
      guard: { enabled: false },
    });
    const before = s.sim.requests().total;
    const r = await startRaw(input);
    assert.equal(r.outcome, 'FAILED');
    assert.equal(r.error?.code, 'INVALID_INPUT');
    assert.match(r.error?.message ?? '', /customFields\.custom_field_10: reserved/);
    assert.equal(s.sim.requests().total, before, 'no supplier call');
  });

  it('so is a start that sets the field it names, and one that names another may set custom_field_10', async () => {
    const named = bookingInput('instant', {
      orderIdField: 'custom_field_7',
      customFields: { custom_field_7: 'the caller' },
      guard: { enabled: false },
    });
    const refused = await startRaw(named);
    assert.equal(refused.error?.code, 'INVALID_INPUT');
    assert.match(refused.error?.message ?? '', /customFields\.custom_field_7: reserved/);

    const other = bookingInput('instant', {
      orderIdField: 'custom_field_7',
      customFields: { custom_field_10: 'the caller' },
      guard: { enabled: false },
    });
    const booked = await startRaw(other);
    assert.equal(booked.outcome, 'CONFIRMED', JSON.stringify(booked.error));
    const [sb] = s.sim.bookings({ customFields: { custom_field_7: other.orderId } });
    assert.deepEqual(sb?.customFields, {
      custom_field_10: 'the caller',
      custom_field_7: other.orderId,
    });
  });
});

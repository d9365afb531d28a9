/**
 * "Start and learn the decision" is one mechanism: `startBooking` sends the `outcome` update with
 * the start, under an id of its own that the run's details (user metadata) name; `result` waits for that update, in
 * whichever process asks. A real dev server, worker and simulator.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BookingClient } from '../../src/client';
import { startUpdateOf } from '../../src/client/order-decisions';
import { bookingInput, startBookingStack, type BookingStack } from '../helpers/booking-stack';

describe('start and learn the decision', () => {
  let s: BookingStack;
  before(async () => {
    s = await startBookingStack('start-and-decision');
  });
  after(async () => {
    await s?.close();
  });

  /** How many updates the run has accepted (each one a workflow task's work in its history). */
  async function acceptedUpdates(orderId: string): Promise<number> {
    const history = await s.bookings.handle(orderId).fetchHistory();
    return (history.events ?? []).filter((e) => e.workflowExecutionUpdateAcceptedEventAttributes)
      .length;
  }

  it("another process's result waits for the start's update and sends none of its own", async () => {
    const input = bookingInput('instant');
    const started = await s.bookings.startBooking(input);
    assert.equal(started.status, 'STARTED');
    const run = await s.bookings.handle(input.orderId).describe();
    assert.match(String(await startUpdateOf(run)), /^outcome-[0-9a-f-]{36}$/);
    assert.deepEqual(
      run.memo ?? {},
      {},
      'no memo: a list by a client without every key decodes none',
    );

    // A client that did not start it, as another process of the order system would be.
    const elsewhere = new BookingClient({ client: s.temporal.client, taskQueue: s.taskQueue });
    assert.equal((await elsewhere.result(input.orderId)).outcome, 'CONFIRMED');
    assert.equal((await s.bookings.result(input.orderId)).outcome, 'CONFIRMED');
    assert.equal((await s.bookings.result(started)).outcome, 'CONFIRMED', 'without a read first');
    assert.equal(started.outcomeUpdateId, await startUpdateOf(run));
    assert.equal(await acceptedUpdates(input.orderId), 1, 'only the start carried an update');
  });

  it('a second start of the order is told the run exists, and learns the same decision', async () => {
    const input = bookingInput('instant');
    assert.equal((await s.bookings.startBooking(input)).status, 'STARTED');
    const again = await s.bookings.startBooking(input);
    assert.equal(again.status, 'ALREADY_RUNNING');
    assert.equal((await s.bookings.result(input.orderId)).outcome, 'CONFIRMED');
    assert.equal(await acceptedUpdates(input.orderId), 1);
  });
});

/**
 * The drills' audit names what it saw: an order whose workflow exists but could not be read (a
 * decided booking whose state query no worker answers) is stuck and unreadable, with the error,
 * never "lost: no workflow"; an order with no workflow at all is lost.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { randomUUID } from 'node:crypto';
import { BOOK_ROOM_AND_GUARD_WORKFLOW, bookingWorkflowId } from '../../src/shared/booking-contract';
import { BookingOutcomeKey } from '../../src/shared/search-attributes';
import { audit, waitForSettled } from '../../tools/chaos/audit';
import { buildSimulator } from '../../tools/simulator/server';
import { connectTemporal, uniqueTaskQueue, type TestTemporal } from '../helpers/temporal';

describe('drill audit', () => {
  let temporal: TestTemporal;
  before(async () => {
    temporal = await connectTemporal();
  });
  after(async () => {
    await temporal.close();
  });

  it('an order that cannot be read is stuck with its error; one with no workflow is lost', async () => {
    const decided = `audit-${randomUUID().slice(0, 8)}`;
    const absent = `audit-${randomUUID().slice(0, 8)}`;
    // Decided (its outcome in visibility) and running, on a task queue no worker polls: the
    // audit's state query cannot be answered.
    const handle = await temporal.client.workflow.start(BOOK_ROOM_AND_GUARD_WORKFLOW, {
      taskQueue: uniqueTaskQueue('audit'),
      workflowId: bookingWorkflowId(decided),
      args: [{}],
      typedSearchAttributes: [{ key: BookingOutcomeKey, value: 'CONFIRMED' }],
    });
    try {
      const statuses = await waitForSettled(temporal.client, [decided, absent], {
        timeoutMs: 0,
      });
      const report = audit(statuses, [decided, absent], buildSimulator());
      assert.deepEqual(report.lost, [{ orderId: absent, why: 'no workflow' }]);
      assert.equal(report.stuck.length, 1);
      assert.equal(report.stuck[0]!.orderId, decided);
      assert.match(String(report.stuck[0]!.phase), /^unreadable: .+/);
    } finally {
      await handle.terminate('test over');
    }
  });
});

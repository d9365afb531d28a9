/**
 * Replay safety: histories recorded from every scenario (test/histories/, written by
 * `RECORD_HISTORIES=1 npm test -- test/workflows/book-room.test.ts`) are replayed against today's
 * workflow code. A change that would break running workflows fails here; guard it with `patched()`.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Worker } from '@temporalio/worker';
import { temporal } from '@temporalio/proto';
import { loadWorkflowBundle } from '../../src/workflow-bundle';
import { testDataConverter } from '../helpers/temporal';

const dir = join(__dirname, '..', 'histories');
/**
 * The shape every history of the folder was recorded with (its subfolder; the first, none);
 * `order-events`: bookRoomAndGuard with order events on (`RECORD_HISTORIES=1
 * RECORD_HISTORIES_INTO=order-events npm test -- test/events/order-events.test.ts`),
 * `before-direct-delivery-*` from when every event was queued in a delivery workflow, and
 * `deliver-order-events-*`, an order's own delivery workflow from when every order had one;
 * `one-order-one-workflow`: today's bookRoom (`RECORD_HISTORIES=1
 * RECORD_HISTORIES_INTO=one-order-one-workflow npm test -- <the files of test/workflows/ that
 * record>`); `order-events-per-endpoint`: bookRoom handing events to the endpoint's delivery, that
 * delivery (its breaker, its overflow) and an order's own delivery after it (`RECORD_HISTORIES=1
 * RECORD_HISTORIES_INTO=order-events-per-endpoint npm test -- test/events/order-events.test.ts
 * test/events/order-event-delivery.test.ts`); `booking-call-marked`: today's bookRoom, its booking
 * call marked (`RECORD_HISTORIES=1 RECORD_HISTORIES_INTO=booking-call-marked npm test --
 * test/workflows/book-room.test.ts test/workflows/booking-call-mark.test.ts`);
 * `one-decision-per-order`: today's bookRoom answering a decided order, reached by the order id
 * alone, cancelling a closed order's booking (`RECORD_HISTORIES=1
 * RECORD_HISTORIES_INTO=one-decision-per-order npm test --
 * test/workflows/one-decision-per-order.test.ts`). Which code replays
 * each shape:
 * docs/earlier-versions.md.
 */
const SHAPES = [
  '',
  'one-task-per-step',
  'book-room-and-guard',
  'order-events',
  'one-order-one-workflow',
  'order-events-per-endpoint',
  'booking-call-marked',
  'one-decision-per-order',
] as const;
const inShape = (shape: string) =>
  readdirSync(join(dir, shape))
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => (shape ? `${shape}/${f}` : f));
const files = SHAPES.flatMap(inShape);

function loadHistory(file: string): temporal.api.history.v1.IHistory {
  // fetchHistory() JSON: enums and int64s as numbers/strings, bytes as base64; fromObject reads it.
  return temporal.api.history.v1.History.fromObject(
    JSON.parse(readFileSync(join(dir, file), 'utf8')),
  );
}

/**
 * The workflow id the history ran under (newer servers record it in the started event): the
 * workflow checks it (rule 1: the order's id), so a replay under another id would take another
 * path. Older recordings have none; their file name stands in.
 */
function recordedWorkflowId(file: string): string {
  const started = loadHistory(file).events?.[0]?.workflowExecutionStartedEventAttributes;
  return started?.workflowId || file.replace(/\.json$/, '').replace('/', '-');
}

describe('recorded histories replay against the current workflow code', () => {
  it('has a history for every recorded scenario', () => {
    assert.ok(files.length >= 12, `only ${files.length} histories in ${dir}`);
    // The shape of one workflow task per step: each path of it, recorded.
    for (const name of [
      'instant-confirmed-guarded',
      'confirm-after-polls',
      'price-up-approved',
      'temporal-cancel-during-booking',
      'guard-cancelled-by-order',
    ]) {
      assert.ok(
        files.includes(`one-task-per-step/${name}.json`),
        `no history one-task-per-step/${name}.json`,
      );
    }
    // bookRoomAndGuard (the booking, then its guard in the same workflow): each path recorded.
    for (const name of [
      'instant-confirmed',
      'confirm-after-polls',
      'book-and-guard-cancelled',
      'book-and-guard-not-available',
      'temporal-cancel-during-booking',
      'booking-lost-resolved',
    ]) {
      assert.ok(
        files.includes(`book-room-and-guard/${name}.json`),
        `no history book-room-and-guard/${name}.json`,
      );
    }
    // One order, one workflow, in every phase: before the decision, pending, confirmed and
    // guarded, cancelled (before and after the decision, by update and from Temporal), reconciled,
    // checked out.
    for (const name of [
      'price-up-approved',
      'temporal-cancel-awaiting-approval',
      'confirm-after-polls',
      'pending-cancelled',
      'instant-confirmed-guarded',
      'guard-cancelled-by-order',
      'temporal-cancel-awaiting-confirmation',
      'booking-lost-resolved',
      'temporal-cancel-needs-reconciliation',
      'guard-kept-checked-out',
      'guard-supplier-cancels',
      'guard-auto-cancelled',
      // A direct start with a value in the order id's field and no orderIdField, recorded before
      // the workflow refused it at its input check (input-verdicts.ts): it replays as it ran.
      'reserved-field-refused-at-booking-before-contract-rules',
    ]) {
      assert.ok(
        files.includes(`one-order-one-workflow/${name}.json`),
        `no history one-order-one-workflow/${name}.json`,
      );
    }
    // Order events: announced by the order's workflow, delivered at once or queued, recorded
    // before and after events could be delivered at once.
    for (const name of ['confirmed-then-cancelled', 'confirmed-failing-then-cancelled']) {
      for (const recorded of [name, `before-direct-delivery-${name}`])
        assert.ok(
          files.includes(`order-events/${recorded}.json`),
          `no history order-events/${recorded}.json`,
        );
    }
    // Order events per endpoint: a booking whose events went at once, one whose event was
    // handed over (the endpoint failing, hanging), the endpoint's delivery with its breaker
    // opened, probed and closed, and with an order handed to its own delivery; that delivery, and
    // one recorded when every order had its own.
    for (const name of [
      'answering-confirmed-then-cancelled',
      'confirmed-failing-then-cancelled',
      'hanging-handed-over',
      'endpoint-breaker-opened-probed-closed',
      'endpoint-delivery-spilled-an-order',
      'order-delivery-after-spill',
    ]) {
      assert.ok(
        files.includes(`order-events-per-endpoint/${name}.json`),
        `no history order-events-per-endpoint/${name}.json`,
      );
    }
    assert.ok(files.includes('order-events/deliver-order-events-failing-redelivered.json'));
    // The marked booking call: a call lost before its mark sent again, a marked one reconciled.
    for (const name of [
      'instant-confirmed',
      'unmarked-timeout-sent-again',
      'marked-timeout-reconciled',
    ]) {
      assert.ok(
        files.includes(`booking-call-marked/${name}.json`),
        `no history booking-call-marked/${name}.json`,
      );
    }
    // The paths of the cancellation refactor: deadlines both ways, a Temporal cancellation at each phase, a cancel
    // during the booking call, a token refresh, a re-send after a refused connection.
    for (const name of [
      'cancel-202-never-next-retry-past-deadline',
      'confirmation-deadline-next-retry-past',
      'confirmation-deadline-cancel-still-active',
      'temporal-cancel-awaiting-approval',
      'temporal-cancel-during-booking',
      'temporal-cancel-awaiting-confirmation',
      'temporal-cancel-needs-reconciliation',
      'cancel-during-booking-then-422',
      'token-refresh-after-422',
      'resend-after-refused-connection',
      'transient-read-failures-confirmed',
    ]) {
      assert.ok(files.includes(`${name}.json`), `no recorded history ${name}.json`);
    }
  });

  it('replays every history without a nondeterminism error', async () => {
    const workflowBundle = await loadWorkflowBundle();
    const histories = files.map((file) => ({
      workflowId: recordedWorkflowId(file),
      history: loadHistory(file),
    }));
    const failures: string[] = [];
    let replayed = 0;
    for await (const result of Worker.runReplayHistories(
      { workflowBundle, dataConverter: testDataConverter, replayName: 'recorded-scenarios' },
      histories,
    )) {
      replayed += 1;
      if (result.error) failures.push(`${result.workflowId}: ${String(result.error)}`);
    }
    assert.equal(replayed, files.length);
    assert.deepEqual(failures, []);
  });
});

/**
 * Rule 1 whoever starts the workflow (docs/hard-rules.md): an order system that is not ours starts
 * `booking-<orderId>` again with a plain Temporal client and Temporal's defaults (id-reuse policy
 * `ALLOW_DUPLICATE`), or with a conflict policy that terminates the running run, after the first
 * run ended in each outcome. The supplier (the simulator over HTTP) must hold at most one booking
 * for the order, and a run that finds the order decided answers that decision and calls no supplier.
 */
import assert from 'node:assert/strict';
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/client';
import { outcomeUpdate } from '../../src/shared/booking-messages';
import { after, before, describe, it } from 'node:test';
import { WorkflowIdConflictPolicy, WorkflowIdReusePolicy } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import type { BookRoomInput, BookRoomResult } from '../../src/client';
import { BOOKING_COUNT_QUERIES } from '../../src/observability/booking-counts';
import { BOOK_ROOM_WORKFLOW, bookingWorkflowId } from '../../src/shared/booking-values';
import { TemporalNamespaceDivisionKey } from '../../src/shared/search-attributes';
import {
  bookingInput,
  eventually,
  startBookingStack,
  type BookingStack,
  phaseOf as waitForPhase,
  supplierBookings as bookingsOf,
} from '../helpers/booking-stack';
import { testDataConverter } from '../helpers/temporal';

describe(
  'a second run of an order, started by a plain Temporal client',
  { concurrency: true },
  () => {
    let s: BookingStack;
    before(async () => {
      s = await startBookingStack('earlier-runs');
    });
    after(async () => {
      await s?.close();
    });

    const supplierBookings = (orderId: string) => bookingsOf(s, orderId);

    /** Starts `bookRoom` the way any SDK does by default: no id-reuse policy of ours. */
    function startPlain(
      input: BookRoomInput,
      options: { conflict?: WorkflowIdConflictPolicy; workflowId?: string; division?: string } = {},
    ) {
      return s.temporal.client.workflow.start(BOOK_ROOM_WORKFLOW, {
        taskQueue: s.taskQueue,
        workflowId: options.workflowId ?? bookingWorkflowId(input.orderId),
        args: [input],
        workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
        ...(options.conflict !== undefined ? { workflowIdConflictPolicy: options.conflict } : {}),
        ...(options.division !== undefined
          ? {
              typedSearchAttributes: [
                { key: TemporalNamespaceDivisionKey, value: options.division },
              ],
            }
          : {}),
      });
    }

    /**
     * The run's decision (its `outcome` update; a CONFIRMED order lives on, guarded), or a failure
     * naming its phase when it has none within `ms` (a run that books an order a second time may
     * wait for a confirmation for days).
     */
    async function ended(
      handle: { result(): Promise<unknown>; workflowId: string; firstExecutionRunId?: string },
      ms = 30_000,
    ): Promise<BookRoomResult> {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          const why = (what: string) =>
            reject(new Error(`the run has not ended after ${ms} ms: ${what}`));
          s.temporal.client.workflow
            .getHandle(handle.workflowId)
            .query<{ phase: string }>('bookingState')
            .then(
              (st) => why(st.phase),
              (err: unknown) => why(String(err)),
            );
        }, ms);
      });
      try {
        const decision = s.temporal.client.workflow
          .getHandle(handle.workflowId, handle.firstExecutionRunId)
          .executeUpdate(outcomeUpdate)
          .catch(async (err: unknown) => {
            // Closed before it was asked: its result holds the decision.
            if (err instanceof WorkflowNotFoundError)
              return (await handle.result()) as BookRoomResult;
            throw err;
          });
        return (await Promise.race([decision, late])) as BookRoomResult;
      } finally {
        clearTimeout(timer);
      }
    }

    async function runPlain(input: BookRoomInput): Promise<BookRoomResult> {
      return ended(await startPlain(input));
    }

    /** The activity types a run scheduled on the task queue (its supplier calls). */
    /** The supplier calls a run made: its scheduled activities, and its local price check. */
    async function scheduled(workflowId: string, runId: string): Promise<string[]> {
      const history = await s.temporal.client.workflow.getHandle(workflowId, runId).fetchHistory();
      const calls: string[] = [];
      for (const e of history.events ?? []) {
        if (e.eventType === temporal.api.enums.v1.EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED)
          calls.push(e.activityTaskScheduledEventAttributes?.activityType?.name ?? '?');
        else if (await localPriceChecked(e)) calls.push('priceCheck');
      }
      return calls;
    }

    /** Whether the event is the first task's local activity, and it read the price. */
    async function localPriceChecked(e: temporal.api.history.v1.IHistoryEvent): Promise<boolean> {
      const details = e.markerRecordedEventAttributes?.details;
      const data = details?.data?.payloads?.[0]?.data;
      const result = details?.result?.payloads?.[0];
      if (!data || !result) return false;
      const marker = JSON.parse(Buffer.from(data).toString()) as { activity_type?: string };
      if (marker.activity_type !== 'earlierRunsAndPriceCheck') return false;
      const [plain] = await testDataConverter.payloadCodecs![0]!.decode([result]);
      return (
        defaultPayloadConverter.fromPayload<{ price: { kind: string } }>(plain!).price.kind ===
        'read'
      );
    }

    const phaseOf = (orderId: string, phase: string) => waitForPhase(s, orderId, phase);

    it('after CONFIRMED (guarded): the id is taken; a conflict policy that terminates hands the booking to the new run, which books nothing', async () => {
      const input = bookingInput('instant');
      const firstRun = await startPlain(input);
      const first = await ended(firstRun);
      assert.equal(first.outcome, 'CONFIRMED');
      // The order's workflow still runs (its guard): a start with the SDK's defaults is refused.
      await assert.rejects(startPlain(input), WorkflowExecutionAlreadyStartedError);
      const second = await startPlain(input, {
        conflict: WorkflowIdConflictPolicy.TERMINATE_EXISTING,
      });
      const r = await ended(second);
      assert.equal(r.outcome, 'CONFIRMED');
      assert.equal(r.bookingId, first.bookingId);
      assert.equal(supplierBookings(input.orderId).length, 1);
      // The new run guards the order; no booking call (the read of the booking it takes over is
      // its supplier call).
      const calls = await scheduled(second.workflowId, second.firstExecutionRunId);
      assert.ok(!calls.some((c) => c.startsWith('createBooking')), calls.join());
      assert.equal((await s.bookings.state(input.orderId)).holder, 'guard');
      // Cancelled by order id in one call: the one booking is cancelled.
      assert.equal((await s.bookings.cancelOrder(input.orderId)).kind, 'requested');
      assert.equal((await s.bookings.cancellationSettled(input.orderId, 100)).truth, 'CANCELLED');
      assert.equal(supplierBookings(input.orderId)[0]?.status, 'CANCELLED');
    });

    it('after CANCELLED with a supplier booking: reports the cancelled booking and books nothing', async () => {
      const input = bookingInput('pending-long');
      await startPlain(input);
      await phaseOf(input.orderId, 'AWAITING_CONFIRMATION');
      await s.bookings.cancelOrder(input.orderId, { reason: 'customer changed plans' });
      const first = await s.bookings.result(input.orderId);
      assert.equal(first.outcome, 'CANCELLED');
      const second = await startPlain(input);
      const r = await ended(second);
      assert.equal(r.outcome, 'CANCELLED');
      assert.equal(r.bookingId, first.bookingId);
      assert.equal(supplierBookings(input.orderId).length, 1);
      // One decision per order id: it answers the earlier decision and calls no supplier.
      assert.deepEqual(await scheduled(second.workflowId, second.firstExecutionRunId), []);
    });

    it('after a reconciliation resolved with the booking, then cancelled: a new run reports it and books nothing', async () => {
      const input = bookingInput('booking-lost');
      await startPlain(input);
      await phaseOf(input.orderId, 'NEEDS_RECONCILIATION');
      const [sb] = supplierBookings(input.orderId);
      assert.ok(sb);
      await s.bookings.resolveReconciliation(input.orderId, { bookingId: sb.bookingId });
      assert.equal((await s.bookings.result(input.orderId)).outcome, 'CONFIRMED');
      await s.bookings.cancelOrder(input.orderId);
      await s.bookings.handle(input.orderId).result();
      const r = await runPlain(input);
      assert.equal(r.outcome, 'CANCELLED', 'the order as its guard ended it');
      assert.equal(r.bookingId, sb.bookingId);
      assert.match(r.reason ?? '', /decided by an earlier run/);
      assert.equal(supplierBookings(input.orderId).length, 1);
    });

    it('a run stopped in NEEDS_RECONCILIATION (ambiguous call): the new run waits for an operator, never books', async () => {
      const input = bookingInput('booking-lost');
      await startPlain(input);
      await phaseOf(input.orderId, 'NEEDS_RECONCILIATION');
      // A caller's conflict policy ends the waiting run and starts a new one.
      const second = await startPlain(input, {
        conflict: WorkflowIdConflictPolicy.TERMINATE_EXISTING,
      });
      const st = await phaseOf(input.orderId, 'NEEDS_RECONCILIATION');
      assert.equal(st.lastError?.code, 'EARLIER_RUN_UNRESOLVED');
      const [sb, ...more] = supplierBookings(input.orderId);
      assert.ok(sb);
      assert.equal(more.length, 0, 'the supplier holds one booking for the order');
      // One decision per order id: it answers the earlier decision and calls no supplier.
      assert.deepEqual(await scheduled(second.workflowId, second.firstExecutionRunId), []);
      await s.bookings.resolveReconciliation(input.orderId, { bookingId: sb.bookingId });
      const r = await ended(second);
      assert.equal(r.outcome, 'CONFIRMED');
      assert.equal(r.bookingId, sb.bookingId);
      assert.equal(supplierBookings(input.orderId).length, 1);
    });

    it('a run stopped while its booking call was in flight: the new run waits for an operator', async () => {
      const input = bookingInput('booking-slow', { param: 3_000 });
      await startPlain(input);
      await phaseOf(input.orderId, 'BOOKING');
      const second = await startPlain(input, {
        conflict: WorkflowIdConflictPolicy.TERMINATE_EXISTING,
      });
      const st = await phaseOf(input.orderId, 'NEEDS_RECONCILIATION');
      assert.equal(st.lastError?.code, 'EARLIER_RUN_UNRESOLVED');
      assert.match(st.lastError?.message ?? '', /BOOKING/);
      // The first run's call still completes at the supplier: one booking, never a second.
      const [sb] = await eventually(
        async () => supplierBookings(input.orderId).length > 0 && supplierBookings(input.orderId),
      );
      // One decision per order id: it answers the earlier decision and calls no supplier.
      assert.deepEqual(await scheduled(second.workflowId, second.firstExecutionRunId), []);
      await s.bookings.resolveReconciliation(input.orderId, { bookingId: sb!.bookingId });
      assert.equal((await ended(second)).outcome, 'CONFIRMED');
      assert.equal(supplierBookings(input.orderId).length, 1);
    });

    // A division (any starter may set one) hides a run from Temporal's default list: not from this.
    for (const division of [undefined, 'orders']) {
      const started = division ? ` (started with the namespace division '${division}')` : '';
      it(`a run stopped while awaiting confirmation${started}: the new run follows its booking to CONFIRMED`, async () => {
        const input = bookingInput('confirm-after-polls', { param: 8 });
        await startPlain(input, division ? { division } : {});
        const waiting = await phaseOf(input.orderId, 'AWAITING_CONFIRMATION');
        const second = await startPlain(input, {
          conflict: WorkflowIdConflictPolicy.TERMINATE_EXISTING,
        });
        const r = await ended(second);
        assert.equal(r.outcome, 'CONFIRMED');
        assert.equal(r.bookingId, waiting.bookingId);
        assert.equal(supplierBookings(input.orderId).length, 1);
        // It follows the earlier booking: no booking call, and no price check (an order with
        // earlier runs is not priced before they are read).
        const calls = await scheduled(second.workflowId, second.firstExecutionRunId);
        assert.deepEqual(calls, ['verifyBookingForOrder', 'awaitFinalBookingStatus']);
      });
    }

    it('a run started with a namespace division shows in the operators’ list and the gauges’ count', async () => {
      const input = bookingInput('booking-lost');
      const run = await startPlain(input, { division: 'orders' });
      await phaseOf(input.orderId, 'NEEDS_RECONCILIATION');
      const mine = ` AND WorkflowId = '${run.workflowId}'`;
      const listed = async () => {
        const ids: string[] = [];
        for await (const b of s.bookings.list(`BookingPhase = 'NEEDS_RECONCILIATION'${mine}`))
          ids.push(b.workflowId);
        return ids;
      };
      assert.deepEqual(
        await eventually(
          async () => {
            const ids = await listed();
            return ids.length > 0 && ids;
          },
          30_000,
          'the run in the operators’ list',
        ),
        [run.workflowId],
      );
      const counted = await s.temporal.client.workflow.count(
        `${BOOKING_COUNT_QUERIES.waiting('NEEDS_RECONCILIATION')}${mine}`,
      );
      assert.equal(counted.count, 1);
      await run.terminate('the test is done with it');
    });

    it('after NOT_AVAILABLE (no booking): the new run answers NOT_AVAILABLE and calls no supplier', async () => {
      const input = bookingInput('not-available');
      assert.equal((await runPlain(input)).outcome, 'NOT_AVAILABLE');
      const second = await startPlain(input);
      const r = await ended(second);
      assert.equal(r.outcome, 'NOT_AVAILABLE');
      assert.match(r.reason ?? '', /decided by an earlier run/);
      assert.deepEqual(await scheduled(second.workflowId, second.firstExecutionRunId), []);
      assert.equal(supplierBookings(input.orderId).length, 0);
    });

    it('after an operator said no booking exists (FAILED): the new run answers FAILED and books nothing', async () => {
      const input = bookingInput('booking-5xx');
      await startPlain(input);
      await phaseOf(input.orderId, 'NEEDS_RECONCILIATION');
      await s.bookings.resolveReconciliation(input.orderId, { noBooking: true });
      assert.equal((await s.bookings.result(input.orderId)).outcome, 'FAILED');
      const second = await startPlain(input);
      assert.equal((await ended(second)).outcome, 'FAILED');
      assert.deepEqual(await scheduled(second.workflowId, second.firstExecutionRunId), []);
    });

    it('refuses a workflow id that is not the order’s, before any supplier call', async () => {
      const input = bookingInput('instant');
      const handle = await startPlain(input, { workflowId: `booking-other-${input.orderId}` });
      const r = await ended(handle);
      assert.equal(r.outcome, 'FAILED');
      assert.equal(r.error?.code, 'INVALID_INPUT');
      assert.match(r.error?.message ?? '', /workflow id: must be 'booking-/);
      assert.equal(supplierBookings(input.orderId).length, 0);
    });
  },
);

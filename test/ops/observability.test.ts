/**
 * The production worker process, observed from outside: its `/metrics` after real bookings, and
 * its stdout at LOG_LEVEL=debug (every line JSON, ids as fields, no secret, no guest data).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BOOK_ROOM_WORKFLOW } from '../../src/shared/booking-contract';
import { bookingInput, eventually } from '../helpers/booking-stack';
import {
  OPS_COMPANY,
  startOpsStack,
  startWorkerProcess,
  type OpsStack,
  type WorkerProcess,
} from './worker-process';

/** A second supplier account, whose secret must never reach a log line either. */
const EU = { key: 'eu-ops-key', secret: 'eu-SENTINEL-secret-4b1d7e' } as const;

/** Personal data that must never reach a log line. */
const GUEST = { firstName: 'Zebulon', lastName: 'Quillfeather' };
const CONTACT = { phonePrefix: '+39', phone: '3339876543', email: 'zebulon.q@example.org' };

/** The value of the first sample of `name` whose labels include all of `labels`. */
function sample(text: string, name: string, labels: Record<string, string> = {}) {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`))) {
      return Number(line.slice(line.lastIndexOf(' ') + 1));
    }
  }
  return undefined;
}

describe('worker observability', () => {
  let stack: OpsStack;
  let worker: WorkerProcess;
  const orders: { orderId: string; outcome: string }[] = [];

  before(async () => {
    stack = await startOpsStack('observability', {
      simulator: {
        companies: [
          { ...OPS_COMPANY, active: true },
          { ...EU, active: true },
        ],
      },
    });
    worker = await startWorkerProcess({
      taskQueue: stack.taskQueue,
      env: {
        ...stack.workerEnv,
        LOG_LEVEL: 'debug',
        SUPPLIER_ACCOUNTS: JSON.stringify([{ id: 'eu', baseUrl: stack.simUrl, ...EU }]),
      },
    });
    await worker.waitReady();
    const inputs = [
      bookingInput('confirm-after-polls', { param: 1, rooms: [GUEST], contact: CONTACT }),
      bookingInput('not-available', { rooms: [GUEST], contact: CONTACT }),
      bookingInput('instant', { rooms: [GUEST], contact: CONTACT, supplier: 'eu' }),
    ];
    await Promise.all(inputs.map((i) => stack.bookings.startBooking(i)));
    for (const input of inputs) {
      const r = await stack.bookings.result(input.orderId);
      orders.push({ orderId: input.orderId, outcome: r.outcome });
    }
  });

  after(async () => {
    worker?.child.kill('SIGTERM');
    await worker?.exited;
    await stack?.close();
  });

  it('the metrics endpoint exposes the named series after a booking', async () => {
    assert.deepEqual(
      orders.map((o) => o.outcome),
      ['CONFIRMED', 'NOT_AVAILABLE', 'CONFIRMED'],
    );
    const text = await eventually(
      async () => {
        const res = await fetch(worker.metricsUrl);
        const body = await res.text();
        // Visibility is eventually consistent: wait until it counts our bookings.
        return (sample(body, 'hotel_bookings_by_outcome', { outcome: 'CONFIRMED' }) ?? 0) >= 1 &&
          (sample(body, 'hotel_bookings_by_outcome', { outcome: 'NOT_AVAILABLE' }) ?? 0) >= 1
          ? body
          : undefined;
      },
      20_000,
      'booking outcomes in /metrics',
    );

    // Supplier calls by account, endpoint and status, and their latency.
    assert.ok(
      (sample(text, 'hotel_supplier_calls_total', { endpoint: '/booking', code: 'OK' }) ?? 0) >= 1,
    );
    for (const account of ['default', 'eu'])
      assert.ok(
        (sample(text, 'hotel_supplier_calls_total', { account, endpoint: '/booking' }) ?? 0) >= 1,
        `account ${account}'s booking call is counted under its name`,
      );
    // Both of the default account's orders were priced; each account's label set is its own line,
    // in the order the accounts' first calls ended, so the account is named.
    const priceChecks = { account: 'default', endpoint: '/price-check', code: 'OK' };
    assert.ok((sample(text, 'hotel_supplier_calls_total', priceChecks) ?? 0) >= 2);
    assert.ok((sample(text, 'hotel_supplier_calls_total', { endpoint: '/retrieve' }) ?? 0) >= 1);
    assert.ok(
      (sample(text, 'hotel_supplier_call_duration_seconds_count', { endpoint: '/booking' }) ?? 0) >=
        1,
    );
    // Polls ran (confirm-after-polls), so their lateness was observed.
    assert.ok((sample(text, 'hotel_poll_lateness_seconds_count') ?? 0) >= 1);
    // Fleet-wide booking gauges.
    for (const phase of ['NEEDS_RECONCILIATION', 'AWAITING_APPROVAL']) {
      assert.notEqual(sample(text, 'hotel_bookings_waiting', { phase }), undefined, phase);
    }
    assert.notEqual(
      sample(text, 'hotel_cancellations_by_outcome', { outcome: 'CANCELLED' }),
      undefined,
    );
    assert.equal(sample(text, 'hotel_booking_count_errors_total'), 0);
    // The SDK's series, on the same endpoint, for this worker's task queue.
    assert.equal(sample(text, 'hotel_sdk_metrics_up'), 1);
    assert.ok(
      text.split('\n').some((l) => l.startsWith('temporal_') && l.includes(stack.taskQueue)),
      "the SDK's metrics are served",
    );
    assert.notEqual(sample(text, 'process_cpu_seconds_total'), undefined);
    // Merging two expositions must not declare a metric twice.
    const types = text.split('\n').filter((l) => l.startsWith('# TYPE '));
    assert.equal(new Set(types.map((l) => l.split(' ')[2])).size, types.length);
  });

  it('logs are JSON and contain no secret and no guest name', async () => {
    // Stopped first: the runtime buffers log lines briefly, and the drain flushes them all.
    worker.child.kill('SIGTERM');
    assert.equal(await worker.exited, 0);
    const { stdout, stderr } = worker.output();
    const lines = worker.logLines(); // throws if a line is not JSON
    assert.ok(lines.length > 20, `debug logging wrote ${lines.length} lines`);
    for (const line of lines) {
      assert.equal(typeof line.level, 'string');
      assert.equal(typeof line.time, 'string');
      assert.equal(typeof line.msg, 'string');
    }
    for (const text of [stdout, stderr]) {
      for (const forbidden of [
        OPS_COMPANY.secret,
        EU.secret,
        GUEST.firstName,
        GUEST.lastName,
        CONTACT.email,
        CONTACT.phone,
      ]) {
        assert.ok(!text.includes(forbidden), `"${forbidden}" is not logged`);
      }
    }
    // The SDK's workflow and activity metadata are fields of the line, not text in the message.
    const [confirmed] = orders;
    const workflowId = `booking-${confirmed!.orderId}`;
    const ofBooking = lines.filter((l) => l.workflowId === workflowId);
    assert.ok(
      // (A confirmed booking's workflow lives on as its guard: no "Workflow completed" yet.)
      ofBooking.some((l) => l.workflowType === BOOK_ROOM_WORKFLOW && typeof l.runId === 'string'),
      'workflow log lines carry workflowId and workflowType',
    );
    assert.ok(
      ofBooking.some(
        (l) =>
          l.msg === 'Activity completed' &&
          l.activityType === 'createBookingMarked' &&
          typeof l.activityId === 'string' &&
          typeof l.workflowRunId === 'string',
      ),
      'activity log lines carry workflowId, activityType and activityId',
    );
    assert.ok(lines.some((l) => l.msg === 'worker polling' && l.taskQueue === stack.taskQueue));
  });
});

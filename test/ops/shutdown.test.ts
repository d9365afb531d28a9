/**
 * Graceful shutdown of the production worker process: SIGTERM while supplier calls are in flight
 * drains (readiness 503, running activities finish), exits 0, and a new worker finishes every
 * booking with its expected outcome and exactly one supplier booking per booked order.
 */
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { after, describe, it } from 'node:test';
import type { ScenarioName } from '../../tools/simulator/scenarios';
import { bookingInput, eventually } from '../helpers/booking-stack';
import {
  startOpsStack,
  startWorkerProcess,
  type OpsStack,
  type WorkerProcess,
} from './worker-process';

/** Scenario, its parameter, the outcome it must end with, and supplier bookings it makes. */
const CASES: {
  scenario: ScenarioName;
  param?: number;
  outcome: string;
  supplierBookings: number;
}[] = [
  { scenario: 'instant', outcome: 'CONFIRMED', supplierBookings: 1 },
  { scenario: 'instant', outcome: 'CONFIRMED', supplierBookings: 1 },
  { scenario: 'instant', outcome: 'CONFIRMED', supplierBookings: 1 },
  { scenario: 'confirm-after-polls', param: 2, outcome: 'CONFIRMED', supplierBookings: 1 },
  { scenario: 'confirm-after-polls', param: 2, outcome: 'CONFIRMED', supplierBookings: 1 },
  { scenario: 'confirm-after-polls', param: 2, outcome: 'CONFIRMED', supplierBookings: 1 },
  { scenario: 'not-available', outcome: 'NOT_AVAILABLE', supplierBookings: 0 },
  { scenario: 'not-available', outcome: 'NOT_AVAILABLE', supplierBookings: 0 },
];

/** Every supplier answer takes this long, so calls are in flight when the signal arrives. */
const LATENCY_MS = 900;

describe('graceful shutdown', () => {
  let stack: OpsStack | undefined;
  const workers: WorkerProcess[] = [];
  after(async () => {
    for (const w of workers) w.kill();
    await stack?.close();
  });

  it('SIGTERM during work loses nothing: the worker drains, exits 0, and a new worker finishes every booking once', async () => {
    stack = await startOpsStack('shutdown', { simulator: { latency: { fixedMs: LATENCY_MS } } });
    const s = stack;
    const env = { ...s.workerEnv, SHUTDOWN_GRACE_MS: '20000' };
    const first = await startWorkerProcess({ taskQueue: s.taskQueue, env });
    workers.push(first);
    await first.waitReady();

    const inputs = CASES.map((c) =>
      bookingInput(c.scenario, c.param !== undefined ? { param: c.param } : {}),
    );
    // SIGTERM as soon as a booking call has reached the supplier (its answer takes LATENCY_MS).
    // Counted from before the starts: a start returns once the worker has taken its first task,
    // and the booking call follows at once.
    let bookingCallsArrived = 0;
    s.sim.server.on('request', (req: IncomingMessage) => {
      const path = (req.url ?? '').split('?')[0]!;
      if (req.method === 'POST' && path.endsWith('/booking')) bookingCallsArrived += 1;
    });
    await Promise.all(inputs.map((i) => s.bookings.startBooking(i)));
    await eventually(async () => bookingCallsArrived >= 1, 30_000, 'a booking call in flight');
    first.child.kill('SIGTERM');
    const readiness: number[] = [];
    const reasons: string[] = [];
    let exited = false;
    void first.exited.then(() => (exited = true));
    while (!exited) {
      try {
        const res = await fetch(`${first.healthUrl}/readyz`);
        readiness.push(res.status);
        reasons.push(((await res.json()) as { reason?: string }).reason ?? '');
      } catch {
        // The server closes as the process ends.
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.equal(await first.exited, 0, 'the drained worker exits 0');
    assert.ok(readiness.includes(503), `readiness said 503 while draining (saw ${readiness})`);
    // (A probe may beat the signal to the process; after the first 503, never ready again.)
    assert.ok(!readiness.slice(readiness.indexOf(503)).includes(200), `${readiness}`);
    assert.ok(
      reasons.some((r) => r.startsWith('draining')),
      reasons.join('; '),
    );
    const logs = first.logLines();
    const drain = logs.find((l) => l.msg?.toString().startsWith('shutdown requested'));
    assert.ok(drain, 'the drain is logged');
    assert.ok(Number(drain.activitiesInFlight) >= 1, 'activities were running at SIGTERM');
    assert.ok(logs.some((l) => l.msg === 'worker stopped' && l.exitCode === 0));

    const second = await startWorkerProcess({ taskQueue: s.taskQueue, env });
    workers.push(second);
    await second.waitReady();
    const results = await Promise.all(inputs.map((i) => s.bookings.result(i.orderId)));
    results.forEach((r, i) => {
      const c = CASES[i]!;
      assert.equal(r.outcome, c.outcome, `${c.scenario} → ${c.outcome}`);
      const supplier = s.sim.bookings({ customFields: { custom_field_10: inputs[i]!.orderId } });
      assert.equal(supplier.length, c.supplierBookings, `${inputs[i]!.orderId}: supplier bookings`);
      if (c.supplierBookings === 1) assert.equal(r.bookingId, supplier[0]!.bookingId);
    });

    second.child.kill('SIGTERM');
    assert.equal(await second.exited, 0);
  });
});

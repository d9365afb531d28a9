/**
 * A routine deploy must not create reconciliation work: SIGTERM while a `POST /booking` answers
 * slower than the old fixed 30 s grace. The production worker (a subprocess, default
 * configuration: grace derived from the 120 s booking timeout) lets the call finish, logs the
 * order → supplier booking id, exits 0, and a second worker finishes the booking CONFIRMED.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { bookingInput, eventually } from '../helpers/booking-stack';
import {
  startOpsStack,
  startWorkerProcess,
  type OpsStack,
  type WorkerProcess,
} from './worker-process';

/** The supplier's answer to the booking: longer than the 30 s grace that used to apply. */
const SLOW_ANSWER_MS = 35_000;

describe('deploy during a slow booking call', () => {
  let stack: OpsStack | undefined;
  const workers: WorkerProcess[] = [];
  after(async () => {
    for (const w of workers) w.kill();
    await stack?.close();
  });

  it('SIGTERM during a booking call slower than 30 s: the call finishes, the order ends CONFIRMED with no reconciliation', async () => {
    stack = await startOpsStack('deploy-drain');
    const s = stack;
    const first = await startWorkerProcess({ taskQueue: s.taskQueue, env: s.workerEnv });
    workers.push(first);
    await first.waitReady();

    const input = bookingInput('booking-slow', { param: SLOW_ANSWER_MS });
    await s.bookings.startBooking(input);
    // booking-slow commits at once and holds its 201: the call is in flight from here on.
    const [booked] = await eventually(
      async () => {
        const b = s.sim.bookings({ customFields: { custom_field_10: input.orderId } });
        return b.length > 0 ? b : undefined;
      },
      30_000,
      'the booking call to reach the supplier',
    );
    const signalledAt = Date.now();
    first.child.kill('SIGTERM');
    // The next worker of the rollout, on the same task queue.
    const second = await startWorkerProcess({ taskQueue: s.taskQueue, env: s.workerEnv });
    workers.push(second);

    assert.equal(await first.exited, 0, 'the draining worker exits 0 after the call returned');
    assert.ok(
      Date.now() - signalledAt >= 30_000,
      'the drain outlasted the old 30 s grace (the call was answered, not cut off)',
    );
    const state = await eventually(
      async () => {
        const st = await s.bookings.state(input.orderId);
        return st.phase === 'CONFIRMED' || st.phase === 'NEEDS_RECONCILIATION' ? st : undefined;
      },
      60_000,
      'the booking to be decided',
    );
    assert.equal(state.phase, 'CONFIRMED', JSON.stringify(state.lastError));
    const r = await s.bookings.result(input.orderId);
    assert.equal(r.outcome, 'CONFIRMED');
    assert.equal(r.bookingId, booked!.bookingId);
    assert.equal(r.error, undefined);
    assert.equal(s.sim.bookings({ customFields: { custom_field_10: input.orderId } }).length, 1);
    const logs = first.logLines();
    const drain = logs.find((l) => l.msg?.toString().startsWith('shutdown requested'));
    assert.ok(drain, 'the drain is logged');
    assert.equal(drain.shutdownGraceMs, 135_000, 'grace = booking timeout 120 s + 15 s');
    const returned = logs.find((l) => l.msg?.toString().startsWith('booking call returned'));
    assert.ok(returned, 'the booking call that returned is logged');
    assert.equal(
      returned.msg,
      `booking call returned: order ${input.orderId} → supplier booking ${booked!.bookingId} (CONFIRMED)`,
    );
    assert.doesNotMatch(JSON.stringify(returned), /Lovelace|3331234567|ada@example/);

    const history = await s.temporal.client.workflow
      .getHandle(`booking-${input.orderId}`)
      .fetchHistory();
    const text = JSON.stringify(history, (_k, v: unknown) =>
      v instanceof Uint8Array ? Buffer.from(v).toString('latin1') : v,
    );
    assert.doesNotMatch(text, /NEEDS_RECONCILIATION/, 'the booking never waited for an operator');

    second.child.kill('SIGTERM');
    assert.equal(await second.exited, 0);
  });
});

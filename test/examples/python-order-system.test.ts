/**
 * An order system that is not ours: examples/python-order-system, a Python program on PyPI's
 * `temporalio` with its own payload codec, drives a real worker (encryption on) on the run's dev
 * server and the simulator over HTTP, by the names of the published contract only.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { scenarioOptionId } from '../../tools/simulator/scenarios';
import { startBookingStack, type BookingStack } from '../helpers/booking-stack';
import { pythonEnv } from '../helpers/python';
import { temporalAddress } from '../helpers/temporal';

const EXAMPLE = join(__dirname, '..', '..', 'examples', 'python-order-system');
const env = pythonEnv(join(EXAMPLE, 'requirements.txt'));

function run(python: string, args: string[], extraEnv: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(python, [join(EXAMPLE, 'order_system.py'), ...args], {
      env: { ...process.env, ...extraEnv },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(out);
      else reject(new Error(`order_system.py exited ${code}:\n${err.slice(-3000)}`));
    });
  });
}

/** The venv's python (the suite is skipped when there is none). */
const python = () => ('python' in env ? env.python : '');

describe('a Python order system (examples/python-order-system)', { skip: env.skip }, () => {
  let s: BookingStack;
  before(async () => {
    s = await startBookingStack('python-order-system', {
      accounts: [{ id: 'eu', key: 'eu-key', secret: 'eu-secret-0123456789' }],
    });
  });
  after(async () => {
    await s?.close();
  });

  it('books and learns the decision in one call, reads, starts the same order again, cancels by order id before and after the decision, and is refused, by the contract alone', async () => {
    const prefix = `py-${process.pid}-${Date.now().toString(36)}`;
    const out = await run(
      python(),
      [
        '--instant-option',
        scenarioOptionId('instant'),
        '--pending-option',
        scenarioOptionId('pending-long'),
        '--not-available-option',
        scenarioOptionId('not-available'),
        '--not-confirmed-option',
        scenarioOptionId('not-confirmed'),
        '--policy-change-option',
        scenarioOptionId('policy-change'),
        '--order-prefix',
        prefix,
        '--supplier-account',
        'eu',
      ],
      { TEMPORAL_ADDRESS: temporalAddress(), TEMPORAL_TASK_QUEUE: s.taskQueue },
    );
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the program's own JSON
    const r = JSON.parse(out) as Record<string, any>;
    const bookings = (order: string) =>
      s.sim.bookings({ customFields: { custom_field_10: order } });

    // 1. Booked, the decision learned in one call: it and the state match the JSON Schemas.
    assert.deepEqual(r.inputProblems, []);
    assert.equal(r.booked.decision.outcome, 'CONFIRMED');
    assert.deepEqual(r.booked.decisionProblems, []);
    assert.deepEqual(r.booked.stateProblems, []);
    assert.equal(r.booked.state.phase, 'CONFIRMED');
    assert.equal(r.booked.state.workflowId, `booking-${prefix}-a`);
    const [booked, ...more] = bookings(`${prefix}-a`);
    assert.ok(booked);
    assert.equal(more.length, 0);
    assert.equal(r.booked.decision.bookingId, booked.bookingId);
    assert.deepEqual(booked.customFields, {
      custom_field_1: 'python-order-system',
      custom_field_10: `${prefix}-a`,
    });

    // 2. The same order again with the SDK's defaults: the id is taken, nothing is booked.
    assert.equal(r.startedAgain.alreadyStarted, true);
    assert.equal(r.startedAgain.decision.bookingId, booked.bookingId);

    // 3. A pending order cancelled by order id; a refused update says why.
    assert.match(r.refusedUpdate, /Nothing awaits approval/);
    assert.equal(r.cancelledPending.updateAnswer.cancelRequested, true);
    assert.deepEqual(r.cancelledPending.updateAnswerProblems, []);
    assert.equal(r.cancelledPending.decision.outcome, 'CANCELLED');
    assert.equal(bookings(`${prefix}-b`)[0]?.status, 'CANCELLED');

    // 4. The confirmed order cancelled by order id with the same one update; still one booking.
    assert.deepEqual(r.cancelledConfirmed.updateAnswerProblems, []);
    assert.equal(r.cancelledConfirmed.updateAnswer.cancelRequested, true);
    assert.deepEqual(r.cancelledConfirmed.resultProblems, []);
    assert.equal(r.cancelledConfirmed.result.outcome, 'CONFIRMED');
    assert.equal(r.cancelledConfirmed.result.guard.phase, 'CANCELLED');
    assert.equal(bookings(`${prefix}-a`).length, 1, 'one supplier booking for the order');
    assert.equal(bookings(`${prefix}-a`)[0]?.status, 'CANCELLED');

    // 4. A bad input: named by the schema, and refused by the workflow before any supplier call.
    assert.ok(
      r.refused.schemaProblems.some((p: string) => p.startsWith('rooms:')),
      r.refused.schemaProblems,
    );
    assert.equal(r.refused.result.outcome, 'FAILED');
    assert.equal(r.refused.result.error.code, 'INVALID_INPUT');
    assert.match(r.refused.result.error.message, /rooms/);
    assert.match(r.refused.result.error.message, /contact\.phone/);
    assert.equal(bookings(`${prefix}-c`).length, 0);

    // 6. Decided orders of each outcome, retried with the SDK's defaults and the documented call:
    //    the first decision every time, and at most the one supplier booking.
    assert.deepEqual(Object.keys(r.retried).sort(), [
      'CONFIRMED',
      'NOT_AVAILABLE',
      'NOT_CONFIRMED',
      'PRICE_REJECTED',
    ]);
    type Answer = { outcome: string; bookingId?: number };
    type Retried = Record<'first' | 'plainStart' | 'again' | 'orderIdAlone', Answer> & {
      orderId: string;
    };
    for (const [outcome, t] of Object.entries(r.retried as Record<string, Retried>)) {
      for (const answer of [t.first, t.plainStart, t.again, t.orderIdAlone])
        assert.equal(answer.outcome, outcome, `${outcome}: ${JSON.stringify(answer)}`);
      assert.ok(bookings(t.orderId).length <= 1, `${outcome}: at most one supplier booking`);
      assert.equal(bookings(t.orderId).length, t.first.bookingId === undefined ? 0 : 1);
    }

    // 8. An order through another account: booked at that account's company, named in its state.
    assert.deepEqual(r.throughAccount.inputProblems, []);
    assert.equal(r.throughAccount.decision.outcome, 'CONFIRMED');
    assert.equal(r.throughAccount.supplier, 'eu');
    assert.deepEqual(
      bookings(`${prefix}-account`).map((b) => b.companyKey),
      ['eu-key'],
    );

    // 7. The closed, unguarded confirmed order cancelled by its id alone; a refusal says why.
    assert.deepEqual(r.cancelledClosed.startProblems, []);
    assert.deepEqual(r.cancelledClosed.updateAnswerProblems, []);
    assert.equal(r.cancelledClosed.updateAnswer.phase, 'CANCELLING');
    assert.equal(r.cancelledClosed.decision.outcome, 'CANCELLED');
    const [closedBooking, ...second] = bookings(r.retried.CONFIRMED.orderId);
    assert.equal(closedBooking?.status, 'CANCELLED');
    assert.equal(second.length, 0);
    assert.equal(r.cancelRefused?.type, 'NOTHING_TO_CANCEL');
  });
});

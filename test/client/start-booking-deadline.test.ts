/**
 * `startBooking` when no worker takes the `outcome` update before the call's deadline, and the
 * caller's event loop is busy as the deadline passes (a loaded order system, a long GC pause):
 * the server's end of the deadline then resets the call before the caller's own timer fires,
 * which grpc-js reads as CANCELLED instead of DEADLINE_EXCEEDED. The start is durable either way,
 * so the caller is told STARTED, never the transport's race. A real dev server, no worker; and
 * {@link cutAtDeadline}, the one decision of what a call cut at its deadline looks like, on the
 * errors real calls end with.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BookingClient } from '../../src/client';
import { cutAtDeadline, temporalNotAnswering } from '../../src/client/temporal-not-answering';
import { bookingInput } from '../helpers/booking-stack';
import { connectTemporal, uniqueTaskQueue, type TestTemporal } from '../helpers/temporal';

/** The client's wait for a worker to take the update (OUTCOME_ACCEPT_WAIT_MS). */
const ACCEPT_WAIT_MS = 10_000;
/** Calls at once: each one's race goes either way, so several make the reset all but certain. */
const CALLS = 8;

/** Keeps this process's event loop busy, as a loaded caller's is, from `fromMs` for `forMs`. */
function busyLoopAt(fromMs: number, forMs: number): void {
  setTimeout(() => {
    const until = Date.now() + forMs;
    while (Date.now() < until);
  }, fromMs);
}

let t: TestTemporal;
before(async () => {
  t = await connectTemporal();
});
after(async () => {
  await t.close();
});

describe('startBooking at its deadline', () => {
  it('a busy caller is told STARTED, whichever end of the deadline came first', async () => {
    const bookings = new BookingClient({ client: t.client, taskQueue: uniqueTaskQueue('no-one') });
    const inputs = Array.from({ length: CALLS }, () => bookingInput('instant'));
    // Busy from half a second before the deadline to half a second after it.
    busyLoopAt(ACCEPT_WAIT_MS - 500, 1_000);
    const outcomes = await Promise.all(
      inputs.map((input) =>
        bookings.startBooking(input).then(
          (started) => started,
          (err: unknown) => (err instanceof Error ? err : new Error(String(err))),
        ),
      ),
    );
    try {
      for (const [i, outcome] of outcomes.entries()) {
        if (outcome instanceof Error) assert.fail(`call ${i}: ${String(outcome)}`);
        assert.equal(outcome.status, 'STARTED');
        const run = await bookings.handle(inputs[i]!.orderId).describe();
        assert.equal(run.status.name, 'RUNNING');
        assert.equal(run.runId, outcome.runId);
      }
    } finally {
      for (const input of inputs) {
        await bookings
          .handle(input.orderId)
          .terminate('test over')
          .catch(() => undefined);
      }
    }
  });
});

describe('cutAtDeadline', () => {
  const ask = (c: TestTemporal) => c.connection.workflowService.getSystemInfo({});
  const failure = (p: Promise<unknown>) =>
    p.then(
      () => assert.fail('answered'),
      (e: unknown) => e,
    );

  it("the client's own timer: DEADLINE_EXCEEDED", async () => {
    const err = await failure(t.connection.withDeadline(Date.now() - 1, () => ask(t)));
    assert.equal((err as { code?: number }).code, 4);
    assert.equal(cutAtDeadline(err), true);
    assert.equal(cutAtDeadline(new Error('wrapped', { cause: err })), true);
  });

  it('CANCELLED, the code grpc-js gives a call reset under it', async () => {
    // The server's reset is the first test's; here a long poll of a queue nobody serves is reset
    // from our side after 100 ms, which grpc-js ends with the same code.
    const poll = () =>
      t.connection.workflowService.pollActivityTaskQueue({
        namespace: 'default',
        taskQueue: { name: uniqueTaskQueue('nobody') },
        identity: 'cut-at-deadline test',
      });
    const err = await failure(
      t.connection.withDeadline(Date.now() + 30_000, () =>
        t.connection.withAbortSignal(AbortSignal.timeout(100), poll),
      ),
    );
    assert.equal((err as { code?: number }).code, 1);
    assert.equal(cutAtDeadline(err), true);
    assert.equal(temporalNotAnswering(err), 'no answer in time');
  });

  it('answers and other errors are not', async () => {
    const notFound = await failure(t.client.workflow.getHandle(`no-such-${Date.now()}`).describe());
    assert.equal(cutAtDeadline(notFound), false);
    const code1 = Object.assign(new Error('code 1, not a gRPC status'), { code: 1 });
    assert.equal(cutAtDeadline(code1), false);
    assert.equal(cutAtDeadline('CANCELLED'), false);
    assert.equal(cutAtDeadline(undefined), false);
  });
});

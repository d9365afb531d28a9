/**
 * Defects the `orders` surface of the fuzz campaign found (docs/fuzzing.md), each a test named
 * for its input: a plain client (the SDK's own, without our converter or codec) against a real
 * worker and dev server. Before the fixes each of the payloads below failed the order's workflow
 * task at every retry, and `outcome` took a megabyte argument into the order's history.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client, WithStartWorkflowOperation, WorkflowUpdateFailedError } from '@temporalio/client';
import type { Payload } from '@temporalio/common';
import { rawPayload } from '../../tools/fuzz/bare-converter';
import { within } from '../../tools/fuzz/order-checks';
import { validInput } from '../../tools/fuzz/order-inputs';
import { newOrderId, startBookingStack, type BookingStack } from '../helpers/booking-stack';

const text = (encoding: string, data: Uint8Array | string): Payload => ({
  metadata: { encoding: Buffer.from(encoding) },
  data: Buffer.from(data),
});

describe('orders from a plain client: what the fuzz campaign found', () => {
  let stack: BookingStack;
  let bare: Client;
  before(async () => {
    stack = await startBookingStack('fuzz-orders');
    bare = new Client({
      connection: stack.temporal.client.connection,
      dataConverter: { payloadConverterPath: require.resolve('../../tools/fuzz/bare-converter') },
    });
  });
  after(() => stack.close());

  /** Starts `bookRoom` with `payload` as it is; its result once closed, and its failed tasks. */
  async function startRaw(payload: Payload) {
    const workflowId = `booking-${newOrderId('raw')}`;
    await bare.workflow.start('bookRoom', {
      workflowId,
      taskQueue: stack.taskQueue,
      args: [rawPayload(payload)],
    });
    const handle = stack.temporal.client.workflow.getHandle(workflowId);
    const ended = await within(20_000, handle.result());
    assert.ok(ended !== 'stuck' && ended.ok, `the run did not end: ${JSON.stringify(ended)}`);
    const result = ended.value as {
      outcome: string;
      error: { code: string; message: string };
    };
    const history = await handle.fetchHistory();
    const failedTasks = history.events!.filter((e) => e.workflowTaskFailedEventAttributes).length;
    return { result, failedTasks };
  }

  const cases: [string, Payload, RegExp][] = [
    ['json/plain that is not JSON', text('json/plain', '{"orderId": "x", rooms: ['), /not JSON/],
    ['json/plain, empty', text('json/plain', ''), /not JSON/],
    [
      'binary/encrypted that is not ciphertext',
      text('binary/encrypted', new Uint8Array(40)),
      /decrypt/,
    ],
    [
      'binary/encrypted under a key id the worker does not hold',
      {
        metadata: {
          encoding: Buffer.from('binary/encrypted'),
          'encryption-key-id': Buffer.from('no-such-key'),
        },
        data: new Uint8Array(64),
      },
      /"no-such-key"/,
    ],
    ['an encoding no converter reads', text('x-hostile/unknown', '{}'), /"x-hostile\/unknown"/],
  ];
  for (const [what, payload, why] of cases) {
    it(`a start whose input is ${what}: FAILED, INVALID_INPUT saying why, no workflow task failed`, async () => {
      const { result, failedTasks } = await startRaw(payload);
      assert.equal(result.outcome, 'FAILED');
      assert.equal(result.error.code, 'INVALID_INPUT');
      assert.match(result.error.message, /^\(input\): /);
      assert.match(result.error.message, why);
      assert.equal(failedTasks, 0);
    });
  }

  it('an optionId holding an unpaired surrogate: FAILED at once, INVALID_REQUEST naming option_id, nothing sent', async () => {
    const orderId = newOrderId('surrogate');
    const sent = stack.sim.requests().total;
    const answer = await within(
      20_000,
      stack.temporal.client.workflow.executeUpdateWithStart('outcome', {
        startWorkflowOperation: new WithStartWorkflowOperation('bookRoom', {
          workflowId: `booking-${orderId}`,
          taskQueue: stack.taskQueue,
          args: [{ ...validInput(orderId), optionId: '\ud800' }],
          workflowIdConflictPolicy: 'FAIL',
        }),
      }),
    );
    assert.ok(answer !== 'stuck' && answer.ok, `no decision: ${JSON.stringify(answer)}`);
    const result = answer.value as { outcome: string; error: { code: string; message: string } };
    assert.equal(result.outcome, 'FAILED');
    assert.equal(result.error.code, 'INVALID_REQUEST');
    assert.match(result.error.message, /option_id: not well-formed Unicode/);
    assert.equal(stack.sim.requests().total, sent, 'a request reached the supplier');
  });

  it('outcome with a megabyte argument: refused, and the order keeps its history small', async () => {
    const orderId = newOrderId('outcome-arg');
    const decided = await stack.bookings.result(
      await stack.bookings.startBooking(validInput(orderId) as never),
    );
    assert.equal(decided.outcome, 'CONFIRMED');
    const handle = stack.temporal.client.workflow.getHandle(`booking-${orderId}`);
    await assert.rejects(
      handle.executeUpdate('outcome', { args: ['x'.repeat(1024 * 1024)] }),
      (err: unknown) =>
        err instanceof WorkflowUpdateFailedError && /no argument/.test(String(err.cause)),
    );
    assert.equal(
      ((await handle.executeUpdate('outcome', { args: [null] })) as { outcome: string }).outcome,
      'CONFIRMED',
    );
    const bytes = (await handle.fetchHistory()).events!.reduce(
      (n, e) => n + JSON.stringify(e).length,
      0,
    );
    assert.ok(bytes < 200_000, `history ${bytes} bytes`);
  });
});

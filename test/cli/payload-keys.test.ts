/**
 * The tool and the payload keys, as a child process: on the run's Temporal server, bookings made
 * by a worker whose payloads are encrypted under a key the tool does not hold are refused in one
 * line that names PAYLOAD_ENCRYPTION_KEYS and the key id it lacks (never a stack trace or
 * ciphertext); an update the workers could not decrypt is never sent (it would leave the booking
 * answering nothing); and with a Temporal that is not on this machine, the tool refuses to fall
 * back to the public development key.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { connectBookingClient, type ConnectedClient } from '../../src/client';
import { loadConfig } from '../../src/config';
import { startLocalStack, type LocalStack } from '../../tools/stack/local-stack';
import { bookingInput, eventually } from '../helpers/booking-stack';
import { temporalAddress, uniqueTaskQueue } from '../helpers/temporal';
import { cli, explain, json, type CliRun } from './cli-process';

/** The workers' key: the tool is given everything but this. */
const WORKERS_KEY_ID = 'ops-2027';
const key = (id: string) => `${id}:${randomBytes(32).toString('base64')}`;
const WORKERS_KEYS = key(WORKERS_KEY_ID);

/** stderr is one line, naming PAYLOAD_ENCRYPTION_KEYS and `keyId`; no stack, no ciphertext. */
function assertOneLine(run: CliRun, keyId: string): string {
  const lines = run.stderr.split('\n').filter((l) => l !== '');
  assert.equal(lines.length, 1, explain(run));
  const line = lines[0]!;
  assert.match(line, /PAYLOAD_ENCRYPTION_KEYS/, explain(run));
  assert.ok(line.includes(`"${keyId}"`), explain(run));
  assert.doesNotMatch(line, /\n|\bat \S+ \(|binary\/encrypted|Error:/, explain(run));
  return line;
}

describe('the tool and the payload keys (PAYLOAD_ENCRYPTION_KEYS)', () => {
  let stack: LocalStack;
  let client: ConnectedClient;
  let env: NodeJS.ProcessEnv;
  const finished = bookingInput('not-available');
  const waiting = bookingInput('price-up', { param: 40 });

  before(async () => {
    const taskQueue = uniqueTaskQueue('cli-payload-keys');
    const config = loadConfig({
      ...process.env,
      TEMPORAL_TASK_QUEUE: taskQueue,
      HOTEL_API_BASE_URL: undefined,
      PAYLOAD_ENCRYPTION_KEYS: WORKERS_KEYS,
    });
    const { key: apiKey, secret } = config.hotelApi;
    stack = await startLocalStack({
      temporal: { kind: 'existing', address: temporalAddress() },
      supplier: { kind: 'simulator', company: { key: apiKey, secret } },
      config,
      log: () => undefined,
      sdkLog: { to: 'stderr', level: 'ERROR' },
      shutdownGraceMs: 1_000,
    });
    client = await connectBookingClient(stack.config);
    await client.bookings.startBooking(finished);
    await client.bookings.startBooking(waiting);
    assert.equal((await client.bookings.result(finished.orderId)).outcome, 'NOT_AVAILABLE');
    await eventually(
      async () => (await client.bookings.state(waiting.orderId)).phase === 'AWAITING_APPROVAL',
      30_000,
      'the price-up booking to await approval',
    );
    env = {
      ...process.env,
      TEMPORAL_ADDRESS: stack.temporalAddress,
      TEMPORAL_TASK_QUEUE: taskQueue,
      HOTEL_API_BASE_URL: stack.supplierUrl,
      PAYLOAD_ENCRYPTION_KEYS: undefined,
      PAYLOAD_ENCRYPTION_KEYS_FILE: undefined,
    };
  });

  after(async () => {
    await client?.close();
    await stack?.stop();
  });

  it('with the workers key the tool reads the booking (the stack is sound)', async () => {
    const run = await cli({ ...env, PAYLOAD_ENCRYPTION_KEYS: WORKERS_KEYS })(
      '--json',
      'status',
      finished.orderId,
    );
    assert.equal(run.code, 0, explain(run));
    assert.equal(json<{ state: { phase: string } }>(run).state.phase, 'NOT_AVAILABLE');
  });

  it('another key: a finished booking is refused in one line naming the key id the tool lacks (exit 2)', async () => {
    const run = await cli({ ...env, PAYLOAD_ENCRYPTION_KEYS: key('other-2027') })(
      'status',
      finished.orderId,
    );
    assert.equal(run.code, 2, explain(run));
    const line = assertOneLine(run, WORKERS_KEY_ID);
    assert.ok(line.includes('"other-2027"'), line);
    assert.equal(run.stdout, '', explain(run));
  });

  it('another key: a running booking (its query answered by the worker) is refused the same way', async () => {
    const run = await cli({ ...env, PAYLOAD_ENCRYPTION_KEYS: key('other-2027') })(
      'status',
      waiting.orderId,
    );
    assert.equal(run.code, 2, explain(run));
    assertOneLine(run, WORKERS_KEY_ID);
  });

  it('no key on a local Temporal: the development key is named as what the tool has', async () => {
    const run = await cli(env)('status', finished.orderId);
    assert.equal(run.code, 2, explain(run));
    const line = assertOneLine(run, WORKERS_KEY_ID);
    assert.match(line, /development key/, line);
  });

  it('the right id with other key material: the key under that id is named as the wrong one', async () => {
    const run = await cli({ ...env, PAYLOAD_ENCRYPTION_KEYS: key(WORKERS_KEY_ID) })(
      'status',
      finished.orderId,
    );
    assert.equal(run.code, 2, explain(run));
    assertOneLine(run, WORKERS_KEY_ID);
  });

  it('--json: the refusal is one JSON error with a stable code', async () => {
    const run = await cli({ ...env, PAYLOAD_ENCRYPTION_KEYS: key('other-2027') })(
      '--json',
      'status',
      finished.orderId,
    );
    assert.equal(run.code, 2, explain(run));
    const { error } = json<{ error: { code: string; message: string } }>(run);
    assert.equal(error.code, 'PAYLOAD_KEY_MISSING');
    assert.ok(error.message.includes(`"${WORKERS_KEY_ID}"`), error.message);
  });

  /** The waiting booking still answers, with the workers' key: nothing jammed it. */
  const stillWaiting = async () =>
    assert.equal((await client.bookings.state(waiting.orderId)).phase, 'AWAITING_APPROVAL');

  it('approve with another key: refused in one line naming the key id, before anything is sent', async () => {
    const run = await cli({ ...env, PAYLOAD_ENCRYPTION_KEYS: key('other-2027') })(
      'approve',
      waiting.orderId,
    );
    assert.equal(run.code, 2, explain(run));
    assertOneLine(run, WORKERS_KEY_ID);
    assert.ok(run.ms < 15_000, `answered in ${run.ms} ms`);
    await stillWaiting();
  });

  it("approve holding the workers' key but encrypting with another: refused, naming both ids", async () => {
    const run = await cli({
      ...env,
      PAYLOAD_ENCRYPTION_KEYS: `${key('new-2028')},${WORKERS_KEYS}`,
    })('--json', 'approve', waiting.orderId);
    assert.equal(run.code, 2, explain(run));
    const { error } = json<{ error: { code: string; message: string } }>(run);
    assert.equal(error.code, 'PAYLOAD_WRITE_KEY');
    assert.ok(error.message.includes(`"${WORKERS_KEY_ID}"`), error.message);
    assert.ok(error.message.includes('"new-2028"'), error.message);
    await stillWaiting();
  });

  it("approve with the workers' keys: the booking goes on to CONFIRMED", async () => {
    const run = await cli({ ...env, PAYLOAD_ENCRYPTION_KEYS: WORKERS_KEYS })(
      'approve',
      waiting.orderId,
    );
    assert.equal(run.code, 0, explain(run));
    assert.equal((await client.bookings.result(waiting.orderId)).outcome, 'CONFIRMED');
  });

  it('a Temporal not on this machine without PAYLOAD_ENCRYPTION_KEYS: refused in one line before connecting (exit 2)', async () => {
    // NODE_ENV as an operator's shell has it (the test runner's `test` would allow the key).
    const run = await cli({
      ...env,
      TEMPORAL_ADDRESS: 'temporal.internal.example:7233',
      NODE_ENV: undefined,
    })('status', finished.orderId);
    assert.equal(run.code, 2, explain(run));
    const lines = run.stderr.split('\n').filter((l) => l !== '');
    assert.equal(lines.length, 1, explain(run));
    assert.match(lines[0]!, /PAYLOAD_ENCRYPTION_KEYS/);
    assert.match(lines[0]!, /temporal\.internal\.example:7233/);
    assert.ok(run.ms < 15_000, `answered in ${run.ms} ms, without trying to connect`);
  });
});

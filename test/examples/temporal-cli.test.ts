/**
 * examples/temporal-cli/README.md's recipe, run as it stands with the Temporal CLI against the
 * run's dev server, a worker, the simulator and a codec server: the CLI encrypts through the
 * codec server, and what reaches Temporal is never in clear.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { buildCodecServer, type CodecServer } from '../../src/codec/codec-server';
import { developmentKey } from '../../src/config/codec';
import { EncryptionCodec } from '../../src/codec/encryption-codec';
import { scenarioOptionId } from '../../tools/simulator/scenarios';
import { resolveTemporalCli } from '../../tools/temporal-server/cli-binary';
import { newOrderId, startBookingStack, type BookingStack } from '../helpers/booking-stack';
import { temporalAddress } from '../helpers/temporal';

const run = promisify(execFile);
const README = join(__dirname, '..', '..', 'examples', 'temporal-cli', 'README.md');

/** The shell recipe between the README's recipe markers. */
function recipe(): string {
  const text = readFileSync(README, 'utf8');
  const m = /<!-- recipe -->\n```sh\n([\s\S]*?)```\n<!-- \/recipe -->/.exec(text);
  if (!m?.[1]) throw new Error(`${README} has no recipe block`);
  return m[1];
}

describe('the Temporal CLI recipe (examples/temporal-cli)', () => {
  let s: BookingStack;
  let codec: CodecServer;
  let codecUrl: string;
  const token = 'cli-recipe-token-0123456789';
  before(async () => {
    s = await startBookingStack('temporal-cli', {
      accounts: [{ id: 'eu', key: 'eu-key', secret: 'eu-secret-0123456789' }],
    });
    codec = buildCodecServer({ codec: new EncryptionCodec({ keys: [developmentKey()] }), token });
    codecUrl = await codec.listen(0);
  });
  after(async () => {
    await codec?.close();
    await s?.close();
  });

  it('books with the decision in one call, starts, queries, cancels by order id before and after the decision, by Temporal and once closed, with payloads encrypted', async () => {
    const cli = await resolveTemporalCli({ log: () => undefined });
    assert.equal(cli.kind, 'binary', 'the suite runs with a Temporal CLI binary');
    const order = newOrderId('cli');
    const order2 = newOrderId('cli');
    const order3 = newOrderId('cli');
    const order4 = newOrderId('cli');
    const order5 = newOrderId('cli');
    const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', recipe()], {
      env: {
        ...process.env,
        PATH: `${dirname(cli.kind === 'binary' ? cli.path : '')}:${process.env.PATH ?? ''}`,
        TEMPORAL_ADDRESS: temporalAddress(),
        QUEUE: s.taskQueue,
        CODEC: codecUrl,
        TOKEN: token,
        ORDER: order,
        ORDER2: order2,
        ORDER3: order3,
        ORDER4: order4,
        ORDER5: order5,
        SUPPLIER: 'eu',
        OPTION: scenarioOptionId('pending-long'),
        OPTION_CONFIRMED: scenarioOptionId('instant'),
      },
      timeout: 120_000,
    });
    assert.match(stdout, new RegExp(`WorkflowId +booking-${order}`));
    assert.match(stdout, /"cancelRequested": true/, 'the cancel update answered the state');
    const results = [...stdout.matchAll(/"outcome": "([A-Z_]+)"/g)].map((m) => m[1]);
    assert.ok(results.filter((o) => o === 'CANCELLED').length >= 2, stdout);
    assert.equal(s.sim.bookings({ customFields: { custom_field_10: order } }).length <= 1, true);
    // The one-call booking was decided CONFIRMED, then cancelled by order id in its guard.
    assert.match(stdout, /"outcome": "CONFIRMED"/);
    assert.match(stdout, /"phase": "CANCELLED"/, 'the guard ended CANCELLED');
    const confirmed = s.sim.bookings({ customFields: { custom_field_10: order3 } });
    assert.equal(confirmed.length, 1, 'one supplier booking for the order');
    assert.equal(confirmed[0]?.status, 'CANCELLED');

    // The unguarded order: decided CONFIRMED, asked again (the same decision, no second booking),
    // then cancelled by its id alone once closed; its last result is CANCELLED.
    const unguarded = s.sim.bookings({ customFields: { custom_field_10: order4 } });
    assert.equal(unguarded.length, 1, 'one supplier booking for the unguarded order');
    assert.equal(unguarded[0]?.status, 'CANCELLED');
    const last = (await s.temporal.client.workflow.getHandle(`booking-${order4}`).result()) as {
      outcome: string;
    };
    assert.equal(last.outcome, 'CANCELLED');
    assert.match(stdout, /decided by an earlier run/);

    // The order through another account: booked at that account's company, named in its state.
    const throughAccount = s.sim.bookings({ customFields: { custom_field_10: order5 } });
    assert.deepEqual(
      throughAccount.map((b) => b.companyKey),
      ['eu-key'],
    );
    assert.match(stdout, /"supplier": "eu"/);

    // What the CLI sent reached Temporal encrypted: the guest's name is nowhere in the history.
    const history = await s.temporal.connection.workflowService.getWorkflowExecutionHistory({
      namespace: 'default',
      execution: { workflowId: `booking-${order}` },
    });
    const raw = JSON.stringify(history.history);
    assert.ok(!raw.includes('Guest') && !Buffer.from(raw).includes('3330000000'));
    const started = history.history?.events?.[0]?.workflowExecutionStartedEventAttributes;
    const meta = started?.input?.payloads?.[0]?.metadata ?? {};
    assert.equal(Buffer.from(meta.encoding ?? []).toString(), 'binary/encrypted');
  });
});

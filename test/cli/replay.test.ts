/**
 * `hotel-booking replay` against the namespace's own histories, as an operator runs it before a
 * rollout: bookings recorded by this build's workflow code replay with it (exit 0); a build with
 * an incompatible change fails naming the workflows and the nondeterministic command (exit 1);
 * the same change behind `patched()` replays (exit 0).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { connectBookingClient, type ConnectedClient } from '../../src/client';
import { loadConfig } from '../../src/config';
import { bundleWorkflows } from '../../src/workflow-bundle';
import { scenarioOptionId } from '../../tools/simulator';
import { cli, explain, json, startCliStack, type CliStack } from './cli-process';

describe('replay: this build against the histories in the namespace', () => {
  let s: CliStack;
  let client: ConnectedClient;
  const dir = mkdtempSync(join(tmpdir(), 'hbo-replay-'));
  const orders = [`replay-open-${Date.now()}`, `replay-confirmed-${Date.now()}`];
  before(async () => {
    s = await startCliStack('cli-replay');
    client = await connectBookingClient(loadConfig(s.env));
    const input = (orderId: string, scenario: 'pending-long' | 'instant') => ({
      orderId,
      optionId: scenarioOptionId(scenario),
      rooms: [{ firstName: 'Ada', lastName: 'Lovelace' }],
      contact: { phonePrefix: '+39', phone: '3331234567' },
      polling: { initialInterval: '100ms', maximumInterval: '100ms' },
    });
    await client.bookings.startBooking(input(orders[0]!, 'pending-long'));
    await client.bookings.startBooking(input(orders[1]!, 'instant'));
    // Both running: one waiting for its confirmation, one guarding its stay.
    for (const [order, phase] of [
      [orders[0]!, 'AWAITING_CONFIRMATION'],
      [orders[1]!, 'CONFIRMED'],
    ] as const) {
      const until = Date.now() + 30_000;
      while ((await client.bookings.state(order).catch(() => undefined))?.phase !== phase) {
        if (Date.now() > until) throw new Error(`${order} never reached ${phase}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  });
  after(async () => {
    await client?.close();
    await s?.stack.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  async function bundleOf(fixture: string): Promise<string> {
    const path = join(dir, `${fixture}.js`);
    writeFileSync(
      path,
      (await bundleWorkflows(join(__dirname, '..', 'fixtures', `${fixture}.ts`))).code,
    );
    return path;
  }

  it('replays every open and recent history with the build that recorded them: exit 0', async () => {
    const run = await s.run('--json', 'replay');
    assert.equal(run.code, 0, explain(run));
    const report = json<{ replayed: number; failed: unknown[]; query: string }>(run);
    assert.equal(report.replayed, 2, explain(run));
    assert.deepEqual(report.failed, []);
    assert.match(report.query, /ExecutionStatus = 'Running' OR CloseTime >/);
  });

  it('fails on an incompatible change, naming each workflow and its first nondeterministic command: exit 1', async () => {
    const changed = await cli({
      ...s.env,
      WORKFLOW_BUNDLE_PATH: await bundleOf('workflows-changed'),
    })('replay');
    assert.equal(changed.code, 1, explain(changed));
    for (const order of orders) assert.match(changed.stdout, new RegExp(`booking-${order}`));
    assert.match(changed.stdout, /[Nn]ondeterminism|TIMER|[Tt]imer/);
    assert.match(changed.stdout, /put the change behind patched\(\)/);
  });

  it('passes with the same change behind patched(): exit 0', async () => {
    const patched = await cli({
      ...s.env,
      WORKFLOW_BUNDLE_PATH: await bundleOf('workflows-changed-patched'),
    })('replay', '--query', `TaskQueue = '${s.env.TEMPORAL_TASK_QUEUE}'`);
    assert.equal(patched.code, 0, explain(patched));
    assert.match(patched.stdout, /Replayed 2 workflow histories.*every one replays/);
  });
});

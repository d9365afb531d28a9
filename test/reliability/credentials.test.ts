/**
 * The API key is revoked while bookings are in every phase (polling for
 * confirmation, waiting for approval before the booking call, just starting). Each affected price
 * check and booking call is attempted once, those outcomes name AUTH_INVALID, and nothing keeps
 * calling them afterwards. A booking that already exists at the supplier is not
 * closed by a 401 on its polls (a key rotation looks the same): it stays open, still polled at the
 * poll's pace, shows STATUS_UNREADABLE once reads have failed for a while, and names AUTH_INVALID.
 * The worker is a real subprocess configured by environment.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { waitForSettled, formatCounts } from '../../tools/chaos/audit';
import { mixInput, orderIdFor } from '../../tools/chaos/booking-mix';
import { startChaosStack, type ChaosStack } from '../../tools/chaos/chaos-stack';
import type { RequestStats } from '../../tools/simulator';
import { eventually } from '../helpers/booking-stack';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function unauthorized(stats: RequestStats): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [endpoint, e] of Object.entries(stats.byEndpoint)) {
    const n = e.byStatus['401'] ?? 0;
    if (n > 0) out[endpoint] = n;
  }
  return out;
}

describe('credentials revoked mid-run', () => {
  let s: ChaosStack;
  before(async () => {
    s = await startChaosStack({
      name: 'revoked',
      workDir: mkdtempSync(join(process.env.TEST_WORK_DIR ?? tmpdir(), 'revoked-')),
    });
  });
  after(async () => {
    await s?.close();
  });

  it('attempts each price check and booking call once, names AUTH_INVALID, keeps live bookings open and polled', async () => {
    const run = `revoked-${Date.now().toString(36)}`;
    const polling = Array.from({ length: 6 }, (_, i) =>
      mixInput(
        { scenario: 'confirm-after-polls', param: 100_000, weight: 1, expect: 'CONFIRMED' },
        orderIdFor(`${run}-poll`, i),
      ),
    );
    const approving = Array.from({ length: 4 }, (_, i) =>
      mixInput(
        { scenario: 'price-up', param: 50, weight: 1, expect: 'CONFIRMED' },
        orderIdFor(`${run}-appr`, i),
      ),
    );
    for (const input of [...polling, ...approving]) await s.bookings.startBooking(input);
    const phases = async () =>
      Promise.all(
        [...polling, ...approving].map(async (i) => (await s.bookings.state(i.orderId)).phase),
      );
    await eventually(
      async () => {
        const p = await phases();
        return (
          p.slice(0, 6).every((x) => x === 'AWAITING_CONFIRMATION') &&
          p.slice(6).every((x) => x === 'AWAITING_APPROVAL')
        );
      },
      30_000,
      'polling and approval phases',
    );
    await sleep(500); // a few polls with valid credentials

    const before = s.sim.requests();
    s.sim.revokeCompany(s.company.key);
    const revokedAt = Date.now();
    const fresh = Array.from({ length: 4 }, (_, i) =>
      mixInput(
        { scenario: 'instant', weight: 1, expect: 'CONFIRMED' },
        orderIdFor(`${run}-new`, i),
      ),
    );
    for (const input of fresh) await s.bookings.startBooking(input);
    await Promise.all(approving.map((i) => s.bookings.approvePriceChange(i.orderId, true)));

    const all = [...approving, ...fresh];
    const statuses = await waitForSettled(
      s.client,
      all.map((i) => i.orderId),
      { timeoutMs: 30_000 },
    );
    const settledMs = Date.now() - revokedAt;
    const afterSettle = s.sim.requests();
    await sleep(3_000); // anything still retrying would show up here
    const later = s.sim.requests();

    const outcomes: Record<string, number> = {};
    for (const input of all) {
      const st = statuses.get(input.orderId);
      assert.equal(st?.kind, 'final', `${input.orderId} ended`);
      if (st?.kind !== 'final') continue;
      outcomes[`${st.outcome}/${st.result.error?.code}`] =
        (outcomes[`${st.outcome}/${st.result.error?.code}`] ?? 0) + 1;
      assert.equal(st.outcome, 'FAILED', `${input.orderId}: ${st.result.reason}`);
      assert.equal(st.result.error?.code, 'AUTH_INVALID', `${input.orderId} names the cause`);
      assert.match(st.result.reason ?? '', /AUTH_INVALID/);
    }
    const byEndpoint = unauthorized(afterSettle);
    const laterByEndpoint = unauthorized(later);
    console.log(
      `credentials: key revoked with 6 bookings polling, 4 awaiting approval, 4 started after; settled in ${settledMs} ms`,
    );
    console.log(`  outcomes: ${formatCounts(outcomes)}`);
    console.log(
      `  401s by endpoint: ${formatCounts(byEndpoint)}; 3 s later: ${formatCounts(laterByEndpoint)}`,
    );
    // One refused call per price check or booking call, and none after.
    assert.equal(byEndpoint.booking, 4);
    assert.equal(byEndpoint['price-check'], 4);
    assert.equal(laterByEndpoint.booking, 4, 'no booking call retried');
    assert.equal(laterByEndpoint['price-check'], 4, 'no price check retried');
    const before401 = unauthorized(before);
    assert.equal(before401.retrieve ?? 0, 0);
    for (const input of approving)
      assert.equal(s.sim.bookings({ customFields: { custom_field_10: input.orderId } }).length, 0);

    // The six supplier bookings live on: their workflows stay open and keep polling (one retrieve
    // per poll, ≤ 500 ms apart here), naming the cause, visible as STATUS_UNREADABLE.
    assert.ok(
      (laterByEndpoint.retrieve ?? 0) > (byEndpoint.retrieve ?? 0),
      'polls go on at their own pace',
    );
    for (const input of polling) {
      const st = await eventually(
        async () => {
          const x = await s.bookings.state(input.orderId);
          return x.phase === 'STATUS_UNREADABLE' ? x : undefined;
        },
        15_000,
        `${input.orderId} shown as unreadable`,
      );
      assert.equal(st.lastError?.code, 'AUTH_INVALID');
      const d = await s.bookings.handle(input.orderId).describe();
      assert.equal(d.status.name, 'RUNNING', `${input.orderId} is still open`);
      await s.bookings.handle(input.orderId).terminate('test over');
    }
  });
});

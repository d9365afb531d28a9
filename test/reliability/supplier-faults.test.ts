/**
 * Supplier faults (short variant: a 10 s burst; `npm run chaos -- faults` runs 60 s): 30 % 503 on
 * every supplier endpoint, bookings keep arriving. Every booking reaches its outcome after the
 * burst, and the request rate during the burst stays within 2× the steady rate.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { formatFaultBurstReport, runFaultBurst } from '../../tools/chaos/fault-burst';

describe('supplier faults', () => {
  it('a 30 % 5xx burst on every endpoint ends in outcomes for every booking, without a retry storm', async () => {
    const report = await runFaultBurst({
      arrivalsPerSecond: 3,
      steadyMs: 8_000,
      burstMs: 10_000,
      errorRate: 0.3,
      settleTimeoutMs: 90_000,
      workDir: mkdtempSync(join(process.env.TEST_WORK_DIR ?? tmpdir(), 'burst-')),
      log: (line) => console.log(`[faults] ${line}`),
    });
    for (const line of formatFaultBurstReport(report)) console.log(line);
    assert.deepEqual(report.audit.lost, []);
    assert.deepEqual(report.audit.stuck, [], 'every booking reached its outcome after the burst');
    assert.deepEqual(report.audit.duplicates, []);
    assert.deepEqual(
      report.unexplained,
      [],
      'NEEDS_RECONCILIATION only for a 503 on POST /booking',
    );
    assert.equal(report.afterReconcile.reconciliation.length, 0);
    assert.ok(report.injected503 > 0, 'the burst injected 503s');
    assert.ok(report.ratio <= 2, `burst rate ${report.ratio.toFixed(2)}× the steady rate`);
  });
});

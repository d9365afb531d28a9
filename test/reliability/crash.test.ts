/**
 * Crashes (short variant; `npm run chaos -- crash` runs 200 bookings and 10 kills):
 * bookings across the scenarios while the worker subprocess is SIGKILLed at random moments and
 * restarted within 2 s, and our own dev server is SIGKILLed and restarted on its SQLite file.
 *
 * It takes about a minute: a price check or a poll cut off by a kill is retried only when its
 * 45 s start-to-close timeout passes (reads do not heartbeat), so the last kill + 45 s is a floor.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { formatCrashReport, runCrashDrill } from '../../tools/chaos/crash-drill';

describe('crashes', () => {
  it('no duplicate supplier booking and no lost order when the worker and the server are SIGKILLed mid-run', async () => {
    const workDir = mkdtempSync(join(process.env.TEST_WORK_DIR ?? tmpdir(), 'crash-'));
    const report = await runCrashDrill({
      bookings: Number(process.env.CRASH_BOOKINGS ?? 30),
      workerKills: 3,
      serverKills: 1,
      startWindowMs: 8_000,
      killWindowMs: 8_000,
      aimMs: 1_000,
      readyWaitMs: 3_000,
      settleTimeoutMs: 120_000,
      reconcile: true,
      workDir,
      log: (line) => console.log(`[crash] ${line}`),
    });
    for (const line of formatCrashReport(report)) console.log(line);
    assert.deepEqual(report.audit.duplicates, [], 'at most one supplier booking per order');
    assert.deepEqual(report.audit.lost, [], 'no lost order');
    assert.deepEqual(report.audit.stuck, [], 'every order final or waiting for reconciliation');
    assert.deepEqual(report.unexplained, [], 'every NEEDS_RECONCILIATION explained');
    assert.ok(report.afterReconcile === undefined || report.afterReconcile.failed.length === 0);
    assert.equal(report.afterReconcile?.audit.reconciliation.length ?? 0, 0);
    assert.ok(report.passed);
  });
});

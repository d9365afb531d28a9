/**
 * The fleet drill, short: the production topology (PostgreSQL, the Temporal server with mTLS,
 * 3 worker processes on one task queue), bookings across the scenarios while every worker is
 * restarted by SIGTERM in turn, one is SIGKILLed, and the Temporal server and PostgreSQL are
 * restarted. Nothing lost, nothing booked twice, every reconciliation explained. Needs the
 * cluster binaries (built once by `npm run cluster`); skipped with a message without them.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { formatFleetReport, runFleetDrill } from '../../tools/chaos/fleet-drill';
import { clusterSkip } from '../helpers/cluster-skip';
import { freePort } from '../../tools/temporal-server/dev-server';

const skip = clusterSkip();

describe('fleet drill on the cluster (short)', { skip }, () => {
  it('3 workers, rolling restart, a SIGKILL, server and PostgreSQL restarts: 0 lost, 0 duplicates, every reconciliation explained', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hbo-fleet-'));
    try {
      // Its own ports (the cluster checks each and says which is busy); ≤ 32700, see clusterPorts.
      // 28,000–29,999: test/cluster/cluster.test.ts, which runs beside it, takes 30,000 and up.
      const base = 28_000 + ((await freePort()) % 2_000);
      const r = await runFleetDrill({
        bookings: 30,
        workers: 3,
        startWindowMs: 40_000,
        settleTimeoutMs: 240_000,
        dataDir: join(dir, 'cluster'),
        basePort: base,
        shutdownGraceMs: 5_000,
        seed: 16,
        log: (l) => console.log(`[fleet] ${l}`),
      });
      for (const line of formatFleetReport(r)) console.log(line);
      assert.equal(r.audit.lost.length, 0, 'no order lost');
      assert.equal(r.audit.duplicates.length, 0, 'no order booked twice at the supplier');
      assert.equal(r.audit.stuck.length, 0, 'every order settled');
      assert.deepEqual(r.unexplained, [], 'every reconciliation explained');
      const kinds = r.disruptions.map((d) => `${d.target}:${d.how ?? 'SIGKILL'}`);
      assert.equal(kinds.filter((k) => k.startsWith('worker:stopped by SIGTERM')).length, 3);
      assert.ok(kinds.includes('worker:SIGKILL'));
      assert.ok(kinds.some((k) => k.startsWith('server:')));
      assert.ok(kinds.some((k) => k.startsWith('postgres:')));
      assert.ok(r.passed);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

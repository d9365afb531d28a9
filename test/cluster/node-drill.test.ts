/**
 * The node drill, short (tools/chaos/node-drill.ts): three Temporal server nodes behind the
 * balancer, three workers, bookings across the scenarios while two nodes die in turn (each back
 * after a while) and PostgreSQL restarts: nothing lost, duplicated or stuck, the dead node's
 * shards moved, bookings flowed again, every workflow task timeout explained. Needs the cluster
 * binaries and nginx (see nodes.test.ts); skipped with a message without them.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { formatNodeReport, runNodeDrill } from '../../tools/chaos/node-drill';
import { clusterSkip } from '../helpers/cluster-skip';
import { freePort } from '../../tools/temporal-server/dev-server';

const skip = clusterSkip({ nodes: 3 });

describe('the node drill (short)', { skip }, () => {
  it('node drill (short): two nodes SIGKILLed in turn and PostgreSQL restarted, 0 lost, 0 duplicated, shards moved', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hbo-node-drill-'));
    try {
      const r = await runNodeDrill({
        bookings: 30,
        downMs: 10_000,
        dataDir: join(dir, 'cluster'),
        // 25,000–25,899: apart from nodes.test.ts (24,000+) and the other cluster tests.
        basePort: 25_000 + ((await freePort()) % 900),
        settleTimeoutMs: 240_000,
        seed: 52,
        log: (l) => console.log(`[nodes] ${l}`),
      });
      for (const line of formatNodeReport(r)) console.log(line);
      assert.equal(r.audit.lost.length, 0, 'no order lost');
      assert.equal(r.audit.duplicates.length, 0, 'no order booked twice at the supplier');
      assert.equal(r.audit.stuck.length, 0, 'every order settled');
      assert.deepEqual(r.unexplained, [], 'every reconciliation explained');
      assert.equal(r.kills.length, 2);
      assert.notEqual(r.kills[0]!.node, r.kills[1]!.node, 'two different nodes');
      for (const k of r.kills) {
        assert.ok(k.shardsMovedMs !== undefined, `node ${k.node}'s shards moved`);
        assert.ok(!(k.node in k.shardsAfter), `node ${k.node} owned no shard while down`);
        assert.ok(k.flowAgainMs !== undefined, `bookings flowed again after node ${k.node}`);
      }
      assert.deepEqual(
        r.taskTimeouts.filter((t) => t.cause === undefined),
        [],
        'every workflow task timeout explained',
      );
      assert.ok(r.passed);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

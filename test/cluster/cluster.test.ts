/**
 * `npm run cluster`'s infrastructure (tools/temporal-server/cluster.ts): PostgreSQL and the
 * Temporal server of the selected release from the shared deploy/temporal files, frontend with
 * mTLS, reporting the version the server gives. A second start on the
 * same data keeps every workflow; a client without the certificate is refused in one line; a busy
 * port is named. Needs the cluster binaries; skipped with a message without them.
 */
import assert from 'node:assert/strict';
import { selectedRelease } from '../../tools/temporal-server/selected-release';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { Client, Connection } from '@temporalio/client';
import { everyRunQuery } from '../../src/activities/earlier-runs';
import { connectBookingClient, TemporalConnectionRefusedError } from '../../src/client';
import { temporalConnectionOptions } from '../../src/client/connection-options';
import { loadConfig } from '../../src/config';
import { TemporalNamespaceDivisionKey } from '../../src/shared/search-attributes';
import { busyPorts, startClusterInfrastructure } from '../../tools/temporal-server/cluster';
import { clusterPorts } from '../../tools/temporal-server/cluster-ports';
import { clusterSkip } from '../helpers/cluster-skip';
import { freePort } from '../../tools/temporal-server/dev-server';
import { eventually } from '../helpers/booking-stack';

/**
 * A base port for one of this file's clusters: 30,000–32,000 (≤ 32,700, see clusterPorts), apart
 * from the fleet drill's 28,000–29,999, which runs beside this file.
 */
const clusterBase = (random: number) => 30_000 + (random % 2_000);

const skip = clusterSkip();

describe('the cluster (PostgreSQL, the Temporal server with mTLS)', { skip }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'hbo-cluster-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps every workflow across a restart, and refuses a client without the certificate', async () => {
    const base = clusterBase(await freePort());
    const dataDir = join(dir, 'data');
    const workflowId = `kept-${Date.now()}`;
    let infra = await startClusterInfrastructure({ dataDir, basePort: base, log: () => undefined });
    try {
      assert.equal(infra.serverVersion, selectedRelease(), 'the version the server reports');
      const connection = await Connection.connect(
        temporalConnectionOptions({ ...infra.security, address: infra.address }),
      );
      try {
        // No worker polls this queue: the workflow just stays running, in PostgreSQL.
        await new Client({ connection }).workflow.start('bookRoom', {
          workflowId,
          taskQueue: `nobody-${workflowId}`,
          args: [],
        });
      } finally {
        await connection.close();
      }
      const noCert = loadConfig({
        TEMPORAL_ADDRESS: infra.address,
        TEMPORAL_TLS_CA: infra.certs.caCert,
      });
      await assert.rejects(connectBookingClient(noCert), (err: unknown) => {
        assert.ok(err instanceof TemporalConnectionRefusedError, String(err));
        assert.match(err.message, /requires a client certificate \(mTLS\)/);
        return true;
      });
      const plaintext = loadConfig({ TEMPORAL_ADDRESS: infra.address });
      await assert.rejects(
        Connection.connect({
          ...temporalConnectionOptions(plaintext.temporal),
          connectTimeout: 3_000,
        }),
      );
    } finally {
      await infra.stop();
    }

    infra = await startClusterInfrastructure({ dataDir, basePort: base, log: () => undefined });
    try {
      const connection = await Connection.connect(
        temporalConnectionOptions({ ...infra.security, address: infra.address }),
      );
      try {
        const d = await new Client({ connection }).workflow.getHandle(workflowId).describe();
        assert.equal(d.status.name, 'RUNNING', 'the workflow survived the restart');
        await new Client({ connection }).workflow.getHandle(workflowId).terminate('test done');
      } finally {
        await connection.close();
      }
    } finally {
      await infra.stop();
    }
  });

  it('serves a burst of visibility lists, one per booking start, without throttling; each finds a run whatever its division', async () => {
    // Every new booking lists its order's runs (src/activities/earlier-runs.ts). Temporal's
    // default visibility rate (10/s per frontend) throttled them and capped the cluster at ~10
    // bookings/s; the product's dynamic config raises it. No retries here: a throttled list fails.
    // The list is the product's own query, which PostgreSQL must accept and answer with a run
    // whose starter set a namespace division (out of Temporal's default filter).
    const base = clusterBase(await freePort());
    const infra = await startClusterInfrastructure({
      dataDir: join(dir, 'visibility'),
      basePort: base,
      log: () => undefined,
    });
    try {
      const connection = await Connection.connect({
        ...temporalConnectionOptions({ ...infra.security, address: infra.address }),
        interceptors: [],
      });
      try {
        const client = new Client({ connection, namespace: 'default' });
        const run = await client.workflow.start('nothing', {
          taskQueue: 'nobody-polls',
          workflowId: 'booking-burst-0',
          typedSearchAttributes: [{ key: TemporalNamespaceDivisionKey, value: 'orders' }],
        });
        const runsOf = async (workflowId: string) =>
          (
            await connection.workflowService.listWorkflowExecutions({
              namespace: 'default',
              pageSize: 100,
              query: everyRunQuery(workflowId),
            })
          ).executions.map((e) => e.execution?.runId);
        const listed = await eventually(
          async () => {
            const ids = await runsOf(run.workflowId);
            return ids.length > 0 && ids;
          },
          10_000,
          'the run with a division in the list',
        );
        assert.deepEqual(listed, [run.firstExecutionRunId]);
        await run.terminate();
        const codes = await Promise.all(
          Array.from({ length: 60 }, (_, i) =>
            runsOf(`booking-burst-${i}`).then(
              () => 'ok',
              (err: { code?: number; details?: string }) => `${err.code}: ${err.details}`,
            ),
          ),
        );
        assert.deepEqual(
          codes.filter((c) => c !== 'ok'),
          [],
        );
      } finally {
        await connection.close();
      }
    } finally {
      await infra.stop();
    }
  });

  it('names a busy port and how to move', async () => {
    const base = clusterBase(await freePort());
    const ports = clusterPorts(base);
    const blocker: Server = createServer();
    await new Promise<void>((r) => blocker.listen(ports.postgres, '127.0.0.1', () => r()));
    try {
      assert.deepEqual(await busyPorts(ports), [
        `port ${ports.postgres} (postgres) is in use: stop what listens there (a cluster already running?) or pass --base-port`,
      ]);
    } finally {
      blocker.close();
    }
    assert.throws(() => clusterPorts(37_233), /choose one from 1024 to 32700/);
  });

  it('a start that fails before the server leaves no PostgreSQL running', async () => {
    // The schema tool fails: PostgreSQL is up by then, and must be stopped again (the bench
    // removes the data directory of a failed start).
    const base = clusterBase(await freePort());
    const dataDir = join(dir, 'failing');
    const saved = process.env.TEMPORAL_SQL_TOOL_PATH;
    process.env.TEMPORAL_SQL_TOOL_PATH = '/bin/false';
    try {
      await assert.rejects(
        startClusterInfrastructure({ dataDir, basePort: base, log: () => undefined }),
        /^ClusterError: schema setup failed/,
      );
    } finally {
      if (saved === undefined) delete process.env.TEMPORAL_SQL_TOOL_PATH;
      else process.env.TEMPORAL_SQL_TOOL_PATH = saved;
    }
    assert.deepEqual(await busyPorts(clusterPorts(base)), []);
  });
});

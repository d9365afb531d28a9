/**
 * The Temporal service a part runs against: a dev server of its own on a fresh SQLite file (WAL,
 * headless, the realistic local setup; tools/temporal-server/dev-server.ts), or the cluster the
 * `cluster` part starts (tools/temporal-server/cluster.ts); and a client to it with the product's
 * data converter. The workflows are bundled once per run.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { temporalConnectionOptions } from '../../src/client/connection-options';
import type { TemporalSecurity } from '../../src/client/connection-options';
import { bundleWorkflows } from '../../src/workflow-bundle';
import { startDevServer, type DevServer } from '../../tools/temporal-server/dev-server';
import { BENCH_WORKFLOWS_PATH } from '../control';
import { benchDataConverter } from './worker';

/**
 * Bundles the workflows once for the whole bench run, the way production does at image build
 * time (`bundleWorkflows`: the failure converter compiled in), and returns the bundle's path.
 */
export async function bundleOnce(dir: string): Promise<string> {
  const { code } = await bundleWorkflows(BENCH_WORKFLOWS_PATH);
  const path = join(dir, 'workflow-bundle.js');
  writeFileSync(path, code);
  return path;
}

/** A Temporal service a part runs against: the bench's dev server or the cluster (bench/cluster/). */
export interface BenchTarget {
  readonly address: string;
  readonly client: Client;
  /** The `TEMPORAL_TLS_*` variables a worker process connects with (none for the dev server). */
  readonly temporalEnv: Readonly<Record<string, string>>;
  /** The server's processes, by name, whose CPU a part reports. */
  readonly serverPids: Readonly<Record<string, number>>;
  /**
   * Processes whose CPU counts with all their descendants' (PostgreSQL: the postmaster and a
   * backend per connection), by name; reported beside {@link serverPids}.
   */
  readonly serverProcessTrees?: Readonly<Record<string, number>>;
}

export interface BenchTemporal extends BenchTarget {
  readonly server: DevServer;
  /** The server's own Prometheus endpoint. */
  readonly metricsUrl: string;
  close(): Promise<void>;
}

/** A client with the bench's data converter, and its connection (closed by the caller). */
export async function benchClient(
  address: string,
  security: Partial<TemporalSecurity> = {},
): Promise<{ connection: Connection; client: Client }> {
  const connection = await Connection.connect(temporalConnectionOptions({ ...security, address }));
  return { connection, client: new Client({ connection, dataConverter: benchDataConverter() }) };
}

/**
 * A dev server on a fresh SQLite file in a temp dir, and a client to it. `dynamicConfig` goes over
 * the product's (a baseline without one of its settings, an experiment).
 */
export async function startBenchTemporal(
  dynamicConfig: Readonly<Record<string, string>> = {},
): Promise<BenchTemporal> {
  const dir = mkdtempSync(join(tmpdir(), 'hbo-bench-'));
  const server = await startDevServer({
    headless: true,
    dbFile: join(dir, 'temporal.db'),
    dynamicConfig,
  });
  const { connection, client } = await benchClient(server.address);
  return {
    server,
    address: server.address,
    temporalEnv: {},
    serverPids: server.pid !== undefined ? { server: server.pid } : {},
    metricsUrl: server.metricsUrl,
    client,
    async close() {
      await connection.close();
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

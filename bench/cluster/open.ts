/**
 * The cluster the `cluster` part runs on: the production topology of `npm run cluster`
 * (tools/temporal-server/cluster.ts) on free ports and a fresh database, as a target the parts'
 * stack runs against (bench/shared/stack.ts).
 */
import { join } from 'node:path';
import {
  busyPorts,
  ClusterError,
  startClusterInfrastructure,
  type ClusterProcesses,
} from '../../tools/temporal-server/cluster';
import { clusterPorts, maxBasePort } from '../../tools/temporal-server/cluster-ports';
import type { BenchSettings } from '../shared/settings';
import type { PartContext } from '../shared/stack';
import { benchClient, type BenchTarget } from '../shared/temporal';

/** A base port whose whole block is free now for `nodes` nodes, or the one asked for. */
async function freeBasePort(asked: number | undefined, nodes = 1): Promise<number> {
  if (asked !== undefined) return asked;
  const max = maxBasePort(nodes);
  for (let i = 0; i < 40; i++) {
    const base = 20_000 + Math.floor(Math.random() * (max - 20_100));
    if ((await busyPorts(clusterPorts(base, nodes))).length === 0) return base;
  }
  throw new ClusterError(
    'no free block of ports found for the cluster: set BENCH_CLUSTER_BASE_PORT',
  );
}

/** A cluster started for the part, its target, and how to stop it. */
export interface BenchCluster {
  readonly infra: ClusterProcesses;
  readonly target: BenchTarget;
  close(): Promise<void>;
}

/** A cluster of `nodes` server nodes on free ports and a fresh database under `parentDir`. */
export async function openBenchCluster(
  s: BenchSettings['cluster'],
  ctx: PartContext,
  nodes: number,
  parentDir: string,
): Promise<BenchCluster> {
  const infra = await startClusterInfrastructure({
    dataDir: join(parentDir, `nodes-${nodes}`),
    basePort: await freeBasePort(s.basePort, nodes),
    nodes,
    log: (l) => ctx.log(`cluster: ${l}`),
  });
  try {
    const { connection, client } = await benchClient(infra.address, infra.security);
    const target: BenchTarget = {
      address: infra.address,
      client,
      temporalEnv: infra.clientEnv,
      get serverPids(): Record<string, number> {
        return serverNodePids(infra.pids().nodes);
      },
      get serverProcessTrees(): Record<string, number> {
        const p = infra.pids();
        return {
          ...(p.postgres !== undefined ? { postgres: p.postgres } : {}),
          ...(p.balancer !== undefined ? { balancer: p.balancer } : {}),
        };
      },
    };
    return {
      infra,
      target,
      close: async () => {
        await connection.close().catch(() => undefined);
        await infra.stop();
      },
    };
  } catch (err) {
    await infra.stop();
    throw err;
  }
}

/** Each running node's pid, by the name its CPU is reported under: `server`, `server-2`, … */
export function serverNodePids(nodes: readonly (number | undefined)[]): Record<string, number> {
  const out: Record<string, number> = {};
  nodes.forEach((pid, i) => {
    if (pid !== undefined) out[i === 0 ? 'server' : `server-${i + 1}`] = pid;
  });
  return out;
}

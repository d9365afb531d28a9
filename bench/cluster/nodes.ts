/**
 * Several server nodes beside one (`BENCH_CLUSTER_NODES`): the one-worker throughput pass again on
 * a cluster of that many nodes behind the balancer, on a database of its own.
 */
import type { BenchSettings } from '../shared/settings';
import type { PartContext } from '../shared/stack';
import { round } from '../shared/stats';
import { runThroughputBench } from '../throughput/throughput';
import { SERVER_PROCESSES, serverProcessesOf, sumCpu } from './figures';
import { openBenchCluster } from './open';
import type { ClusterNodesComparison, ClusterThroughput } from './types';

/** Several server nodes beside one: the one-worker throughput pass again, on `s.nodes` nodes. */
export async function compareNodes(
  s: BenchSettings['cluster'],
  ctx: PartContext,
  dataDir: string,
  oneNode: ClusterThroughput | undefined,
): Promise<ClusterNodesComparison> {
  const cluster = await openBenchCluster(s, ctx, s.nodes, dataDir);
  try {
    ctx.log(`cluster: throughput on ${s.nodes} nodes, 1 worker process`);
    const r = await runThroughputBench(s.throughput, ctx, {
      temporal: cluster.target,
      workers: 1,
      control: 'controlTwoStep',
      rounds: s.rounds,
    });
    const processes = serverProcessesOf(r);
    const serverCpuMsPerBooking = round(sumCpu(r.cpuMsPerWorkflow.booking, processes), 1);
    const oneNodeServerCpuMsPerBooking = oneNode
      ? round(sumCpu(oneNode.cpuMsPerWorkflow.booking, SERVER_PROCESSES), 1)
      : undefined;
    return {
      nodes: s.nodes,
      shards: cluster.infra.shards,
      bookingsPerSecond: r.bookingsPerSecond,
      controlWorkflowsPerSecond: r.controlWorkflowsPerSecond,
      ratioToControl: round(r.bookingsPerSecond / r.controlWorkflowsPerSecond, 3),
      serverCpuMsPerBooking,
      ...(oneNode
        ? {
            bookingsPerSecondRatioToOneNode: round(
              r.bookingsPerSecond / oneNode.bookingsPerSecond,
              3,
            ),
            oneNodeServerCpuMsPerBooking,
            serverCpuRatioToOneNode: round(
              serverCpuMsPerBooking / oneNodeServerCpuMsPerBooking!,
              3,
            ),
          }
        : {}),
    };
  } finally {
    await cluster.close();
  }
}

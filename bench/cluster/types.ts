/** What the `cluster` part reports (bench/cluster/cluster.ts). */
import type { OverheadAtLatency } from '../overhead/overhead';
import type { Spread } from '../shared/stats';
import type { ThroughputResult } from '../throughput/throughput';

export interface ClusterThroughput extends ThroughputResult {
  /** Confirmed bookings/s ÷ two-activity control workflows/s, same cluster, workers and run. */
  readonly ratioToControl: number;
  /** Server CPU (Temporal + PostgreSQL) per booking ÷ per control: each round's, over rounds. */
  readonly serverCpuRatioOfRounds: Spread;
}

/** The one-worker throughput pass on several server nodes, beside the same pass on one. */
export interface ClusterNodesComparison {
  readonly nodes: number;
  readonly shards: number;
  readonly bookingsPerSecond: number;
  readonly controlWorkflowsPerSecond: number;
  readonly ratioToControl: number;
  /** Temporal (every node) + PostgreSQL + the balancer, CPU ms per confirmed booking. */
  readonly serverCpuMsPerBooking: number;
  /** Bookings/s on these nodes ÷ on one node, same run, one worker. */
  readonly bookingsPerSecondRatioToOneNode?: number;
  readonly oneNodeServerCpuMsPerBooking?: number | undefined;
  /** Server CPU per booking on these nodes ÷ on one node. */
  readonly serverCpuRatioToOneNode?: number;
}

/** One latency: the cluster's overhead figures beside the dev server's. */
export interface ClusterVsDevServer {
  readonly latencyMs: number;
  readonly clusterRp50: number;
  readonly devServerRp50: number;
  readonly clusterBookRoomP50Ms: number;
  readonly devServerBookRoomP50Ms: number;
  /** bookRoom p50 on the cluster ÷ on the dev server. */
  readonly bookRoomP50Ratio: number;
  readonly clusterControlP50Ms: number;
  readonly devServerControlP50Ms: number;
  /** Where the dev server figures come from: the `overhead` part, or this part. */
  readonly devServerFrom: 'overhead part' | 'cluster part';
}

export type ClusterBenchResult =
  | { readonly skipped: string }
  | {
      readonly topology: string;
      /** Cluster start (PostgreSQL initdb, schemas, server, namespace), s. */
      readonly startSeconds: number;
      /** By worker count: `workers1`, `workers2`, … */
      readonly throughput: Record<string, ClusterThroughput>;
      /** Confirmed bookings/s by worker count, e.g. `{ "1": 30.1, "2": 35.2, "3": 36 }`. */
      readonly bookingsPerSecond: Record<string, number>;
      /** The cluster's overhead part, by latency (`latency20`). */
      readonly overhead: Record<string, OverheadAtLatency>;
      readonly vsDevServer: Record<string, ClusterVsDevServer>;
      /** The `throughput` part's bookings/s and control/s on the dev server (1 worker), when it ran. */
      readonly devServerThroughput?: {
        bookingsPerSecond: number;
        controlWorkflowsPerSecond: number;
      };
      /** Several server nodes beside one, when asked (`BENCH_CLUSTER_NODES`). */
      readonly nodes?: ClusterNodesComparison;
      /** The figures under the results log's names ({@link clusterFigures}). */
      readonly figures?: Record<string, string>;
    };

/** What the dev-server parts of the same run measured, to set beside the cluster's. */
export interface DevServerFigures {
  readonly overhead?: Record<string, OverheadAtLatency> | undefined;
  readonly throughput?: ThroughputResult | undefined;
}

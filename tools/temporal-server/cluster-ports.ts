/**
 * Every port of the local cluster, from one base port (pure). One node keeps the layout it always
 * had (its frontend is the base port, the address clients use). Several nodes each get a block of
 * their own from base+60, and a balancer takes the base port in front of their frontends, so
 * clients and workers keep one address whatever the node count.
 */

import { ClusterError } from './cluster-error';

/** The server keeps membership ports in a PostgreSQL `smallint` (`cluster_membership.rpc_port`). */
export const MAX_MEMBERSHIP_PORT = 32_767;
/** One node per machine of a real deployment; 5 is as many as one small host carries. */
export const MAX_CLUSTER_NODES = 5;
/** First port of the second layout's node blocks (after the workers' health and metrics ports). */
const NODE_BLOCKS_FROM = 60;
const NODE_BLOCK = 10;

/** One server node's ports: every service runs on every node. */
export interface NodePorts {
  readonly frontend: number;
  readonly frontendHttp: number;
  readonly frontendMembership: number;
  readonly history: number;
  readonly historyMembership: number;
  readonly matching: number;
  readonly matchingMembership: number;
  readonly worker: number;
  readonly workerMembership: number;
  /** The node's Prometheus endpoint (the server's own metrics). */
  readonly metrics: number;
}

export interface ClusterPorts {
  /** The address clients and workers use: the one node's frontend, or the balancer's. */
  readonly frontend: number;
  readonly nodes: readonly NodePorts[];
  readonly postgres: number;
  readonly ui: number;
  readonly codec: number;
  readonly simulator: number;
  /** Prometheus's web UI and API (when the binary is there). */
  readonly prometheus: number;
  /** Alertmanager's web UI and API (when the binary is there). */
  readonly alertmanager: number;
  /** The local alert receiver, where Alertmanager sends unless told otherwise. */
  readonly alertReceiver: number;
}

/** Highest base port for `nodes` nodes: every membership port stays a PostgreSQL smallint. */
export function maxBasePort(nodes: number): number {
  return nodes === 1
    ? MAX_MEMBERSHIP_PORT - 67
    : MAX_MEMBERSHIP_PORT - (NODE_BLOCKS_FROM + NODE_BLOCK * (nodes - 1) + 8);
}

/** The one node of a single-node cluster: its frontend on the base port, as it always was. */
function singleNode(base: number): NodePorts {
  return {
    frontend: base,
    frontendHttp: base + 1,
    history: base + 2,
    historyMembership: base + 3,
    matching: base + 4,
    matchingMembership: base + 5,
    worker: base + 6,
    workerMembership: base + 7,
    frontendMembership: base + 8,
    metrics: base + 9,
  };
}

/** Node `i` (from 0) of a cluster of several: its own block from base+60. */
function blockNode(base: number, i: number): NodePorts {
  const b = base + NODE_BLOCKS_FROM + NODE_BLOCK * i;
  return {
    frontend: b,
    frontendHttp: b + 1,
    history: b + 2,
    historyMembership: b + 3,
    matching: b + 4,
    matchingMembership: b + 5,
    worker: b + 6,
    workerMembership: b + 7,
    frontendMembership: b + 8,
    metrics: b + 9,
  };
}

export function clusterPorts(base: number, nodes = 1): ClusterPorts {
  if (!Number.isInteger(nodes) || nodes < 1 || nodes > MAX_CLUSTER_NODES) {
    throw new ClusterError(
      `--nodes ${nodes}: choose a whole number from 1 to ${MAX_CLUSTER_NODES}`,
    );
  }
  const max = maxBasePort(nodes);
  if (!Number.isInteger(base) || base < 1024 || base > max) {
    throw new ClusterError(
      `base port ${base}: choose one from 1024 to ${max} (membership ports are stored as a PostgreSQL smallint)`,
    );
  }
  return {
    frontend: base,
    nodes:
      nodes === 1
        ? [singleNode(base)]
        : Array.from({ length: nodes }, (_, i) => blockNode(base, i)),
    postgres: base + 10,
    ui: base + 11,
    codec: base + 12,
    simulator: base + 13,
    prometheus: base + 14,
    alertmanager: base + 15,
    alertReceiver: base + 16,
  };
}

/** Every port with the name a busy-port line gives it (`node2.history`, `postgres`, …). */
export function namedPorts(ports: ClusterPorts): [name: string, port: number][] {
  const named: [string, number][] = [];
  const several = ports.nodes.length > 1;
  if (several) named.push(['balancer', ports.frontend]);
  ports.nodes.forEach((node, i) => {
    for (const [name, port] of Object.entries(node)) {
      named.push([several ? `node${i + 1}.${name}` : name, port]);
    }
  });
  const { frontend: _f, nodes: _n, ...shared } = ports;
  named.push(...Object.entries(shared));
  return named;
}

/** Health port of the i-th worker. */
export const workerHealthPort = (base: number, i: number) => base + 20 + i;
/** Metrics port of the i-th worker (Prometheus scrapes each; the SDK's exporter is behind it). */
export const workerMetricsPort = (base: number, i: number) => base + 40 + i;

/** What the cluster's Prometheus scrapes: each of `workers` workers, and each server node. */
export function clusterScrapeJobs(ports: ClusterPorts, workers: number) {
  return {
    'hotel-worker': Array.from(
      { length: workers },
      (_, i) => `127.0.0.1:${workerMetricsPort(ports.frontend, i)}`,
    ),
    'temporal-server': ports.nodes.map((n) => `127.0.0.1:${n.metrics}`),
  };
}

/**
 * The cluster part of `npm run bench`: the production topology of `npm run cluster`
 * (PostgreSQL, Temporal server 1.29.1 with 16 history shards and mTLS; tools/temporal-server/cluster.ts)
 * started for the part on a fresh PostgreSQL data directory in a temp dir and free ports, then:
 *
 * - throughput (bench/throughput.ts, the same measurement as the `throughput` part) with 1, 2 and
 *   3 worker processes on one task queue, each beside the two-activity control workflow
 *   (`controlTwoStep`, a booking's floor) on the same cluster and workers (bookings/s ÷ control
 *   workflows/s is the ratio), and the CPU of each kind's windows per workflow, by process, the
 *   Temporal server's and PostgreSQL's (the postmaster and its backends) among them. One worker,
 *   the production regime (a worker per machine), runs `rounds` alternating rounds (the targets'
 *   median and spread); more workers on the same cores, one ABBA pair;
 * - overhead (bench/overhead.ts) on the cluster at 20 ms, beside the dev server's of the same run
 *   (the `overhead` part's figures; when that part is not run, this part measures the dev server
 *   itself with the same settings).
 *
 * The cluster is stopped and its data directory removed at the end. When its binaries are missing,
 * startClusterInfrastructure builds them (go install, it says what and how long); without Go or
 * PostgreSQL the part is skipped with one line saying how to get them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { temporalConnectionOptions } from '../src/client/connection-options';
import {
  busyPorts,
  CLUSTER_HISTORY_SHARDS,
  ClusterError,
  startClusterInfrastructure,
  type ClusterProcesses,
} from '../tools/temporal-server/cluster';
import { clusterPorts, maxBasePort } from '../tools/temporal-server/cluster-ports';
import { ClusterBuildError } from '../tools/temporal-server/cluster-binaries';
import type { BenchSettings } from './bench-config';
import type { BenchTarget } from './bench-stack';
import { benchDataConverter } from './bench-worker';
import { runOverheadBench, type OverheadAtLatency, type OverheadContext } from './overhead';
import { runThroughputBench, type ThroughputResult } from './throughput';
import { round, spread, type Spread } from './stats';

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
      /** The figures under the README table's names ({@link clusterFigures}). */
      readonly figures?: Record<string, string>;
    };

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

/** What the dev-server parts of the same run measured, to set beside the cluster's. */
export interface DevServerFigures {
  readonly overhead?: Record<string, OverheadAtLatency> | undefined;
  readonly throughput?: ThroughputResult | undefined;
}

export async function runClusterBench(
  s: BenchSettings['cluster'],
  ctx: OverheadContext,
  devServer: DevServerFigures,
): Promise<ClusterBenchResult> {
  const devServerOverhead = devServer.overhead;
  const dataDir = mkdtempSync(join(tmpdir(), 'hbo-bench-cluster-'));
  let open: BenchCluster | undefined;
  try {
    const started = performance.now();
    try {
      open = await openBenchCluster(s, ctx, 1, dataDir);
    } catch (err) {
      // Only what a machine lacks is a skip (no Go to build the binaries, no PostgreSQL); a
      // cluster that fails to start is a failure of the part.
      const lacks =
        err instanceof ClusterBuildError ||
        (err instanceof ClusterError && err.message.startsWith('PostgreSQL is not installed'));
      if (lacks) {
        const line = `skipped: ${err.message} (then \`BENCH_PARTS=cluster npm run bench\` runs this part alone)`;
        ctx.log(`cluster: ${line}`);
        return { skipped: line };
      }
      throw err;
    }
    const startSeconds = round((performance.now() - started) / 1000, 1);
    const { target } = open;

    const throughput: Record<string, ClusterThroughput> = {};
    const bookingsPerSecond: Record<string, number> = {};
    for (const workers of s.workers) {
      ctx.log(`cluster: throughput with ${workers} worker process(es)`);
      const r = await runThroughputBench(s.throughput, ctx, {
        temporal: target,
        workers,
        control: 'controlTwoStep',
        rounds: workers === 1 ? s.rounds : 2,
      });
      const ratioToControl = round(r.bookingsPerSecond / r.controlWorkflowsPerSecond, 3);
      const serverCpuRatioOfRounds = spread(r.rounds.map((x) => cpuRatio(x, SERVER_PROCESSES)));
      throughput[`workers${workers}`] = { ...r, ratioToControl, serverCpuRatioOfRounds };
      bookingsPerSecond[String(workers)] = r.bookingsPerSecond;
      ctx.log(
        `cluster: ${workers} worker(s): ${r.bookingsPerSecond} bookings/s, control ${r.controlWorkflowsPerSecond}/s (ratio ${ratioToControl})`,
      );
    }

    ctx.log('cluster: overhead (1 worker process)');
    const overhead = await runOverheadBench(s.overhead, ctx, target);
    const missing = s.overhead.latenciesMs.some((l) => !devServerOverhead?.[`latency${l}`]);
    const devServerFrom = missing ? 'cluster part' : 'overhead part';
    const dev = missing
      ? (ctx.log('cluster: overhead on a dev server, for the comparison (no overhead part ran)'),
        await runOverheadBench(s.overhead, ctx))
      : (devServerOverhead as Record<string, OverheadAtLatency>);
    const vsDevServer: Record<string, ClusterVsDevServer> = {};
    for (const [key, c] of Object.entries(overhead)) {
      const d = dev[key];
      if (!d) continue;
      vsDevServer[key] = {
        latencyMs: c.latencyMs,
        clusterRp50: c.p50,
        devServerRp50: d.p50,
        clusterBookRoomP50Ms: c.workflowMs.p50,
        devServerBookRoomP50Ms: d.workflowMs.p50,
        bookRoomP50Ratio: round(c.workflowMs.p50 / d.workflowMs.p50, 3),
        clusterControlP50Ms: c.controlMs.p50,
        devServerControlP50Ms: d.controlMs.p50,
        devServerFrom,
      };
    }
    const result = {
      topology: `Temporal server ${open.infra.serverVersion}, ${CLUSTER_HISTORY_SHARDS} history shards, mTLS, PostgreSQL; workers as child processes`,
      startSeconds,
      throughput,
      bookingsPerSecond,
      overhead,
      vsDevServer,
      ...(devServer.throughput
        ? {
            devServerThroughput: {
              bookingsPerSecond: devServer.throughput.bookingsPerSecond,
              controlWorkflowsPerSecond: devServer.throughput.controlWorkflowsPerSecond,
            },
          }
        : {}),
    };
    await open.close();
    open = undefined;
    const nodes =
      s.nodes > 1 ? await compareNodes(s, ctx, dataDir, throughput.workers1) : undefined;
    const withNodes = { ...result, ...(nodes ? { nodes } : {}) };
    return { ...withNodes, figures: clusterFigures(withNodes) };
  } finally {
    await open?.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

interface BenchCluster {
  readonly infra: ClusterProcesses;
  readonly target: BenchTarget;
  close(): Promise<void>;
}

/** A cluster of `nodes` server nodes on free ports and a fresh database under `parentDir`. */
async function openBenchCluster(
  s: BenchSettings['cluster'],
  ctx: OverheadContext,
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
    const connection = await Connection.connect(
      temporalConnectionOptions({ ...infra.security, address: infra.address }),
    );
    const target: BenchTarget = {
      address: infra.address,
      client: new Client({ connection, dataConverter: benchDataConverter() }),
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

/** Several server nodes beside one: the one-worker throughput pass again, on `s.nodes` nodes. */
async function compareNodes(
  s: BenchSettings['cluster'],
  ctx: OverheadContext,
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

/** Each node's server process, PostgreSQL and the balancer: the server side of several nodes. */
function serverProcessesOf(r: Pick<ThroughputResult, 'cpuMsPerWorkflow'>): string[] {
  return Object.keys(r.cpuMsPerWorkflow.booking).filter(
    (p) => p === 'postgres' || p === 'balancer' || p === 'server' || p.startsWith('server-'),
  );
}

const sumCpu = (per: Readonly<Record<string, number>>, processes: readonly string[]) =>
  processes.reduce((total, p) => total + (per[p] ?? NaN), 0);

/**
 * The part's figures under the names the README's table uses (also written into the results as
 * `cluster.figures`).
 */
export function clusterFigures(r: ClusterBenchResult): Record<string, string> {
  if ('skipped' in r) return { 'Cluster part': r.skipped };
  const counts = Object.keys(r.bookingsPerSecond);
  const each = (f: (t: ClusterThroughput) => number) =>
    counts.map((n) => String(r.throughput[`workers${n}`] ? f(r.throughput[`workers${n}`]!) : '–'));
  const workers = `${counts.join(' / ')} worker${counts.join() === '1' ? '' : 's'}`;
  const out: Record<string, string> = {
    [`Cluster: confirmed bookings/s with ${workers}`]: each((t) => t.bookingsPerSecond).join(' / '),
    [`Cluster: two-activity control workflows/s with ${workers}`]: each(
      (t) => t.controlWorkflowsPerSecond,
    ).join(' / '),
    [`Cluster: bookings/s ÷ control workflows/s with ${workers}`]: each(
      (t) => t.ratioToControl,
    ).join(' / '),
    [`Cluster: server CPU (Temporal + PostgreSQL) per booking ÷ per control with ${workers}`]: each(
      (t) => cpuRatio(t, SERVER_PROCESSES),
    ).join(' / '),
    [`Cluster: all processes' CPU per booking ÷ per control with ${workers}`]: each((t) =>
      cpuRatio(t, ['all']),
    ).join(' / '),
  };
  const one = r.throughput.workers1;
  if (one?.rounds) {
    out["Cluster: one worker's rounds, bookings/s ÷ control workflows/s"] = one.rounds
      .map((x) => x.ratio)
      .join(' / ');
    out[
      "Cluster: one worker's rounds, server CPU (Temporal + PostgreSQL) per booking ÷ per control"
    ] = one.rounds.map((x) => cpuRatio(x, SERVER_PROCESSES)).join(' / ');
  }
  if (r.devServerThroughput && one) {
    const d = r.devServerThroughput;
    out['Cluster: bookings/s and control/s, 1 worker, vs dev server'] =
      `${one.bookingsPerSecond} / ${one.controlWorkflowsPerSecond} vs ${d.bookingsPerSecond} / ${d.controlWorkflowsPerSecond}`;
  }
  if (r.nodes?.bookingsPerSecondRatioToOneNode !== undefined) {
    const n = r.nodes;
    out[`Cluster: ${n.nodes} nodes ÷ 1 node, confirmed bookings/s (1 worker)`] =
      `${n.bookingsPerSecondRatioToOneNode} (${n.bookingsPerSecond} vs ${one?.bookingsPerSecond})`;
    out[
      `Cluster: server CPU ms per booking (Temporal + PostgreSQL + balancer), ${n.nodes} nodes vs 1 node`
    ] =
      `${n.serverCpuMsPerBooking} vs ${n.oneNodeServerCpuMsPerBooking} (${n.serverCpuRatioToOneNode}×)`;
  }
  for (const v of Object.values(r.vsDevServer)) {
    out[`Cluster: bookRoom p50 ms vs dev server (${v.latencyMs} ms)`] =
      `${v.clusterBookRoomP50Ms} vs ${v.devServerBookRoomP50Ms} (${v.bookRoomP50Ratio}×)`;
    out[`Cluster: overhead R p50 vs dev server (${v.latencyMs} ms)`] =
      `${v.clusterRp50} vs ${v.devServerRp50}`;
    out[`Cluster: no-op control p50 ms vs dev server (${v.latencyMs} ms)`] =
      `${v.clusterControlP50Ms} vs ${v.devServerControlP50Ms}`;
  }
  return out;
}

/** Each running node's pid, by the name its CPU is reported under: `server`, `server-2`, … */
export function serverNodePids(nodes: readonly (number | undefined)[]): Record<string, number> {
  const out: Record<string, number> = {};
  nodes.forEach((pid, i) => {
    if (pid !== undefined) out[i === 0 ? 'server' : `server-${i + 1}`] = pid;
  });
  return out;
}

/** The server side of the cluster: Temporal and PostgreSQL. */
const SERVER_PROCESSES = ['server', 'postgres'];

/** CPU ms per booking ÷ per control, summed over `processes`. Pure. */
export function cpuRatio(t: Pick<ThroughputResult, 'cpuMsPerWorkflow'>, processes: string[]) {
  const sum = (per: Readonly<Record<string, number>>) =>
    processes.reduce((total, p) => total + (per[p] ?? NaN), 0);
  return round(sum(t.cpuMsPerWorkflow.booking) / sum(t.cpuMsPerWorkflow.control), 3);
}

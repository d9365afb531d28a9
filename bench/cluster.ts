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
  MAX_CLUSTER_BASE_PORT,
  startClusterInfrastructure,
  type ClusterProcesses,
} from '../tools/temporal-server/cluster';
import { clusterPorts } from '../tools/temporal-server/cluster-ports';
import {
  ClusterBuildError,
  TEMPORAL_SERVER_VERSION,
} from '../tools/temporal-server/cluster-binaries';
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
      /** The figures under the README table's names ({@link clusterFigures}). */
      readonly figures?: Record<string, string>;
    };

/** A base port whose whole block (base … base+13) is free now, or the one asked for. */
async function freeBasePort(asked: number | undefined): Promise<number> {
  if (asked !== undefined) return asked;
  for (let i = 0; i < 40; i++) {
    const base = 20_000 + Math.floor(Math.random() * (MAX_CLUSTER_BASE_PORT - 20_100));
    if ((await busyPorts(clusterPorts(base))).length === 0) return base;
  }
  throw new ClusterError(
    'no free block of 14 ports found for the cluster: set BENCH_CLUSTER_BASE_PORT',
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
  let infra: ClusterProcesses | undefined;
  let connection: Connection | undefined;
  try {
    const started = performance.now();
    try {
      infra = await startClusterInfrastructure({
        dataDir,
        basePort: await freeBasePort(s.basePort),
        log: (l) => ctx.log(`cluster: ${l}`),
      });
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
    connection = await Connection.connect(
      temporalConnectionOptions({ ...infra.security, address: infra.address }),
    );
    const cluster = infra;
    const target: BenchTarget = {
      address: cluster.address,
      client: new Client({ connection, dataConverter: benchDataConverter() }),
      temporalEnv: cluster.clientEnv,
      get serverPids(): Record<string, number> {
        return serverNodePids(cluster.pids().nodes);
      },
      get serverProcessTrees(): Record<string, number> {
        const p = cluster.pids();
        return p.postgres !== undefined ? { postgres: p.postgres } : {};
      },
    };

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
      topology: `Temporal server ${TEMPORAL_SERVER_VERSION}, ${CLUSTER_HISTORY_SHARDS} history shards, mTLS, PostgreSQL; workers as child processes`,
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
    return { ...result, figures: clusterFigures(result) };
  } finally {
    await connection?.close().catch(() => undefined);
    await infra?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * The part's figures under the names the README's table uses (also written into the results as
 * `cluster.figures`).
 */
export function clusterFigures(r: ClusterBenchResult): Record<string, string> {
  if ('skipped' in r) return { 'Cluster part': r.skipped };
  const counts = Object.keys(r.bookingsPerSecond);
  const each = (f: (t: ClusterThroughput) => number) =>
    counts.map((n) => String(r.throughput[`workers${n}`] ? f(r.throughput[`workers${n}`]!) : '–'));
  const workers = counts.join(' / ');
  const out: Record<string, string> = {
    [`Cluster: confirmed bookings/s with ${workers} workers`]: each(
      (t) => t.bookingsPerSecond,
    ).join(' / '),
    [`Cluster: two-activity control workflows/s with ${workers} workers`]: each(
      (t) => t.controlWorkflowsPerSecond,
    ).join(' / '),
    [`Cluster: bookings/s ÷ control workflows/s with ${workers} workers`]: each(
      (t) => t.ratioToControl,
    ).join(' / '),
    [`Cluster: server CPU (Temporal + PostgreSQL) per booking ÷ per control with ${workers} workers`]:
      each((t) => cpuRatio(t, SERVER_PROCESSES)).join(' / '),
    [`Cluster: all processes' CPU per booking ÷ per control with ${workers} workers`]: each((t) =>
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

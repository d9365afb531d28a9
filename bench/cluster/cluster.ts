/**
 * The cluster part of `npm run bench`: the production topology of `npm run cluster`
 * (PostgreSQL, the selected Temporal release with 16 history shards and mTLS;
 * tools/temporal-server/cluster.ts)
 * started for the part on a fresh PostgreSQL data directory in a temp dir and free ports, then:
 *
 * - throughput (bench/throughput/, the same measurement as the `throughput` part) with 1, 2 and
 *   3 worker processes on one task queue, each beside the two-activity control workflow
 *   (`controlTwoStep`, a booking's floor) on the same cluster and workers (bookings/s ÷ control
 *   workflows/s is the ratio), and the CPU of each kind's windows per workflow, by process, the
 *   Temporal server's and PostgreSQL's (the postmaster and its backends) among them. One worker,
 *   the production regime (a worker per machine), runs `rounds` alternating rounds (the targets'
 *   median and spread); more workers on the same cores, one ABBA pair;
 * - overhead (bench/overhead/) on the cluster at 20 ms, beside the dev server's of the same run
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
import { CLUSTER_HISTORY_SHARDS, ClusterError } from '../../tools/temporal-server/cluster';
import { ClusterBuildError } from '../../tools/temporal-server/cluster-binaries';
import { runOverheadBench, type OverheadAtLatency } from '../overhead/overhead';
import type { BenchSettings } from '../shared/settings';
import type { PartContext } from '../shared/stack';
import { round, spread } from '../shared/stats';
import type { BenchTarget } from '../shared/temporal';
import { runThroughputBench } from '../throughput/throughput';
import { clusterFigures, cpuRatio, SERVER_PROCESSES } from './figures';
import { compareNodes } from './nodes';
import { openBenchCluster, type BenchCluster } from './open';
import type {
  ClusterBenchResult,
  ClusterThroughput,
  ClusterVsDevServer,
  DevServerFigures,
} from './types';

export { clusterFigures } from './figures';
export type { ClusterBenchResult, DevServerFigures } from './types';

type Settings = BenchSettings['cluster'];

/**
 * The one-node cluster, or why this machine cannot run it: only what a machine lacks is a skip
 * (no Go to build the binaries, no PostgreSQL); a cluster that fails to start is a failure.
 */
async function openOrSkip(
  s: Settings,
  ctx: PartContext,
  dataDir: string,
): Promise<BenchCluster | { skipped: string }> {
  try {
    return await openBenchCluster(s, ctx, 1, dataDir);
  } catch (err) {
    const lacks =
      err instanceof ClusterBuildError ||
      (err instanceof ClusterError && err.message.startsWith('PostgreSQL is not installed'));
    if (!lacks) throw err;
    const line = `skipped: ${err.message} (then \`BENCH_PARTS=cluster npm run bench\` runs this part alone)`;
    ctx.log(`cluster: ${line}`);
    return { skipped: line };
  }
}

/** The throughput pass with each worker count, beside the two-activity control. */
async function throughputs(s: Settings, ctx: PartContext, target: BenchTarget) {
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
  return { throughput, bookingsPerSecond };
}

/**
 * The overhead part on the cluster, beside the dev server's of the same run (measured here when
 * the `overhead` part did not run).
 */
async function overheadVsDevServer(
  s: Settings,
  ctx: PartContext,
  target: BenchTarget,
  devServerOverhead: Record<string, OverheadAtLatency> | undefined,
) {
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
  return { overhead, vsDevServer };
}

/** The `throughput` part's bookings/s and control/s on the dev server, when it ran. */
function devServerThroughput(devServer: DevServerFigures) {
  const t = devServer.throughput;
  if (!t) return {};
  const { bookingsPerSecond, controlWorkflowsPerSecond } = t;
  return { devServerThroughput: { bookingsPerSecond, controlWorkflowsPerSecond } };
}

export async function runClusterBench(
  s: Settings,
  ctx: PartContext,
  devServer: DevServerFigures,
): Promise<ClusterBenchResult> {
  const dataDir = mkdtempSync(join(tmpdir(), 'hbo-bench-cluster-'));
  let open: BenchCluster | undefined;
  try {
    const started = performance.now();
    const opened = await openOrSkip(s, ctx, dataDir);
    if ('skipped' in opened) return opened;
    open = opened;
    const startSeconds = round((performance.now() - started) / 1000, 1);
    const { throughput, bookingsPerSecond } = await throughputs(s, ctx, open.target);
    const overheads = await overheadVsDevServer(s, ctx, open.target, devServer.overhead);
    const result = {
      topology: `Temporal server ${open.infra.serverVersion}, ${CLUSTER_HISTORY_SHARDS} history shards, mTLS, PostgreSQL; workers as child processes`,
      startSeconds,
      throughput,
      bookingsPerSecond,
      ...overheads,
      ...devServerThroughput(devServer),
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

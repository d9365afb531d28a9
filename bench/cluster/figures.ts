/**
 * The `cluster` part's figures under the names the results log's table uses (also written into
 * the results as `cluster.figures`), and the CPU sums they are made of. Pure.
 */
import { round } from '../shared/stats';
import type { ThroughputResult } from '../throughput/throughput';
import type { ClusterBenchResult, ClusterThroughput } from './types';

export type { ClusterBenchResult } from './types';

/** The server side of the cluster: Temporal and PostgreSQL. */
export const SERVER_PROCESSES = ['server', 'postgres'];

/** Each node's server process, PostgreSQL and the balancer: the server side of several nodes. */
export function serverProcessesOf(r: Pick<ThroughputResult, 'cpuMsPerWorkflow'>): string[] {
  return Object.keys(r.cpuMsPerWorkflow.booking).filter(
    (p) => p === 'postgres' || p === 'balancer' || p === 'server' || p.startsWith('server-'),
  );
}

export const sumCpu = (per: Readonly<Record<string, number>>, processes: readonly string[]) =>
  processes.reduce((total, p) => total + (per[p] ?? NaN), 0);

/**
 * The part's figures under the names the results log's tables use (also written into the results
 * as `cluster.figures`).
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

/** CPU ms per booking ÷ per control, summed over `processes`. Pure. */
export function cpuRatio(t: Pick<ThroughputResult, 'cpuMsPerWorkflow'>, processes: string[]) {
  const sum = (per: Readonly<Record<string, number>>) =>
    processes.reduce((total, p) => total + (per[p] ?? NaN), 0);
  return round(sum(t.cpuMsPerWorkflow.booking) / sum(t.cpuMsPerWorkflow.control), 3);
}

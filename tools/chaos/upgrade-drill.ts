/**
 * The server-upgrade drill (`npm run chaos -- server-upgrade`): the cluster of
 * `npm run cluster -- --nodes 3` started on the oldest supported Temporal release, three worker
 * processes, bookings across every scenario; while they run, the cluster is upgraded one minor
 * release at a time to the newest, as Temporal documents it — the schemas first with the new
 * release's SQL tool, then each node in turn stopped and started on the new binary. Passes with
 * 0 lost, duplicated or stuck orders, every reconciliation and workflow task timeout explained and
 * no reconciliation of a booking call that never left, the newest release reported at the end, and
 * bookings flowing again within a minute of each node's replacement. Prints the figures of each
 * step.
 */
import {
  OLDEST_RELEASE,
  SUPPORTED_RELEASES,
  type TemporalRelease,
} from '../../src/shared/temporal-releases';
import type { NodeUpgrade } from '../temporal-server/cluster';
import { simulatorOf } from '../stack/cluster-stack';
import { formatCounts, waitForSettled } from './audit';
import { SCENARIO_MIX, orderIdFor, pick, prng } from './booking-mix';
import type { KillRecord } from './crash-drill';
import { startDrillCluster } from './drill-cluster';
import { judgeDrill, reconciliationLine, type DrillVerdict } from './drill-verdict';
import { flowAgainMs } from './node-drill-figures';
import { explainedTaskTimeouts, startOrders, startProbes } from './node-drill';

/** Bookings start over this window; the upgrade runs from 15 s into it, node by node. */
const START_WINDOW_MS = 60_000;

/** A node's replacement must have bookings flowing again within this. */
export const FLOW_AGAIN_WITHIN_MS = 60_000;

export interface UpgradeDrillOptions {
  /** @default 150 */
  readonly bookings?: number;
  /** @default 3 */
  readonly workers?: number;
  /** @default 3 */
  readonly nodes?: number;
  /** @default the oldest supported release */
  readonly from?: TemporalRelease;
  readonly dataDir: string;
  /** @default 27833 (apart from the other drills and the suite's cluster) */
  readonly basePort?: number;
  readonly seed?: number;
  /** @default 300000 */
  readonly settleTimeoutMs?: number;
  readonly log?: (line: string) => void;
}

export interface UpgradeStep {
  readonly release: TemporalRelease;
  /** What the servers reported after the step. */
  readonly serverVersion: string;
  /** The schema update and every node, ms. */
  readonly durationMs: number;
  readonly nodes: readonly (NodeUpgrade & { readonly flowAgainMs: number | undefined })[];
}

export interface UpgradeDrillReport extends Omit<DrillVerdict, 'clean'> {
  readonly bookings: number;
  readonly workers: number;
  readonly nodes: number;
  readonly from: string;
  readonly steps: readonly UpgradeStep[];
  readonly durationMs: number;
  readonly startAttempts: number;
  readonly taskTimeouts: Awaited<ReturnType<typeof explainedTaskTimeouts>>;
  readonly settleMs: number;
  readonly passed: boolean;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The releases after `from`, oldest first: an upgrade skips no minor release. Pure. */
export function upgradePath(from: TemporalRelease): TemporalRelease[] {
  return SUPPORTED_RELEASES.slice(SUPPORTED_RELEASES.indexOf(from) + 1);
}

export async function runUpgradeDrill(options: UpgradeDrillOptions): Promise<UpgradeDrillReport> {
  const log = options.log ?? (() => undefined);
  const n = options.bookings ?? 150;
  const workers = options.workers ?? 3;
  const nodeCount = options.nodes ?? 3;
  const from = options.from ?? OLDEST_RELEASE;
  const path = upgradePath(from);
  const random = prng(options.seed ?? Date.now());
  const drill = await startDrillCluster({
    kind: 'upgrade',
    workers,
    nodes: nodeCount,
    basePort: options.basePort ?? 27_833,
    dataDir: options.dataDir,
    seed: options.seed,
    release: from,
    log,
  });
  const { stack, run } = drill;
  const { infra } = stack;
  const t0 = Date.now();
  try {
    log(
      `cluster up on Temporal ${infra.serverVersion}: ${nodeCount} nodes, ${workers} workers on '${run}'; upgrading through ${path.join(' → ')}`,
    );
    const orders = Array.from({ length: n }, (_, i) => ({
      orderId: orderIdFor(run, i),
      entry: pick(SCENARIO_MIX, random),
    }));
    const startedIds: string[] = [];
    const probes = startProbes(stack, () => startedIds);
    const disruptions: KillRecord[] = [];
    const steps: (Omit<UpgradeStep, 'nodes'> & { nodes: NodeUpgrade[] })[] = [];
    const upgrader = (async () => {
      await sleep(15_000);
      for (const release of path) {
        const at = Date.now();
        const nodes = await infra.upgradeTo(release);
        for (const u of nodes) {
          disruptions.push({
            target: 'server',
            how: `node ${u.node} replaced by ${release}`,
            at: u.at,
            atMs: u.at - t0,
            inFlight: { total: 0, booking: 0 },
            restartMs: u.replacedMs,
          });
        }
        steps.push({
          release,
          serverVersion: infra.serverVersion,
          durationMs: Date.now() - at,
          nodes,
        });
        log(
          `upgraded to ${release} (servers report ${infra.serverVersion}) in ${Date.now() - at} ms: ${nodes.map((u) => `node ${u.node} ${u.replacedMs} ms`).join(', ')}`,
        );
        await sleep(5_000);
      }
    })();
    // Starts spread over the upgrade, so that bookings are in every phase while nodes change.
    const { startAttempts, startFailures } = await startOrders(
      stack,
      orders,
      START_WINDOW_MS,
      startedIds,
    );
    await upgrader;
    const lastStep = Date.now();
    const ids = orders.map((o) => o.orderId);
    const statuses = await waitForSettled(stack.client, ids, {
      timeoutMs: options.settleTimeoutMs ?? 300_000,
      log,
    });
    const settleMs = Date.now() - lastStep;
    await probes.stop();
    const measured: UpgradeStep[] = steps.map((s) => ({
      ...s,
      nodes: s.nodes.map((u) => ({
        ...u,
        flowAgainMs: flowAgainMs(probes.rounds, u.at, u.at + FLOW_AGAIN_WITHIN_MS + u.replacedMs),
      })),
    }));
    const { clean, ...verdict } = await judgeDrill({
      client: stack.client,
      bookings: stack.bookings,
      simulator: simulatorOf(stack),
      ids,
      statuses,
      entryOf: new Map(orders.map((o) => [o.orderId, o.entry])),
      disruptions,
      reconcile: true,
    });
    const taskTimeouts = await explainedTaskTimeouts(stack, ids, disruptions);
    const flowing = measured.every((s) =>
      s.nodes.every(
        (u) => u.flowAgainMs !== undefined && u.flowAgainMs <= FLOW_AGAIN_WITHIN_MS + u.replacedMs,
      ),
    );
    const newest = path.at(-1) ?? from;
    return {
      bookings: n,
      workers,
      nodes: nodeCount,
      from,
      steps: measured,
      durationMs: Date.now() - t0,
      startAttempts,
      taskTimeouts,
      ...verdict,
      settleMs,
      passed:
        startFailures === 0 &&
        clean &&
        verdict.neverSent.length === 0 &&
        flowing &&
        taskTimeouts.every((t) => t.cause !== undefined) &&
        measured.length === path.length &&
        infra.serverVersion === newest,
    };
  } finally {
    await drill.stop();
  }
}

/** The drill's figures as lines for people. */
export function formatUpgradeReport(r: UpgradeDrillReport): string[] {
  const a = r.audit;
  const s = (ms: number | undefined) =>
    ms === undefined ? 'never' : `${(ms / 1000).toFixed(1)} s`;
  return [
    `server-upgrade drill: ${r.bookings} bookings, ${r.nodes} server nodes, ${r.workers} workers, ${r.from} → ${r.steps.map((x) => x.release).join(' → ')}, ${(r.durationMs / 1000).toFixed(0)} s — ${r.passed ? 'PASSED' : 'FAILED'}`,
    ...r.steps.map(
      (x) =>
        `  ${x.release} (servers report ${x.serverVersion}): schema and ${x.nodes.length} nodes in ${s(x.durationMs)}; ${x.nodes.map((u) => `node ${u.node} replaced in ${s(u.replacedMs)}, bookings flowing again after ${s(u.flowAgainMs)}`).join('; ')}`,
    ),
    `  starts: ${r.startAttempts} attempts for ${r.bookings} bookings`,
    `  outcomes: ${formatCounts(a.outcomes)}; NEEDS_RECONCILIATION ${a.reconciliation.length}`,
    `  duplicated ${a.duplicates.length}, lost ${a.lost.length}, stuck ${a.stuck.length}, supplier bookings ${a.supplierBookings}`,
    `  ${reconciliationLine(r)}`,
    ...r.unexplained.map((u) => `    unexplained: ${u.orderId} ${u.scenario} ${u.code ?? ''}`),
    `  activity timeouts: ${formatCounts(r.timeouts)}; workflow task timeouts ${r.taskTimeouts.length}`,
    `  settled ${s(r.settleMs)} after the last step`,
  ];
}

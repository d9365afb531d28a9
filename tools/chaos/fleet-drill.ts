/**
 * The fleet drill (`npm run chaos -- fleet`): the production topology of `npm run cluster`
 * (PostgreSQL, the Temporal server with mTLS and 16 shards, N worker processes on one task
 * queue), bookings across the scenarios, and while they run: a rolling restart (SIGTERM each
 * worker in turn, a new one started once it has drained), one SIGKILL of a worker, a restart of
 * the Temporal server process and one of PostgreSQL. Then the audit of crash-drill: no order
 * lost, none booked twice at the supplier, every NEEDS_RECONCILIATION explained by a disruption,
 * and the time from the last disruption until every order had settled.
 */
import { join } from 'node:path';
import type { WorkerProcess } from './worker-process';
import { simulatorOf } from '../stack/cluster-stack';
import { formatCounts, startWithRetry, waitForSettled } from './audit';
import { SCENARIO_MIX, mixInput, orderIdFor, pick, prng } from './booking-mix';
import type { KillRecord } from './crash-drill';
import { startDrillCluster } from './drill-cluster';
import { judgeDrill, reconciliationLine, type DrillVerdict } from './drill-verdict';

export interface FleetDrillOptions {
  /** @default 300 */
  readonly bookings?: number;
  /** @default 3 */
  readonly workers?: number;
  /** Starts spread over this window; the disruptions happen inside it. @default 120000 */
  readonly startWindowMs?: number;
  /** @default 300000 */
  readonly settleTimeoutMs?: number;
  /** The cluster's data directory (a fresh one per drill keeps runs apart). */
  readonly dataDir: string;
  /** @default 27433 (apart from `npm run cluster` and the suite's cluster) */
  readonly basePort?: number;
  /** Workers' SHUTDOWN_GRACE_MS for the rolling restart. @default 10000 */
  readonly shutdownGraceMs?: number;
  readonly seed?: number;
  readonly log?: (line: string) => void;
}

export interface FleetDrillReport extends Omit<DrillVerdict, 'clean'> {
  readonly bookings: number;
  readonly workers: number;
  readonly durationMs: number;
  readonly disruptions: KillRecord[];
  readonly startAttempts: number;
  /** From the end of the last disruption until every order had settled, ms. */
  readonly settleMs: number;
  readonly passed: boolean;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function runFleetDrill(options: FleetDrillOptions): Promise<FleetDrillReport> {
  const log = options.log ?? (() => undefined);
  const n = options.bookings ?? 300;
  const workerCount = options.workers ?? 3;
  const window = options.startWindowMs ?? 120_000;
  const random = prng(options.seed ?? Date.now());
  const drill = await startDrillCluster({
    kind: 'fleet',
    workers: workerCount,
    basePort: options.basePort ?? 27433,
    dataDir: options.dataDir,
    seed: options.seed,
    workerEnv: { SHUTDOWN_GRACE_MS: String(options.shutdownGraceMs ?? 10_000) },
    log,
  });
  const { stack, run } = drill;
  const t0 = Date.now();
  try {
    log(
      `cluster up: ${stack.infra.address} (mTLS), ${workerCount} workers on '${run}', data ${options.dataDir}`,
    );
    const orders = Array.from({ length: n }, (_, i) => ({
      orderId: orderIdFor(run, i),
      entry: pick(SCENARIO_MIX, random),
    }));
    const entryOf = new Map(orders.map((o) => [o.orderId, o.entry]));

    // --- disruptions, in sequence over the start window ---------------------------------------
    const disruptions: KillRecord[] = [];
    const record = (r: Omit<KillRecord, 'atMs'>) => {
      disruptions.push({ ...r, atMs: r.at - t0 });
    };
    const replace = async (i: number, how: 'SIGTERM' | 'SIGKILL') => {
      const old: WorkerProcess = stack.workers[i]!;
      const pid = old.pid;
      const at = Date.now();
      if (how === 'SIGTERM') await old.stop(60_000);
      else await old.kill();
      old.start();
      await old.waitReady(120_000);
      record({
        target: 'worker',
        ...(how === 'SIGTERM' ? { how: 'stopped by SIGTERM (rolling restart)' } : {}),
        at,
        inFlight: { total: 0, booking: 0 },
        restartMs: Date.now() - at,
        ...(pid !== undefined ? { pid } : {}),
      });
      log(
        `${how} worker ${i + 1} (pid ${pid}) at +${at - t0} ms; its replacement polls after ${Date.now() - at} ms`,
      );
    };
    const disrupter = (async () => {
      const step = window / (workerCount + 4);
      await sleep(step);
      for (let i = 0; i < workerCount; i++) {
        await replace(i, 'SIGTERM');
        await sleep(step / 2);
      }
      await replace(Math.floor(random() * workerCount), 'SIGKILL');
      await sleep(step / 2);
      let at = Date.now();
      await stack.infra.restartTemporal();
      record({
        target: 'server',
        how: 'restarted (SIGTERM)',
        at,
        inFlight: { total: 0, booking: 0 },
        restartMs: Date.now() - at,
      });
      log(
        `restarted the Temporal server at +${at - t0} ms; serving again after ${Date.now() - at} ms`,
      );
      await sleep(step / 2);
      at = Date.now();
      await stack.infra.restartPostgres();
      record({
        target: 'postgres',
        how: 'restarted',
        at,
        inFlight: { total: 0, booking: 0 },
        restartMs: Date.now() - at,
      });
      log(`restarted PostgreSQL at +${at - t0} ms; accepting again after ${Date.now() - at} ms`);
    })();

    // --- starts ---------------------------------------------------------------------------------
    let startAttempts = 0;
    const gap = window / Math.max(1, n);
    const starts = orders.map(async (o, i) => {
      await sleep(Math.round(i * gap));
      const r = await startWithRetry(stack.bookings, mixInput(o.entry, o.orderId), {
        timeoutMs: 180_000,
      });
      startAttempts += r.attempts;
    });
    const startResults = await Promise.allSettled(starts);
    const startFailures = startResults.filter((r) => r.status === 'rejected').length;
    if (startFailures > 0) log(`${startFailures} starts failed for good`);
    await disrupter;
    const lastDisruptionEnd = Date.now();
    log(`all ${n} started (${startAttempts} attempts); ${disruptions.length} disruptions done`);

    // --- settle and audit -------------------------------------------------------------------------
    const ids = orders.map((o) => o.orderId);
    const statuses = await waitForSettled(stack.client, ids, {
      timeoutMs: options.settleTimeoutMs ?? 300_000,
      log,
    });
    const settleMs = Date.now() - lastDisruptionEnd;
    const { clean, ...verdict } = await judgeDrill({
      client: stack.client,
      bookings: stack.bookings,
      simulator: simulatorOf(stack),
      ids,
      statuses,
      entryOf,
      disruptions,
      reconcile: true,
    });
    return {
      bookings: n,
      workers: workerCount,
      durationMs: Date.now() - t0,
      disruptions,
      startAttempts,
      ...verdict,
      settleMs,
      passed: startFailures === 0 && clean,
    };
  } finally {
    await drill.stop();
  }
}

/** The drill's figures as lines for people. */
export function formatFleetReport(r: FleetDrillReport): string[] {
  const a = r.audit;
  return [
    `fleet drill: ${r.bookings} bookings, ${r.workers} workers, ${(r.durationMs / 1000).toFixed(0)} s — ${r.passed ? 'PASSED' : 'FAILED'}`,
    `  disruptions: ${r.disruptions.map((d) => `${d.target}${d.how ? ` ${d.how}` : ' SIGKILL'} at +${(d.atMs / 1000).toFixed(0)} s (back in ${(d.restartMs / 1000).toFixed(1)} s)`).join('; ')}`,
    `  starts: ${r.startAttempts} attempts for ${r.bookings} bookings`,
    `  outcomes: ${formatCounts(a.outcomes)}; NEEDS_RECONCILIATION ${a.reconciliation.length}`,
    `  duplicates ${a.duplicates.length}, lost ${a.lost.length}, stuck ${a.stuck.length}, supplier bookings ${a.supplierBookings}`,
    `  ${reconciliationLine(r)}`,
    ...r.unexplained.map((u) => `    unexplained: ${u.orderId} ${u.scenario} ${u.code ?? ''}`),
    `  activity timeouts seen: ${formatCounts(r.timeouts)}`,
    `  settled ${(r.settleMs / 1000).toFixed(1)} s after the last disruption`,
    ...(r.afterReconcile
      ? [
          `  operator resolved ${r.afterReconcile.withBooking} with the supplier's booking, ${r.afterReconcile.noBooking} as no booking; then outcomes ${formatCounts(r.afterReconcile.audit.outcomes)}, duplicates ${r.afterReconcile.audit.duplicates.length}${r.afterReconcile.failed.length ? `, failed: ${r.afterReconcile.failed.join('; ')}` : ''}`,
        ]
      : []),
  ];
}

/** Where a drill keeps its cluster data. */
export const fleetDataDir = (workDir: string) => join(workDir, 'cluster');

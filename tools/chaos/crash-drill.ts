/**
 * Crash drill: bookings across the scenarios while the worker subprocess is
 * SIGKILLed at random moments and restarted within 2 s, and our own Temporal dev server is
 * SIGKILLed and restarted on the same SQLite file and port. Then the invariants: no duplicate
 * supplier booking, no lost order, and every NEEDS_RECONCILIATION explained.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { formatCounts, startWithRetry, waitForSettled } from './audit';
import { SCENARIO_MIX, mixInput, orderIdFor, pick, prng, type MixEntry } from './booking-mix';
import { startChaosStack } from './chaos-stack';
import { judgeDrill, type DrillVerdict } from './drill-verdict';

export interface CrashDrillOptions {
  readonly bookings: number;
  readonly workerKills: number;
  readonly serverKills: number;
  /** Starts are spread evenly over this window. */
  readonly startWindowMs: number;
  /** Kills happen at random moments in [10 %, 100 %] of this window. */
  readonly killWindowMs: number;
  /** Longest wait for every order to settle after the last kill. */
  readonly settleTimeoutMs: number;
  /**
   * At a kill's moment, wait up to this long for a POST /booking to be in flight, so kills land
   * in booking calls (the case hard rule 1 is about). @default 3000
   */
  readonly aimMs?: number;
  /** Before a worker kill, wait up to this long for the restarted worker to poll. @default 30000 */
  readonly readyWaitMs?: number;
  /** Resolve NEEDS_RECONCILIATION like an operator afterwards, and wait for the outcomes. */
  readonly reconcile: boolean;
  readonly workDir: string;
  readonly seed?: number;
  /** The scenarios to draw from. @default SCENARIO_MIX */
  readonly mix?: readonly MixEntry[];
  readonly log?: (line: string) => void;
}

export interface KillRecord {
  /** What was stopped: a worker, the Temporal server, or (fleet drill) PostgreSQL. */
  readonly target: 'worker' | 'server' | 'postgres';
  /** How, when not a SIGKILL (e.g. 'SIGTERM' of a rolling restart). */
  readonly how?: string;
  /** ms since the drill started. */
  readonly atMs: number;
  readonly at: number;
  /** Supplier requests in flight when the kill happened (all, and POST /booking). */
  readonly inFlight: { total: number; booking: number };
  /** From the kill to the restart's spawn (worker) or readiness (server), ms. */
  readonly restartMs: number;
  /** The killed worker's pid. */
  readonly pid?: number;
}

export interface CrashDrillReport extends Omit<DrillVerdict, 'clean'> {
  readonly options: Omit<CrashDrillOptions, 'log' | 'mix'>;
  readonly durationMs: number;
  readonly kills: KillRecord[];
  readonly startAttempts: number;
  /** Final outcomes that differ from the scenario's expected one (for the record). */
  readonly unexpected: { orderId: string; scenario: string; outcome: string; reason?: string }[];
  readonly passed: boolean;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function runCrashDrill(options: CrashDrillOptions): Promise<CrashDrillReport> {
  const log = options.log ?? (() => undefined);
  const random = prng(options.seed ?? Date.now());
  const run = `crash-${randomUUID().slice(0, 6)}`;
  const stack = await startChaosStack({
    name: run,
    workDir: options.workDir,
    temporal: { own: { dbFile: join(options.workDir, 'temporal.db') } },
    // Latency on every call, so kills land while calls are in flight.
    simulator: { latency: { minMs: 50, maxMs: 200 }, seed: options.seed ?? 7 },
    log,
  });
  const t0 = Date.now();
  try {
    log(
      `stack up: dev server ${stack.temporalAddress} (db ${stack.dbFile}), worker pid ${stack.worker.pid}`,
    );
    const orders = Array.from({ length: options.bookings }, (_, i) => {
      const entry = pick(options.mix ?? SCENARIO_MIX, random);
      return { orderId: orderIdFor(run, i), entry };
    });
    const entryOf = new Map(orders.map((o) => [o.orderId, o.entry]));

    // --- kills, on their own schedule ------------------------------------------------------------
    const kills: KillRecord[] = [];
    const schedule = [
      ...Array.from({ length: options.workerKills }, () => 'worker' as const),
      ...Array.from({ length: options.serverKills }, () => 'server' as const),
    ]
      .map((target) => ({
        target,
        atMs: Math.round(options.killWindowMs * (0.1 + 0.9 * random())),
      }))
      .sort((a, b) => a.atMs - b.atMs);
    const killer = (async () => {
      for (const k of schedule) {
        const wait = t0 + k.atMs - Date.now();
        if (wait > 0) await sleep(wait);
        // A worker still starting up has no call to interrupt: let it poll first.
        if (k.target === 'worker')
          await stack.worker.waitReady(options.readyWaitMs ?? 30_000).catch(() => undefined);
        // Land mid-call: a POST /booking in flight if one comes soon, else any call.
        const aimSteps = Math.round((options.aimMs ?? 3_000) / 50);
        for (let i = 0; i < aimSteps && stack.inFlight().booking === 0; i++) await sleep(50);
        for (let i = 0; i < 20 && stack.inFlight().total === 0; i++) await sleep(50);
        const inFlight = stack.inFlight();
        const at = Date.now();
        if (k.target === 'worker') {
          const pid = stack.worker.pid;
          await stack.worker.kill();
          // Restarted within 2 s, like a supervisor would.
          await sleep(Math.round(random() * 1_500));
          stack.worker.start();
          const restartMs = Date.now() - at;
          kills.push({
            target: 'worker',
            atMs: at - t0,
            at,
            inFlight,
            restartMs,
            ...(pid !== undefined ? { pid } : {}),
          });
          log(
            `killed the worker at +${at - t0} ms (${inFlight.total} supplier calls in flight, ${inFlight.booking} bookings); restarted after ${restartMs} ms`,
          );
        } else {
          await stack.killServer();
          await stack.restartServer();
          const restartMs = Date.now() - at;
          kills.push({ target: 'server', atMs: at - t0, at, inFlight, restartMs });
          log(
            `killed the dev server at +${at - t0} ms (${inFlight.total} supplier calls in flight); serving again after ${restartMs} ms`,
          );
        }
      }
    })();

    // --- starts ---------------------------------------------------------------------------------
    let startAttempts = 0;
    const gap = options.startWindowMs / Math.max(1, options.bookings);
    const starts = orders.map(async (o, i) => {
      await sleep(Math.round(i * gap));
      const r = await startWithRetry(stack.bookings, mixInput(o.entry, o.orderId), {
        timeoutMs: 120_000,
      });
      startAttempts += r.attempts;
    });
    const startResults = await Promise.allSettled(starts);
    const startFailures = startResults.filter((r) => r.status === 'rejected').length;
    if (startFailures > 0) log(`${startFailures} starts failed for good`);
    await killer;
    log(`all ${orders.length} started (${startAttempts} attempts) and ${kills.length} kills done`);

    // --- settle and audit -------------------------------------------------------------------------
    const ids = orders.map((o) => o.orderId);
    const statuses = await waitForSettled(stack.client, ids, {
      timeoutMs: options.settleTimeoutMs,
      log,
    });
    const { clean, ...verdict } = await judgeDrill({
      client: stack.client,
      historyClient: stack.rawClient,
      bookings: stack.bookings,
      simulator: stack.sim,
      ids,
      statuses,
      entryOf,
      disruptions: kills,
      reconcile: options.reconcile,
    });
    // What the dev servers logged says whether a failure is theirs (shard lost, persistence errors).
    // And the worker's lives with the end of its output: a worker that exited stops every order.
    if (!clean) {
      for (const line of stack.serverErrorLog().split('\n')) log(line);
      log(`worker lives: ${JSON.stringify(stack.worker.lives)}`);
      for (const line of stack.worker.tail(3_000).split('\n')) log(`[worker] ${line}`);
    }
    const unexpected: CrashDrillReport['unexpected'] = [];
    for (const id of ids) {
      const s = statuses.get(id);
      const entry = entryOf.get(id)!;
      if (s?.kind === 'final' && s.outcome !== entry.expect)
        unexpected.push({
          orderId: id,
          scenario: entry.scenario,
          outcome: s.outcome,
          ...(s.result.reason ? { reason: s.result.reason } : {}),
        });
    }
    const { log: _omit, mix: _mix, ...recorded } = options;
    return {
      options: recorded,
      durationMs: Date.now() - t0,
      kills,
      startAttempts,
      ...verdict,
      unexpected,
      passed: clean,
    };
  } finally {
    await stack.close();
  }
}

/** The drill's figures as lines for people. */
export function formatCrashReport(r: CrashDrillReport): string[] {
  const a = r.audit;
  const workerKills = r.kills.filter((k) => k.target === 'worker');
  const serverKills = r.kills.filter((k) => k.target === 'server');
  const lines = [
    `crash drill: ${a.orders} bookings, ${workerKills.length} worker SIGKILLs, ${serverKills.length} dev-server SIGKILLs, ${(r.durationMs / 1000).toFixed(1)} s`,
    `  kills: ${r.kills
      .map(
        (k) =>
          `${k.target}@+${(k.atMs / 1000).toFixed(1)}s(${k.inFlight.total} calls/${k.inFlight.booking} bookings in flight, back in ${k.restartMs} ms)`,
      )
      .join(', ')}`,
    `  start attempts: ${r.startAttempts} for ${a.orders} orders`,
    `  supplier bookings: ${a.supplierBookings}; duplicates: ${a.duplicates.length}; strangers: ${a.strangers}`,
    `  lost orders: ${a.lost.length}; stuck: ${a.stuck.length}`,
    `  final outcomes: ${formatCounts(a.outcomes)}`,
    `  NEEDS_RECONCILIATION: ${a.reconciliation.length} (explained ${a.reconciliation.length - r.unexplained.length}, unexplained ${r.unexplained.length})`,
    ...r.reconciliation.map(
      (x) => `    ${x.orderId} [${x.scenario}] ${x.code ?? '?'}: ${x.explanation ?? 'UNEXPLAINED'}`,
    ),
    `  activity timeouts in the histories (how the kills were noticed): ${formatCounts(r.timeouts)}`,
    `  outcomes other than the scenario's own (not failures by themselves): ${r.unexpected.length}`,
    ...r.unexpected.map(
      (u) => `    ${u.orderId} [${u.scenario}] ${u.outcome}${u.reason ? `: ${u.reason}` : ''}`,
    ),
  ];
  if (r.afterReconcile) {
    const b = r.afterReconcile;
    lines.push(
      `  operator reconciliation: ${b.withBooking} with the supplier booking, ${b.noBooking} with noBooking, ${b.failed.length} failed; then ${formatCounts(b.audit.outcomes)}, still waiting ${b.audit.reconciliation.length}, duplicates ${b.audit.duplicates.length}`,
      ...b.failed.map((f) => `    ${f}`),
    );
  }
  if (a.lost.length) lines.push(...a.lost.map((l) => `  LOST ${l.orderId}: ${l.why}`));
  if (a.stuck.length) lines.push(...a.stuck.map((s) => `  STUCK ${s.orderId}: ${s.phase}`));
  if (a.duplicates.length)
    lines.push(...a.duplicates.map((d) => `  DUPLICATE ${d.orderId}: ${d.bookingIds.join(', ')}`));
  lines.push(`  ${r.passed ? 'PASS' : 'FAIL'}`);
  return lines;
}

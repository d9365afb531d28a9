/**
 * Crash drill: bookings across the scenarios while the worker subprocess is
 * SIGKILLed at random moments and restarted within 2 s, and our own Temporal dev server is
 * SIGKILLed and restarted on the same SQLite file and port. Then the invariants: no duplicate
 * supplier booking, no lost order, and every NEEDS_RECONCILIATION explained.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { bookingWorkflowId } from '../../src/shared/booking-contract';
import {
  audit,
  formatCounts,
  reconcileAll,
  startWithRetry,
  waitForSettled,
  type AuditReport,
  type OrderStatus,
} from './audit';
import { SCENARIO_MIX, mixInput, orderIdFor, pick, prng, type MixEntry } from './booking-mix';
import { startChaosStack } from './chaos-stack';

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

/** Why an order waits for reconciliation, or undefined when nothing explains it. */
export interface Explained {
  readonly orderId: string;
  readonly scenario: string;
  readonly code: string | undefined;
  readonly explanation: string | undefined;
}

export interface CrashDrillReport {
  readonly options: Omit<CrashDrillOptions, 'log' | 'mix'>;
  readonly durationMs: number;
  readonly kills: KillRecord[];
  readonly startAttempts: number;
  readonly audit: AuditReport;
  readonly reconciliation: Explained[];
  readonly unexplained: Explained[];
  /** Activity timeouts recorded in the histories (how the kills were noticed). */
  readonly timeouts: Record<string, number>;
  /** Final outcomes that differ from the scenario's expected one (for the record). */
  readonly unexpected: { orderId: string; scenario: string; outcome: string; reason?: string }[];
  /** After the operator resolved every reconciliation. */
  readonly afterReconcile?: {
    readonly withBooking: number;
    readonly noBooking: number;
    readonly failed: string[];
    readonly audit: AuditReport;
  };
  readonly passed: boolean;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Codes that say the booking call's fate is unknown because its worker or server died. */
const KILL_CODES = new Set(['ACTIVITY_TIMEOUT', 'CONNECTION_LOST', 'TIMEOUT', 'CANCELLED']);
/** Longest time from a kill to the workflow noticing it (booking start-to-close 150 s + slack). */
const NOTICE_WINDOW_MS = 180_000;

/** What the history says of an order's booking call: who ran it and how it ended. */
export interface BookingCallFacts {
  /** The worker identity that started `createBooking` (`pid@host` by default). */
  readonly identity?: string;
  readonly pid?: number;
  /** `TIMEOUT_TYPE_HEARTBEAT`, `TIMEOUT_TYPE_START_TO_CLOSE`, … when it timed out. */
  readonly timeoutType?: string;
}

/** Reads the `createBooking` events of a booking's history. */
export async function bookingCallFacts(client: Client, orderId: string): Promise<BookingCallFacts> {
  const history = await client.workflow.getHandle(bookingWorkflowId(orderId)).fetchHistory();
  const events = history.events ?? [];
  const scheduled = events.find(
    (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'createBooking',
  );
  if (!scheduled?.eventId) return {};
  const id = String(scheduled.eventId);
  const started = events.find(
    (e) => String(e.activityTaskStartedEventAttributes?.scheduledEventId ?? '') === id,
  );
  const timedOut = events.find(
    (e) => String(e.activityTaskTimedOutEventAttributes?.scheduledEventId ?? '') === id,
  );
  const identity = started?.activityTaskStartedEventAttributes?.identity ?? undefined;
  const pid = identity ? Number(/^(\d+)@/.exec(identity)?.[1]) : NaN;
  const timeoutType =
    timedOut?.activityTaskTimedOutEventAttributes?.failure?.timeoutFailureInfo?.timeoutType;
  return {
    ...(identity ? { identity } : {}),
    ...(Number.isFinite(pid) ? { pid } : {}),
    ...(timeoutType !== undefined && timeoutType !== null
      ? { timeoutType: temporal.api.enums.v1.TimeoutType[timeoutType] ?? String(timeoutType) }
      : {}),
  };
}

/** Activity timeouts in a history, as `activityType/TIMEOUT_TYPE_…` → count. */
export async function activityTimeouts(
  client: Client,
  orderId: string,
): Promise<Record<string, number>> {
  const history = await client.workflow.getHandle(bookingWorkflowId(orderId)).fetchHistory();
  const types = new Map<string, string>();
  const out: Record<string, number> = {};
  for (const e of history.events ?? []) {
    const scheduled = e.activityTaskScheduledEventAttributes;
    if (scheduled && e.eventId) types.set(String(e.eventId), scheduled.activityType?.name ?? '?');
    const timedOut = e.activityTaskTimedOutEventAttributes;
    if (timedOut) {
      const type = types.get(String(timedOut.scheduledEventId ?? '')) ?? '?';
      const t = timedOut.failure?.timeoutFailureInfo?.timeoutType;
      const key = `${type}/${t !== undefined && t !== null ? (temporal.api.enums.v1.TimeoutType[t] ?? t) : '?'}`;
      out[key] = (out[key] ?? 0) + 1;
    }
  }
  return out;
}

export function explainReconciliation(
  orderId: string,
  entry: MixEntry,
  status: Extract<OrderStatus, { kind: 'reconciliation' }>,
  kills: readonly KillRecord[],
  facts: BookingCallFacts = {},
): Explained {
  const code = status.lastError?.code;
  const base = { orderId, scenario: entry.scenario, code };
  if (entry.expect === 'NEEDS_RECONCILIATION')
    return { ...base, explanation: `scenario ${entry.scenario} is ambiguous by design` };
  if (code !== undefined && KILL_CODES.has(code)) {
    // Best evidence: the booking call was started by a worker process that was SIGKILLed.
    const killed =
      facts.pid === undefined
        ? undefined
        : kills.find((k) => k.target === 'worker' && k.pid === facts.pid);
    if (killed)
      return {
        ...base,
        explanation: `createBooking started by worker pid ${facts.pid}, ${killed.how ?? 'SIGKILLed'} at +${(killed.atMs / 1000).toFixed(1)} s (${facts.timeoutType ?? code})`,
      };
    // Else a kill (of the server, say) shortly before the workflow noticed the failure.
    const at = status.lastError?.at ? Date.parse(status.lastError.at) : Date.now();
    const kill = kills
      .filter((k) => k.at <= at + 1_000 && at - k.at <= NOTICE_WINDOW_MS)
      .sort((a, b) => b.at - a.at)[0];
    if (kill)
      return {
        ...base,
        explanation: `${code} ${Math.round((at - kill.at) / 1000)} s after the ${kill.target} kill at +${Math.round(kill.atMs / 1000)} s`,
      };
  }
  return { ...base, explanation: undefined };
}

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
          stack.killServer();
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
    const report = audit(statuses, ids, stack.sim);
    const reconciliation: Explained[] = [];
    const unexpected: CrashDrillReport['unexpected'] = [];
    for (const id of ids) {
      const s = statuses.get(id);
      const entry = entryOf.get(id)!;
      if (s?.kind === 'reconciliation') {
        const facts = await bookingCallFacts(stack.rawClient, id).catch(() => ({}));
        reconciliation.push(explainReconciliation(id, entry, s, kills, facts));
      }
      if (s?.kind === 'final' && s.outcome !== entry.expect)
        unexpected.push({
          orderId: id,
          scenario: entry.scenario,
          outcome: s.outcome,
          ...(s.result.reason ? { reason: s.result.reason } : {}),
        });
    }
    const unexplained = reconciliation.filter((r) => r.explanation === undefined);
    const timeouts: Record<string, number> = {};
    for (const id of ids) {
      const t = await activityTimeouts(stack.rawClient, id).catch(() => ({}));
      for (const [k, v] of Object.entries(t)) timeouts[k] = (timeouts[k] ?? 0) + v;
    }

    let afterReconcile: CrashDrillReport['afterReconcile'];
    if (options.reconcile && report.reconciliation.length > 0) {
      const resolved = await reconcileAll(stack.bookings, stack.sim, report.reconciliation);
      const again = await waitForSettled(stack.client, report.reconciliation, {
        timeoutMs: 60_000,
      });
      const merged = new Map(statuses);
      for (const [k, v] of again) merged.set(k, v);
      afterReconcile = { ...resolved, audit: audit(merged, ids, stack.sim) };
    }

    const passed =
      report.duplicates.length === 0 &&
      report.lost.length === 0 &&
      report.stuck.length === 0 &&
      unexplained.length === 0 &&
      (afterReconcile === undefined ||
        (afterReconcile.failed.length === 0 &&
          afterReconcile.audit.reconciliation.length === 0 &&
          afterReconcile.audit.duplicates.length === 0));
    const { log: _omit, mix: _mix, ...recorded } = options;
    return {
      options: recorded,
      durationMs: Date.now() - t0,
      kills,
      startAttempts,
      audit: report,
      reconciliation,
      unexplained,
      timeouts,
      unexpected,
      ...(afterReconcile ? { afterReconcile } : {}),
      passed,
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

/**
 * What a drill concludes once its orders have settled, the same for the crash and the fleet
 * drills: the audit (duplicates, lost, stuck), every NEEDS_RECONCILIATION explained by a
 * disruption or not, the activity timeouts that show how the disruptions were noticed, and, when
 * asked, the operator's answers and the outcomes they led to.
 */
import type { Client } from '@temporalio/client';
import { tsToMs } from '@temporalio/common/lib/time';
import { temporal } from '@temporalio/proto';
import type { BookingClient } from '../../src/client';
import { bookingWorkflowId } from '../../src/shared/booking-contract';
import type { Simulator } from '../simulator';
import { audit, reconcileAll, waitForSettled, type AuditReport, type OrderStatus } from './audit';
import type { MixEntry } from './booking-mix';
import type { KillRecord } from './crash-drill';
import type { TaskTimeout } from './node-drill-figures';

/** Why an order waits for reconciliation, or undefined when nothing explains it. */
export interface Explained {
  readonly orderId: string;
  readonly scenario: string;
  readonly code: string | undefined;
  readonly explanation: string | undefined;
}

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
  // `createBookingMarked` today, `createBooking` in runs of earlier versions.
  const scheduled = events.find((e) =>
    e.activityTaskScheduledEventAttributes?.activityType?.name?.startsWith('createBooking'),
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

/** The workflow task timeouts in an order's history, with their event times. */
export async function workflowTaskTimeouts(
  client: Client,
  orderId: string,
): Promise<TaskTimeout[]> {
  const history = await client.workflow.getHandle(bookingWorkflowId(orderId)).fetchHistory();
  const out: TaskTimeout[] = [];
  for (const e of history.events ?? []) {
    const attrs = e.workflowTaskTimedOutEventAttributes;
    if (!attrs) continue;
    const t = attrs.timeoutType;
    out.push({
      orderId,
      at: e.eventTime ? tsToMs(e.eventTime) : 0,
      timeoutType:
        t !== undefined && t !== null ? (temporal.api.enums.v1.TimeoutType[t] ?? String(t)) : '?',
    });
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

/**
 * The reconciliations by cause, as one line for people: by design (the scenario's), by a
 * disruption (with the failure's code), of a call that never left, unexplained.
 */
export function reconciliationLine(v: Pick<DrillVerdict, 'reconciliation' | 'neverSent'>): string {
  const byCause: Record<string, number> = {};
  for (const e of v.reconciliation) {
    const key = v.neverSent.includes(e.orderId)
      ? 'a call that never left'
      : e.explanation?.startsWith('scenario')
        ? `by design (${e.scenario})`
        : e.explanation
          ? `disruption (${e.code})`
          : 'UNEXPLAINED';
    byCause[key] = (byCause[key] ?? 0) + 1;
  }
  const causes = Object.entries(byCause)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, n]) => `${k} ${n}`);
  return `reconciliations ${v.reconciliation.length}: ${causes.join(', ') || 'none'}; of a call that never left ${v.neverSent.length}`;
}

export interface DrillVerdict {
  readonly audit: AuditReport;
  readonly reconciliation: Explained[];
  readonly unexplained: Explained[];
  /**
   * Orders left for a person although the supplier holds no booking of theirs and their scenario
   * is not ambiguous by design: a booking call that never left (a task lost with a server node)
   * taken for one that may have. Rule 1 with the booking call's mark makes these 0 where no
   * worker dies (the node and upgrade drills require it); a worker killed between the mark and
   * the request leaves one legitimately.
   */
  readonly neverSent: string[];
  /** Activity timeouts recorded in the histories (how the disruptions were noticed). */
  readonly timeouts: Record<string, number>;
  /** After the operator resolved every reconciliation. */
  readonly afterReconcile?: {
    readonly withBooking: number;
    readonly noBooking: number;
    readonly failed: string[];
    readonly audit: AuditReport;
  };
  /** No duplicate, lost or stuck order, each reconciliation explained and, if asked, resolved. */
  readonly clean: boolean;
}

/** Judges settled orders: see the file's comment. */
export async function judgeDrill(input: {
  /** Reads the orders' states (with the payload codec). */
  readonly client: Client;
  /** Reads histories' event attributes; without a codec is fine. @default client */
  readonly historyClient?: Client;
  readonly bookings: BookingClient;
  readonly simulator: Simulator;
  readonly ids: readonly string[];
  readonly statuses: ReadonlyMap<string, OrderStatus>;
  readonly entryOf: ReadonlyMap<string, MixEntry>;
  readonly disruptions: readonly KillRecord[];
  /** Resolve NEEDS_RECONCILIATION like an operator, and wait for the outcomes. */
  readonly reconcile: boolean;
}): Promise<DrillVerdict> {
  const { client, ids, statuses } = input;
  const historyClient = input.historyClient ?? client;
  const report = audit(statuses, ids, input.simulator);
  const reconciliation: Explained[] = [];
  const timeouts: Record<string, number> = {};
  for (const id of ids) {
    const s = statuses.get(id);
    if (s?.kind === 'reconciliation') {
      const facts = await bookingCallFacts(historyClient, id).catch(() => ({}));
      reconciliation.push(
        explainReconciliation(id, input.entryOf.get(id)!, s, input.disruptions, facts),
      );
    }
    const t = await activityTimeouts(historyClient, id).catch(() => ({}));
    for (const [k, v] of Object.entries(t)) timeouts[k] = (timeouts[k] ?? 0) + v;
  }
  const unexplained = reconciliation.filter((r) => r.explanation === undefined);
  const neverSent = reconciliation
    .filter((r) => input.entryOf.get(r.orderId)?.expect !== 'NEEDS_RECONCILIATION')
    .filter(
      (r) =>
        input.simulator.bookings({ customFields: { custom_field_10: r.orderId } }).length === 0,
    )
    .map((r) => r.orderId);
  let afterReconcile: DrillVerdict['afterReconcile'];
  if (input.reconcile && report.reconciliation.length > 0) {
    const resolved = await reconcileAll(input.bookings, input.simulator, report.reconciliation);
    const again = await waitForSettled(client, report.reconciliation, { timeoutMs: 60_000 });
    const merged = new Map(statuses);
    for (const [k, v] of again) merged.set(k, v);
    afterReconcile = { ...resolved, audit: audit(merged, ids, input.simulator) };
  }
  const clean =
    report.duplicates.length === 0 &&
    report.lost.length === 0 &&
    report.stuck.length === 0 &&
    unexplained.length === 0 &&
    (afterReconcile === undefined ||
      (afterReconcile.failed.length === 0 &&
        afterReconcile.audit.reconciliation.length === 0 &&
        afterReconcile.audit.duplicates.length === 0));
  return {
    audit: report,
    reconciliation,
    unexplained,
    neverSent,
    timeouts,
    ...(afterReconcile ? { afterReconcile } : {}),
    clean,
  };
}

/**
 * Personal data drill: bookings with sentinel guest data (names, e-mail, phone,
 * notes) through the worker subprocess with the payload codec, across scenarios that succeed, fail
 * and wait for reconciliation; then Temporal's own SQLite files (`.db`, `-wal`, `-shm`), the raw
 * histories and the worker's output are searched for the sentinels in every encoding. A control
 * workflow started without the codec proves the search finds what is there.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { BookingInputError, type BookRoomInput } from '../../src/client';
import { BOOK_ROOM_WORKFLOW, bookingWorkflowId } from '../../src/shared/booking-contract';
import { audit, formatCounts, reconcileAll, startWithRetry, waitForSettled } from './audit';
import type { AuditReport } from './audit';
import { SCENARIO_MIX, mixInput, orderIdFor, pick, prng, type Guest } from './booking-mix';
import { startChaosStack } from './chaos-stack';
import { decodeHistory, rawHistoryBytes } from './history-scan';
import { findSentinels, formatHit, scanFiles, type SentinelHit } from './sentinel-scan';

/** Guest data no real booking would carry, so any hit is ours. */
export const SENTINEL_GUEST: Guest & { readonly notes: string } = {
  firstName: 'Zqxsentinelfirst',
  lastName: 'Zqxsentinellast',
  email: 'zqx.sentinel@example.com',
  phonePrefix: '+39',
  phone: '555 0199 7731',
  notes: 'Zqxsentinelnotes allergic to feathers',
};

/** The strings searched for (the prefix and phone also as the caller would write them). */
export const GUEST_SENTINELS: readonly string[] = [
  SENTINEL_GUEST.firstName,
  SENTINEL_GUEST.lastName,
  SENTINEL_GUEST.email,
  SENTINEL_GUEST.phone,
  `${SENTINEL_GUEST.phonePrefix} ${SENTINEL_GUEST.phone}`,
  'Zqxsentinelnotes',
  'zqxlongsentinel',
];

const CONTROL_SENTINEL = 'Zqxcontrolsentinel';

/**
 * Payloads Temporal writes in clear by design: search attributes (never encrypted), and the SDK
 * core's own marker details — a patch marker's `patch-data` (the patch id) and a local activity
 * marker's `data` (sequence number, activity type, times; its `result` is encrypted).
 */
const SDK_PLAIN_PATH =
  /\.searchAttributes\.|markerRecordedEventAttributes\.details\.(patch-data|data)\.payloads/;

export interface PersonalDataOptions {
  readonly bookings: number;
  readonly workDir: string;
  readonly seed?: number;
  /** LOG_LEVEL of the worker. @default 'debug' (trace: see test/reliability/personal-data.test.ts) */
  readonly workerLogLevel?: string;
  /** Keep the worker's output in this file too. */
  readonly workerLogFile?: string;
  readonly log?: (line: string) => void;
}

export interface ScanFigures {
  readonly files: string[];
  readonly bytes: number;
  readonly hits: SentinelHit[];
}

export interface PersonalDataReport {
  readonly bookings: number;
  readonly audit: AuditReport;
  readonly reconciled: number;
  /** The booking with an over-long sentinel e-mail: refused at the boundary, or its outcome. */
  readonly longEmail: string;
  readonly dbWhileRunning: ScanFigures;
  readonly dbAfterStop: ScanFigures;
  readonly histories: {
    readonly count: number;
    readonly bytes: number;
    readonly hits: SentinelHit[];
    readonly payloads: number;
    readonly encryptedByKey: Record<string, number>;
    /** Payloads in clear by encoding (search attributes are never encrypted). */
    readonly plainByEncoding: Record<string, number>;
    /** Payloads in clear other than search attributes and SDK marker details (should be none). */
    readonly plainElsewhere: string[];
  };
  readonly workerOutput: { readonly bytes: number; readonly hits: SentinelHit[] };
  /** Whether the control sentinel (written without the codec) was found in the DB files. */
  readonly controlFound: boolean;
  readonly passed: boolean;
}

/** Every hit as lines, for assertion messages. */
export function hitLines(hits: readonly SentinelHit[]): string {
  return hits.map(formatHit).join('\n');
}

export async function runPersonalDataDrill(
  options: PersonalDataOptions,
): Promise<PersonalDataReport> {
  const log = options.log ?? (() => undefined);
  const random = prng(options.seed ?? 5);
  const run = `pii-${randomUUID().slice(0, 6)}`;
  const dbFile = join(options.workDir, 'temporal.db');
  const stack = await startChaosStack({
    name: run,
    workDir: options.workDir,
    temporal: { own: { dbFile } },
    simulator: { latency: { minMs: 5, maxMs: 30 } },
    // A talkative level, so that whatever the worker logs in operation is in the scan.
    workerEnv: { LOG_LEVEL: options.workerLogLevel ?? 'debug' },
    ...(options.workerLogFile ? { workerLogFile: options.workerLogFile } : {}),
    log,
  });
  let stopped = false;
  try {
    const ids: string[] = [];
    const starts: Promise<unknown>[] = [];
    for (let i = 0; i < options.bookings; i++) {
      const orderId = orderIdFor(run, i);
      ids.push(orderId);
      const input = mixInput(pick(SCENARIO_MIX, random), orderId, SENTINEL_GUEST);
      const withNotes: BookRoomInput = {
        ...input,
        rooms: input.rooms.map((r) => ({ ...r, notes: SENTINEL_GUEST.notes })),
        customFields: { custom_field_1: `${SENTINEL_GUEST.lastName} VIP` },
      };
      starts.push(startWithRetry(stack.bookings, withNotes));
    }
    await Promise.all(starts);

    // A guest whose e-mail the supplier refuses as too long: the failure path with guest data.
    const longOrder = orderIdFor(`${run}-long`, 0);
    let longEmail: string;
    try {
      await stack.bookings.startBooking(
        mixInput(SCENARIO_MIX[0]!, longOrder, {
          ...SENTINEL_GUEST,
          email: `zqxlongsentinel${'x'.repeat(250)}@example.com`,
        }),
      );
      ids.push(longOrder);
      longEmail = 'started';
    } catch (err) {
      if (!(err instanceof BookingInputError)) throw err;
      longEmail = 'refused at the client boundary';
    }

    const statuses = await waitForSettled(stack.client, ids, { timeoutMs: 120_000, log });
    const first = audit(statuses, ids, stack.sim);
    if (longEmail === 'started') {
      const s = statuses.get(longOrder);
      longEmail =
        s?.kind === 'final'
          ? `started, ended ${s.outcome} (${s.result.error?.code ?? '-'})`
          : `started, ${s?.kind}`;
    }
    // Resolutions add updates (and their payloads) to the histories.
    const resolved = await reconcileAll(stack.bookings, stack.sim, first.reconciliation);
    const again = await waitForSettled(stack.client, first.reconciliation, { timeoutMs: 60_000 });
    const merged = new Map(statuses);
    for (const [k, v] of again) merged.set(k, v);
    const report = audit(merged, ids, stack.sim);

    // Control: the same kind of input written without the codec must be found.
    const controlQueue = `${stack.taskQueue}-control`;
    const controlId = bookingWorkflowId(`${run}-control`);
    const control = await stack.rawClient.workflow.start(BOOK_ROOM_WORKFLOW, {
      taskQueue: controlQueue,
      workflowId: controlId,
      args: [
        mixInput(SCENARIO_MIX[0]!, `${run}-control`, {
          firstName: CONTROL_SENTINEL,
          lastName: 'Control',
          email: 'control@example.com',
          phonePrefix: '+1',
          phone: '1234',
        }),
      ],
    });
    await control.terminate('control workflow for the sentinel scan');

    // Histories, raw and decoded.
    let historyBytes = 0;
    const historyHits: SentinelHit[] = [];
    let payloads = 0;
    const encryptedByKey: Record<string, number> = {};
    const plainByEncoding: Record<string, number> = {};
    const plainElsewhere: string[] = [];
    for (const id of ids) {
      const history = await stack.rawClient.workflow
        .getHandle(bookingWorkflowId(id))
        .fetchHistory();
      const raw = rawHistoryBytes(history);
      historyBytes += raw.length;
      historyHits.push(...findSentinels(raw, GUEST_SENTINELS, `history ${id}`));
      const decoded = await decodeHistory(history, stack.codec);
      payloads += decoded.payloads;
      for (const [k, v] of Object.entries(decoded.encryptedByKey))
        encryptedByKey[k] = (encryptedByKey[k] ?? 0) + v;
      for (const p of decoded.plain) {
        plainByEncoding[p.encoding] = (plainByEncoding[p.encoding] ?? 0) + 1;
        if (!SDK_PLAIN_PATH.test(p.path)) plainElsewhere.push(`${id}: ${p.path}`);
      }
    }

    const dbFiles = [dbFile, `${dbFile}-wal`, `${dbFile}-shm`];
    const scanDb = (): ScanFigures => {
      const r = scanFiles(dbFiles, [...GUEST_SENTINELS, CONTROL_SENTINEL]);
      return { files: r.scanned, bytes: r.scannedBytes, hits: r.hits };
    };
    const whileRunning = scanDb();
    await stack.worker.stop();
    await stack.devServer?.stop();
    stopped = true;
    const afterStop = scanDb();
    const controlFound = [...whileRunning.hits, ...afterStop.hits].some(
      (h) => h.sentinel === CONTROL_SENTINEL,
    );
    const strip = (f: ScanFigures): ScanFigures => ({
      ...f,
      hits: f.hits.filter((h) => h.sentinel !== CONTROL_SENTINEL),
    });
    const output = stack.worker.output();
    const workerHits = findSentinels(output, GUEST_SENTINELS, 'worker output');

    const dbWhileRunning = strip(whileRunning);
    const dbAfterStop = strip(afterStop);
    const passed =
      controlFound &&
      dbWhileRunning.hits.length === 0 &&
      dbAfterStop.hits.length === 0 &&
      historyHits.length === 0 &&
      workerHits.length === 0 &&
      plainElsewhere.length === 0 &&
      report.lost.length === 0 &&
      report.stuck.length === 0 &&
      report.duplicates.length === 0;
    return {
      bookings: ids.length,
      audit: report,
      reconciled: resolved.withBooking + resolved.noBooking,
      longEmail,
      dbWhileRunning,
      dbAfterStop,
      histories: {
        count: ids.length,
        bytes: historyBytes,
        hits: historyHits,
        payloads,
        encryptedByKey,
        plainByEncoding,
        plainElsewhere,
      },
      workerOutput: { bytes: output.length, hits: workerHits },
      controlFound,
      passed,
    };
  } finally {
    if (!stopped) await stack.close();
    else await stack.close().catch(() => undefined);
  }
}

export function formatPersonalDataReport(r: PersonalDataReport): string[] {
  const kb = (n: number) => `${(n / 1024).toFixed(0)} KiB`;
  return [
    `personal data: ${r.bookings} bookings with sentinel guest data through the worker subprocess with the codec`,
    `  outcomes: ${formatCounts(r.audit.outcomes)}; reconciled by an operator: ${r.reconciled}; over-long e-mail: ${r.longEmail}`,
    `  sentinels: ${GUEST_SENTINELS.join(' | ')} (exact, any case, UTF-16, base64 at 3 alignments, base64url)`,
    `  Temporal SQLite while running: ${r.dbWhileRunning.files.length} files, ${kb(r.dbWhileRunning.bytes)}, hits ${r.dbWhileRunning.hits.length}`,
    `  Temporal SQLite after stop: ${r.dbAfterStop.files.length} files, ${kb(r.dbAfterStop.bytes)}, hits ${r.dbAfterStop.hits.length}`,
    `  control sentinel written without the codec found in the DB: ${r.controlFound ? 'yes' : 'NO (the scan proves nothing)'}`,
    `  raw histories: ${r.histories.count}, ${kb(r.histories.bytes)}, hits ${r.histories.hits.length}; payloads ${r.histories.payloads}: encrypted by key ${formatCounts(r.histories.encryptedByKey)}, in clear by encoding ${formatCounts(r.histories.plainByEncoding)} (other than search attributes and SDK marker details: ${r.histories.plainElsewhere.length})`,
    `  worker output: ${kb(r.workerOutput.bytes)}, hits ${r.workerOutput.hits.length}`,
    ...[
      ...r.dbWhileRunning.hits,
      ...r.dbAfterStop.hits,
      ...r.histories.hits,
      ...r.workerOutput.hits,
    ]
      .slice(0, 20)
      .map((h) => `    HIT ${formatHit(h)}`),
    `  ${r.passed ? 'PASS' : 'FAIL'}`,
  ];
}

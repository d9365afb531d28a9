/**
 * Load run: bookings at a steady rate for a long time with about 1 % mixed
 * faults (503s on every endpoint, and bookings in the lost / 5xx / slow / flaky-price-check
 * scenarios). Pass: no duplicate supplier booking, nothing stuck after the arrivals stop, and the
 * worker's resident memory grows at most 5 % between the first and the last part of the run
 * after warm-up. Everything is read through visibility (search attributes), so the audit does not
 * add a query per order to the load.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BookingOutcomeKey, BookingPhaseKey } from '../../src/shared/search-attributes';
import {
  formatCounts,
  orderStatus,
  reconcileAll,
  startWithRetry,
  supplierBookingsByOrder,
} from './audit';
import { PLAIN_MIX, mixInput, orderIdFor, pick, prng, type MixEntry } from './booking-mix';
import { startChaosStack } from './chaos-stack';
import { memoryProbeEnv, memoryProbeNodeArgs, type MemoryProbeSample } from './memory-probe';

export interface LoadRunOptions {
  readonly bookingsPerSecond: number;
  readonly durationMs: number;
  /** Share of faults: 503 probability on every endpoint, and share of bookings in fault scenarios. */
  readonly faultRate: number;
  /** Memory before this is warm-up. @default max(30 s, 25 % of the run) */
  readonly warmupMs?: number;
  readonly settleTimeoutMs: number;
  readonly workDir: string;
  /** Our dev server on a SQLite file (as deployed) or in memory. @default true */
  readonly persistent?: boolean;
  readonly seed?: number;
  /**
   * Preload the memory probe (tools/chaos/memory-probe.ts) into the worker: main-thread heap,
   * external and array buffers every 5 s into `<workDir>/memory/memory.jsonl`, and heap snapshots
   * (main and workflow threads) at these ms after the worker started. @default probe on, no snapshots
   */
  readonly heapSnapshotsAtMs?: readonly number[];
  /** Extra environment and node arguments of the worker process, for experiments. */
  readonly workerEnv?: Readonly<Record<string, string>>;
  readonly workerNodeArgs?: readonly string[];
  /** Largest RSS growth, last fifth vs first fifth after warm-up, that passes. @default 0.05 */
  readonly maxGrowth?: number;
  readonly log?: (line: string) => void;
}

export interface MemorySample {
  readonly atMs: number;
  readonly rssBytes: number;
}

export interface LoadRunReport {
  readonly options: Omit<LoadRunOptions, 'log'>;
  readonly started: number;
  readonly startFailures: number;
  /** Starts that fell behind schedule by more than a second (the client could not keep up). */
  readonly lateStarts: number;
  readonly achievedRate: number;
  readonly supplierRequests: number;
  readonly injected503: number;
  readonly outcomes: Record<string, number>;
  readonly reconciliation: number;
  readonly reconciliationExplained: number;
  readonly reconciliationUnexplained: string[];
  readonly stuck: string[];
  readonly lost: string[];
  readonly duplicates: { orderId: string; bookingIds: number[] }[];
  /** Booking time from start to close, ms, for the ones that closed. */
  readonly latencyMs: { p50: number; p95: number; p99: number; max: number };
  readonly memory: {
    readonly samples: MemorySample[];
    readonly warmupMs: number;
    /** Mean RSS of the first and the last fifth after warm-up, bytes. */
    readonly early: number;
    readonly late: number;
    readonly growth: number;
    readonly maxRss: number;
    readonly maxGrowth: number;
    /** The probe's samples (worker's own view), one per 5 min: MiB. */
    readonly curve: MemoryCurvePoint[];
    readonly probeDir: string;
  };
  readonly workerRestarts: number;
  readonly settledAfterMs: number;
  readonly passed: boolean;
}

export interface MemoryCurvePoint {
  readonly atMin: number;
  readonly rssMiB: number;
  readonly heapUsedMiB: number;
  readonly heapTotalMiB: number;
  /** The workflow thread's V8 heap (the SDK's sandbox). */
  readonly threadHeapUsedMiB: number;
  readonly threadHeapTotalMiB: number;
  readonly externalMiB: number;
  readonly arrayBuffersMiB: number;
}

/** Bytes as MiB, one decimal. */
const mib = (b: number) => Math.round((b / 1048576) * 10) / 10;

/** One point per `everyMs` (the first sample at or after each mark) of the probe's JSON lines. */
export function memoryCurve(jsonl: string, everyMs: number): MemoryCurvePoint[] {
  const samples = jsonl
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as MemoryProbeSample);
  const point = (s: MemoryProbeSample): MemoryCurvePoint => ({
    atMin: Math.round((s.atMs / 60_000) * 10) / 10,
    rssMiB: mib(s.rss),
    heapUsedMiB: mib(s.heapUsed),
    heapTotalMiB: mib(s.heapTotal),
    threadHeapUsedMiB: mib(s.threadHeapUsed ?? 0),
    threadHeapTotalMiB: mib(s.threadHeapTotal ?? 0),
    externalMiB: mib(s.external),
    arrayBuffersMiB: mib(s.arrayBuffers),
  });
  const out: MemoryCurvePoint[] = [];
  let mark = 0;
  for (const s of samples) {
    if (s.atMs < mark) continue;
    out.push(point(s));
    while (mark <= s.atMs) mark += everyMs;
  }
  const last = samples[samples.length - 1];
  if (
    last &&
    out.length > 0 &&
    Math.round((last.atMs / 60_000) * 10) / 10 !== out[out.length - 1]!.atMin
  ) {
    out.push(point(last));
  }
  return out;
}

/**
 * What a long drill leaves for the bench (`bench/results/load-drill-<N>min.json`, read by
 * `npm run bench` into `latest.json` as `loadDrills`): the memory figures and the curve, no samples.
 */
export interface LoadDrillSummary {
  readonly date: string;
  readonly durationMin: number;
  readonly bookingsPerSecond: number;
  readonly started: number;
  readonly warmupMin: number;
  readonly firstFifthRssMiB: number;
  readonly lastFifthRssMiB: number;
  readonly growthPercent: number;
  readonly maxRssMiB: number;
  readonly passed: boolean;
  readonly curve: readonly MemoryCurvePoint[];
  /** How the figures were obtained, when not by this code from the drill's own report. */
  readonly source?: string;
}

/** Drills this long or longer leave a summary for the bench. */
export const LOAD_DRILL_SUMMARY_MIN_MS = 30 * 60_000;

export function loadDrillSummary(r: LoadRunReport, date: Date): LoadDrillSummary {
  return {
    date: date.toISOString(),
    durationMin: Math.round(r.options.durationMs / 60_000),
    bookingsPerSecond: r.options.bookingsPerSecond,
    started: r.started,
    warmupMin: Math.round((r.memory.warmupMs / 60_000) * 10) / 10,
    firstFifthRssMiB: mib(r.memory.early),
    lastFifthRssMiB: mib(r.memory.late),
    growthPercent: Math.round(r.memory.growth * 1000) / 10,
    maxRssMiB: mib(r.memory.maxRss),
    passed: r.passed,
    curve: r.memory.curve,
  };
}

export function loadDrillSummaryPath(resultsDir: string, durationMin: number): string {
  return join(resultsDir, `load-drill-${durationMin}min.json`);
}

/** Writes the summary of a drill of 30 min or more; returns its path, or undefined when shorter. */
export function writeLoadDrillSummary(
  resultsDir: string,
  r: LoadRunReport,
  date: Date,
): string | undefined {
  if (r.options.durationMs < LOAD_DRILL_SUMMARY_MIN_MS) return undefined;
  const summary = loadDrillSummary(r, date);
  mkdirSync(resultsDir, { recursive: true });
  const path = loadDrillSummaryPath(resultsDir, summary.durationMin);
  writeFileSync(path, `${JSON.stringify(summary, null, 2)}\n`);
  return path;
}

/** The 30- and 60-minute summaries in the results directory, those that are there. */
export function readLoadDrillSummaries(
  resultsDir: string,
): Partial<Record<'30min' | '60min', LoadDrillSummary>> | undefined {
  const out: Partial<Record<'30min' | '60min', LoadDrillSummary>> = {};
  for (const min of [30, 60] as const) {
    const path = loadDrillSummaryPath(resultsDir, min);
    if (existsSync(path))
      out[`${min}min`] = JSON.parse(readFileSync(path, 'utf8')) as LoadDrillSummary;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/** Bookings in fault scenarios (each ambiguous or slow on purpose). */
const FAULT_MIX: readonly MixEntry[] = [
  { scenario: 'booking-lost', weight: 1, expect: 'NEEDS_RECONCILIATION' },
  { scenario: 'booking-5xx', weight: 1, expect: 'NEEDS_RECONCILIATION' },
  { scenario: 'price-check-5xx', param: 2, weight: 1, expect: 'CONFIRMED' },
  { scenario: 'booking-slow', param: 2_000, weight: 1, expect: 'CONFIRMED' },
];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export async function runLoad(options: LoadRunOptions): Promise<LoadRunReport> {
  const log = options.log ?? (() => undefined);
  const random = prng(options.seed ?? 17);
  const run = `load-${randomUUID().slice(0, 6)}`;
  const probeDir = join(options.workDir, 'memory');
  const stack = await startChaosStack({
    name: run,
    workDir: options.workDir,
    temporal: {
      own:
        options.persistent === false
          ? { inMemory: true }
          : { dbFile: join(options.workDir, 'temporal.db') },
    },
    simulator: {
      latency: { minMs: 5, maxMs: 50 },
      errorRate: { '*': options.faultRate },
      seed: options.seed ?? 17,
    },
    workerLogFile: join(options.workDir, 'worker.log'),
    workerNodeArgs: [...(options.workerNodeArgs ?? []), ...memoryProbeNodeArgs()],
    workerEnv: {
      ...options.workerEnv,
      ...memoryProbeEnv({ dir: probeDir, snapshotsAtMs: options.heapSnapshotsAtMs ?? [] }),
    },
    log,
  });
  try {
    const t0 = Date.now();
    const samples: MemorySample[] = [];
    const sampleMemory = () => {
      const rss = stack.worker.rssBytes();
      if (rss !== undefined) samples.push({ atMs: Date.now() - t0, rssBytes: rss });
    };
    sampleMemory();
    const sampler = setInterval(sampleMemory, 5_000);

    const kinds = new Map<string, MixEntry>();
    const ids: string[] = [];
    let startFailures = 0;
    let lateStarts = 0;
    let inFlightStarts = 0;
    const pending = new Set<Promise<void>>();
    const total = Math.round((options.durationMs / 1000) * options.bookingsPerSecond);
    const gap = 1000 / options.bookingsPerSecond;
    let lastLog = t0;
    for (let i = 0; i < total; i++) {
      const due = t0 + i * gap;
      const wait = due - Date.now();
      if (wait > 0) await sleep(wait);
      else if (wait < -1_000) lateStarts += 1;
      const entry =
        random() < options.faultRate ? pick(FAULT_MIX, random) : pick(PLAIN_MIX, random);
      const orderId = orderIdFor(run, i);
      ids.push(orderId);
      kinds.set(orderId, entry);
      inFlightStarts += 1;
      const p = startWithRetry(stack.bookings, mixInput(entry, orderId), { timeoutMs: 60_000 })
        .then(
          () => undefined,
          () => void (startFailures += 1),
        )
        .finally(() => {
          inFlightStarts -= 1;
          pending.delete(p);
        });
      pending.add(p);
      if (Date.now() - lastLog > 15_000) {
        lastLog = Date.now();
        const rss = stack.worker.rssBytes();
        log(
          `+${Math.round((Date.now() - t0) / 1000)} s: ${i + 1} started, ${inFlightStarts} starts in flight, worker RSS ${rss ? Math.round(rss / 1048576) : '?'} MiB`,
        );
      }
    }
    await Promise.all(pending);
    const arrivalsEnd = Date.now();
    const achievedRate = ids.length / ((arrivalsEnd - t0) / 1000);
    log(`${ids.length} bookings started in ${((arrivalsEnd - t0) / 1000).toFixed(1)} s`);

    // Settle, through visibility: running and not waiting for an operator.
    const query = `TaskQueue = '${stack.taskQueue}'`;
    const deadline = Date.now() + options.settleTimeoutMs;
    let busy = Infinity;
    while (Date.now() < deadline) {
      busy = (
        await stack.client.workflow.count(
          `${query} AND ExecutionStatus = 'Running' AND BookingPhase != 'NEEDS_RECONCILIATION'`,
        )
      ).count;
      if (busy === 0) break;
      await sleep(2_000);
    }
    const settledAfterMs = Date.now() - arrivalsEnd;
    clearInterval(sampler);
    sampleMemory();

    // Audit through visibility.
    const seen = new Map<
      string,
      { phase?: string; outcome?: string; status: string; ms?: number }
    >();
    for await (const wf of stack.client.workflow.list({ query })) {
      const phase = wf.typedSearchAttributes.get(BookingPhaseKey);
      const outcome = wf.typedSearchAttributes.get(BookingOutcomeKey);
      seen.set(wf.workflowId, {
        status: wf.status.name,
        ...(phase !== undefined ? { phase } : {}),
        ...(outcome !== undefined ? { outcome } : {}),
        ...(wf.closeTime ? { ms: wf.closeTime.getTime() - wf.startTime.getTime() } : {}),
      });
    }
    const outcomes: Record<string, number> = {};
    const stuck: string[] = [];
    const lost: string[] = [];
    const waiting: string[] = [];
    const durations: number[] = [];
    for (const id of ids) {
      const wf = seen.get(`booking-${id}`);
      if (!wf) lost.push(id);
      else if (wf.status === 'COMPLETED') {
        const key = wf.outcome ?? '?';
        outcomes[key] = (outcomes[key] ?? 0) + 1;
        if (wf.ms !== undefined) durations.push(wf.ms);
      } else if (wf.status !== 'RUNNING') lost.push(`${id} (${wf.status})`);
      else if (wf.phase === 'NEEDS_RECONCILIATION') waiting.push(id);
      else stuck.push(`${id} (${wf.phase ?? '?'})`);
    }
    // Every reconciliation must be a fault: a fault scenario, or an injected 503 on the booking.
    const supplier = supplierBookingsByOrder(stack.sim);
    const unexplained: string[] = [];
    let explained = 0;
    for (const id of waiting) {
      const entry = kinds.get(id);
      if (entry?.expect === 'NEEDS_RECONCILIATION') {
        explained += 1;
        continue;
      }
      const st = await orderStatus(stack.client, id).catch(() => undefined);
      const code = st?.kind === 'reconciliation' ? st.lastError?.code : undefined;
      if (code === 'SUPPLIER_UNAVAILABLE' && (supplier.get(id)?.length ?? 0) === 0) explained += 1;
      else unexplained.push(`${id} [${entry?.scenario}] ${code ?? '?'}`);
    }
    await reconcileAll(stack.bookings, stack.sim, waiting);
    const duplicates = [...supplier.entries()]
      .filter(([, b]) => b.length > 1)
      .map(([orderId, bookingIds]) => ({ orderId, bookingIds }));

    const warmupMs = options.warmupMs ?? Math.max(30_000, options.durationMs / 4);
    const after = samples.filter((s) => s.atMs >= warmupMs && s.atMs <= arrivalsEnd - t0);
    const fifth = Math.max(1, Math.floor(after.length / 5));
    const mean = (xs: readonly MemorySample[]) =>
      xs.reduce((sum, s) => sum + s.rssBytes, 0) / Math.max(1, xs.length);
    const early = mean(after.slice(0, fifth));
    const late = mean(after.slice(-fifth));
    const growth = early > 0 ? (late - early) / early : 0;
    const maxRss = Math.max(0, ...samples.map((s) => s.rssBytes));
    const maxGrowth = options.maxGrowth ?? 0.05;
    const probeFile = join(probeDir, 'memory.jsonl');
    const curve = existsSync(probeFile)
      ? memoryCurve(readFileSync(probeFile, 'utf8'), 5 * 60_000)
      : [];
    durations.sort((a, b) => a - b);
    const stats = stack.sim.requests();

    const passed =
      duplicates.length === 0 &&
      stuck.length === 0 &&
      lost.length === 0 &&
      unexplained.length === 0 &&
      startFailures === 0 &&
      growth <= maxGrowth;
    const { log: _omit, ...recorded } = options;
    return {
      options: recorded,
      started: ids.length,
      startFailures,
      lateStarts,
      achievedRate,
      supplierRequests: stats.total,
      injected503: stats.injectedErrors,
      outcomes,
      reconciliation: waiting.length,
      reconciliationExplained: explained,
      reconciliationUnexplained: unexplained,
      stuck,
      lost,
      duplicates,
      latencyMs: {
        p50: percentile(durations, 50),
        p95: percentile(durations, 95),
        p99: percentile(durations, 99),
        max: durations[durations.length - 1] ?? 0,
      },
      memory: { samples, warmupMs, early, late, growth, maxRss, maxGrowth, curve, probeDir },
      workerRestarts: stack.worker.lives.length - 1,
      settledAfterMs,
      passed,
    };
  } finally {
    await stack.close();
  }
}

export function formatLoadReport(r: LoadRunReport): string[] {
  const mib = (b: number) => `${(b / 1048576).toFixed(1)} MiB`;
  return [
    `load: ${r.options.bookingsPerSecond} bookings/s for ${(r.options.durationMs / 1000).toFixed(0)} s with ${(r.options.faultRate * 100).toFixed(1)} % mixed faults (503 on every endpoint; lost/5xx/slow/flaky bookings)`,
    `  started ${r.started} (achieved ${r.achievedRate.toFixed(2)}/s, ${r.lateStarts} starts over 1 s late, ${r.startFailures} failed); supplier requests ${r.supplierRequests}, injected 503s ${r.injected503}`,
    `  outcomes: ${formatCounts(r.outcomes)}; NEEDS_RECONCILIATION ${r.reconciliation} (explained ${r.reconciliationExplained})`,
    `  duplicates ${r.duplicates.length}, stuck ${r.stuck.length}, lost ${r.lost.length}; all settled ${(r.settledAfterMs / 1000).toFixed(1)} s after the last start`,
    `  booking time start→close: p50 ${r.latencyMs.p50} ms, p95 ${r.latencyMs.p95} ms, p99 ${r.latencyMs.p99} ms, max ${r.latencyMs.max} ms`,
    `  worker RSS after ${(r.memory.warmupMs / 1000).toFixed(0)} s warm-up: first fifth ${mib(r.memory.early)}, last fifth ${mib(r.memory.late)}, growth ${(r.memory.growth * 100).toFixed(1)} % (limit ${(r.memory.maxGrowth * 100).toFixed(0)} %); max ${mib(r.memory.maxRss)}; ${r.memory.samples.length} samples`,
    `  RSS samples (MiB): ${r.memory.samples.map((s) => (s.rssBytes / 1048576).toFixed(0)).join(' ')}`,
    `  worker memory per 5 min (probe, ${r.memory.probeDir}): RSS / main heap used, total / workflow thread heap used, total / external / array buffers, MiB`,
    ...r.memory.curve.map(
      (p) =>
        `    ${p.atMin} min: ${p.rssMiB} / ${p.heapUsedMiB}, ${p.heapTotalMiB} / ${p.threadHeapUsedMiB}, ${p.threadHeapTotalMiB} / ${p.externalMiB} / ${p.arrayBuffersMiB}`,
    ),
    ...r.reconciliationUnexplained.map((u) => `  UNEXPLAINED ${u}`),
    ...r.stuck.slice(0, 20).map((s) => `  STUCK ${s}`),
    ...r.lost.slice(0, 20).map((s) => `  LOST ${s}`),
    ...r.duplicates.map((d) => `  DUPLICATE ${d.orderId}: ${d.bookingIds.join(', ')}`),
    `  ${r.passed ? 'PASS' : 'FAIL'}`,
  ];
}

/**
 * Supplier fault burst: bookings arrive at a steady rate; after a steady phase
 * the simulator answers 30 % of requests on every endpoint with 503 for a while, then recovers.
 * Pass: every booking reaches its outcome after the burst (a 5xx on POST /booking is ambiguous by
 * hard rule 1, so those wait for reconciliation, and the supplier shows no booking for them), and
 * supplier requests per second during the burst stay within 2× the steady rate (no retry storm).
 */
import { randomUUID } from 'node:crypto';
import {
  audit,
  formatCounts,
  reconcileAll,
  startWithRetry,
  supplierBookingsByOrder,
  waitForSettled,
  type AuditReport,
} from './audit';
import { PLAIN_MIX, mixInput, orderIdFor, pick, prng } from './booking-mix';
import { startChaosStack, type ChaosStackOptions } from './chaos-stack';

export interface FaultBurstOptions {
  readonly arrivalsPerSecond: number;
  readonly steadyMs: number;
  readonly burstMs: number;
  /** 503 probability on every endpoint during the burst. @default 0.3 */
  readonly errorRate?: number;
  readonly settleTimeoutMs: number;
  readonly workDir: string;
  readonly temporal?: ChaosStackOptions['temporal'];
  readonly seed?: number;
  readonly log?: (line: string) => void;
}

export interface RateWindow {
  readonly fromMs: number;
  readonly toMs: number;
  readonly requests: number;
  readonly perSecond: number;
}

export interface FaultBurstReport {
  readonly options: Omit<FaultBurstOptions, 'log'>;
  readonly bookings: number;
  readonly steady: RateWindow;
  readonly burst: RateWindow;
  /** burst / steady requests per second. */
  readonly ratio: number;
  readonly injected503: number;
  /** Requests per endpoint and status over the whole run. */
  readonly byEndpoint: Record<string, Record<string, number>>;
  /** Per-second request counts (for the record). */
  readonly perSecond: number[];
  readonly audit: AuditReport;
  /** NEEDS_RECONCILIATION whose last error is the injected 5xx and with no supplier booking. */
  readonly explainedReconciliation: number;
  readonly unexplained: { orderId: string; code: string | undefined; supplierBookings: number }[];
  /** Outcomes after the operator resolved the reconciliations. */
  readonly afterReconcile: AuditReport;
  readonly settledAfterBurstMs: number;
  readonly passed: boolean;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function runFaultBurst(options: FaultBurstOptions): Promise<FaultBurstReport> {
  const log = options.log ?? (() => undefined);
  const random = prng(options.seed ?? Date.now());
  const run = `burst-${randomUUID().slice(0, 6)}`;
  const stack = await startChaosStack({
    name: run,
    workDir: options.workDir,
    ...(options.temporal ? { temporal: options.temporal } : {}),
    simulator: { latency: { minMs: 10, maxMs: 40 }, seed: options.seed ?? 11 },
    log,
  });
  try {
    const total = options.steadyMs + options.burstMs;
    const gap = 1000 / options.arrivalsPerSecond;
    const orders: { orderId: string; entry: (typeof PLAIN_MIX)[number] }[] = [];

    // The phases are timed from the first supplier request, not from the first start: on a busy
    // machine the new worker's first workflow tasks can take seconds, and a steady window timed
    // from the first start then saw no request at all (ratio "infinite", seen in loaded runs).
    stack.sim.reset();
    const arrivalsStart = Date.now();
    let t0 = arrivalsStart;
    const samples: { atMs: number; total: number }[] = [];
    const sampler = setInterval(() => {
      samples.push({ atMs: Date.now() - t0, total: stack.sim.requests().total });
    }, 250);

    let burstOver = false;
    const faults = (async () => {
      const give = Date.now() + 120_000;
      while (stack.sim.requests().total === 0 && Date.now() < give) await sleep(50);
      t0 = Date.now();
      samples.length = 0;
      samples.push({ atMs: 0, total: stack.sim.requests().total });
      log(`first supplier request ${t0 - arrivalsStart} ms after the first start`);
      await sleep(options.steadyMs);
      stack.sim.setFaults({ errorRate: { '*': options.errorRate ?? 0.3 } });
      log(`burst on: ${Math.round((options.errorRate ?? 0.3) * 100)} % 503 on every endpoint`);
      await sleep(options.burstMs);
      stack.sim.setFaults({ errorRate: null });
      burstOver = true;
      log('burst off');
    })();
    // Bookings keep arriving at the steady rate until the burst is over.
    const starts: Promise<unknown>[] = [];
    for (let i = 0; !burstOver; i++) {
      const order = { orderId: orderIdFor(run, i), entry: pick(PLAIN_MIX, random) };
      orders.push(order);
      starts.push(startWithRetry(stack.bookings, mixInput(order.entry, order.orderId)));
      await sleep(Math.max(0, arrivalsStart + (i + 1) * gap - Date.now()));
    }
    await Promise.all(starts);
    await faults;
    const burstEnd = Date.now();

    const ids = orders.map((o) => o.orderId);
    const statuses = await waitForSettled(stack.client, ids, {
      timeoutMs: options.settleTimeoutMs,
      log,
    });
    const settledAfterBurstMs = Date.now() - burstEnd;
    clearInterval(sampler);

    // Rates: the steady window skips its first seconds (the pipeline fills up).
    const at = (ms: number) => {
      let best = samples[0]!;
      for (const s of samples) if (Math.abs(s.atMs - ms) < Math.abs(best.atMs - ms)) best = s;
      return best;
    };
    const window = (fromMs: number, toMs: number): RateWindow => {
      const a = at(fromMs);
      const b = at(toMs);
      const requests = b.total - a.total;
      return {
        fromMs: a.atMs,
        toMs: b.atMs,
        requests,
        perSecond: requests / Math.max(0.001, (b.atMs - a.atMs) / 1000),
      };
    };
    const warmup = Math.min(3_000, options.steadyMs / 3);
    const steady = window(warmup, options.steadyMs);
    const burst = window(options.steadyMs, total);
    const perSecond: number[] = [];
    for (let s = 1000; s <= samples[samples.length - 1]!.atMs; s += 1000)
      perSecond.push(at(s).total - at(s - 1000).total);

    const report = audit(statuses, ids, stack.sim);
    const supplier = supplierBookingsByOrder(stack.sim);
    const unexplained: FaultBurstReport['unexplained'] = [];
    let explainedReconciliation = 0;
    for (const id of report.reconciliation) {
      const s = statuses.get(id);
      const code = s?.kind === 'reconciliation' ? s.lastError?.code : undefined;
      const supplierBookings = supplier.get(id)?.length ?? 0;
      if (code === 'SUPPLIER_UNAVAILABLE' && supplierBookings === 0) explainedReconciliation += 1;
      else unexplained.push({ orderId: id, code, supplierBookings });
    }
    await reconcileAll(stack.bookings, stack.sim, report.reconciliation);
    const again = await waitForSettled(stack.client, report.reconciliation, { timeoutMs: 60_000 });
    const merged = new Map(statuses);
    for (const [k, v] of again) merged.set(k, v);
    const afterReconcile = audit(merged, ids, stack.sim);

    const stats = stack.sim.requests();
    const byEndpoint: Record<string, Record<string, number>> = {};
    for (const [name, e] of Object.entries(stats.byEndpoint)) byEndpoint[name] = e.byStatus;
    const ratio = burst.perSecond / Math.max(0.001, steady.perSecond);
    const passed =
      report.lost.length === 0 &&
      report.stuck.length === 0 &&
      report.duplicates.length === 0 &&
      unexplained.length === 0 &&
      afterReconcile.reconciliation.length === 0 &&
      ratio <= 2;
    const { log: _omit, ...recorded } = options;
    return {
      options: recorded,
      bookings: orders.length,
      steady,
      burst,
      ratio,
      injected503: stats.injectedErrors,
      byEndpoint,
      perSecond,
      audit: report,
      explainedReconciliation,
      unexplained,
      afterReconcile,
      settledAfterBurstMs,
      passed,
    };
  } finally {
    await stack.close();
  }
}

export function formatFaultBurstReport(r: FaultBurstReport): string[] {
  const pct = Math.round((r.options.errorRate ?? 0.3) * 100);
  return [
    `fault burst: ${r.bookings} bookings at ${r.options.arrivalsPerSecond}/s; ${r.options.steadyMs / 1000} s steady, then ${pct} % 503 on every endpoint for ${r.options.burstMs / 1000} s`,
    `  supplier requests/s: steady ${r.steady.perSecond.toFixed(1)} (${r.steady.requests} in ${((r.steady.toMs - r.steady.fromMs) / 1000).toFixed(1)} s), burst ${r.burst.perSecond.toFixed(1)} (${r.burst.requests} in ${((r.burst.toMs - r.burst.fromMs) / 1000).toFixed(1)} s): ratio ${r.ratio.toFixed(2)} (limit 2.00)`,
    `  per second: ${r.perSecond.join(' ')}`,
    `  injected 503s: ${r.injected503}; by endpoint: ${Object.entries(r.byEndpoint)
      .map(([e, s]) => `${e}{${formatCounts(s)}}`)
      .join(' ')}`,
    `  settled ${(r.settledAfterBurstMs / 1000).toFixed(1)} s after the burst: ${formatCounts(r.audit.outcomes)}, NEEDS_RECONCILIATION ${r.audit.reconciliation.length} (explained by the injected 503 on POST /booking with no supplier booking: ${r.explainedReconciliation})`,
    `  lost ${r.audit.lost.length}, stuck ${r.audit.stuck.length}, duplicates ${r.audit.duplicates.length}, unexplained ${r.unexplained.length}`,
    ...r.unexplained.map(
      (u) => `    ${u.orderId}: ${u.code ?? '?'} with ${u.supplierBookings} supplier bookings`,
    ),
    `  after operator reconciliation: ${formatCounts(r.afterReconcile.outcomes)}, still waiting ${r.afterReconcile.reconciliation.length}`,
    `  ${r.passed ? 'PASS' : 'FAIL'}`,
  ];
}

/**
 * The worker's Prometheus metrics: ours (prom-client) and the Temporal SDK's, on one endpoint.
 * The SDK's native core serves its own and cannot share a port with prom-client; one scrape target
 * per worker (`prometheus.io/port` names one) means the core binds to loopback and our `/metrics`
 * appends its exposition to ours. `hotel_sdk_metrics_up` says whether the SDK's part was there.
 */
import { DEFAULT_SUPPLIER_ACCOUNT } from '../shared/supplier-accounts';
import { createServer } from 'node:http';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { CallEvent } from '../hotel-api/client';
import type { BookingCounter, WaitingPhase } from './booking-counts';
import { smallServer, type SmallServer } from './http-server';
import { WORKER_SERIES, type WorkerSeries } from './metric-series';

/** The names of our series (the SDK's start with `temporal_`), from metric-series.ts. */
export const METRIC_NAMES = Object.fromEntries(
  Object.entries(WORKER_SERIES).map(([key, series]) => [key, series.name]),
) as { readonly [K in keyof typeof WORKER_SERIES]: (typeof WORKER_SERIES)[K]['name'] };

/** prom-client's options for one of our series: its name, HELP text, label names and registry. */
function seriesOptions<S extends WorkerSeries>(series: S, registry: Registry) {
  return {
    name: series.name,
    help: series.meaning,
    labelNames: [...series.labels] as S['labels'][number][],
    registers: [registry],
  };
}

function histogram<S extends WorkerSeries & { readonly buckets: readonly number[] }>(
  series: S,
  registry: Registry,
) {
  return new Histogram({ ...seriesOptions(series, registry), buckets: [...series.buckets] });
}

export interface WorkerMetricsOptions {
  /** Source of the fleet-wide booking gauges; without it they are not exported. */
  readonly bookingCounter?: BookingCounter;
  /** Node.js process metrics (`process_*`, `nodejs_*`). @default true */
  readonly defaultMetrics?: boolean;
  /**
   * How many orders have order events failing delivery, read at each scrape; without it the gauge
   * is not exported (it would read 0, a false all-clear); a throw leaves that scrape no sample.
   */
  readonly orderEventsFailing?: () => number | Promise<number>;
  /** Called when counting bookings fails (the gauges then have no sample for that scrape). */
  readonly onCountError?: (err: unknown) => void;
}

export interface WorkerMetrics {
  readonly registry: Registry;
  /**
   * For the hotel API client's `onCall`: one finished call of `account` (a configured id, so the
   * label's values are bounded). Never throws. @default account `default`
   */
  readonly recordSupplierCall: (event: CallEvent, account?: string) => void;
  /** For `createBookingWorker({ onPollLateness })`: how late a poll attempt started, ms. */
  readonly recordPollLateness: (lateMs: number) => void;
}

/** The gauges of one round of visibility queries, and how a round's counts or failure set them. */
function roundGauges(registry: Registry, collect: () => Promise<void>) {
  const gauge = <S extends WorkerSeries>(series: S) =>
    new Gauge({ ...seriesOptions(series, registry), collect });
  const waiting = gauge(WORKER_SERIES.bookingsWaiting);
  const oldestWaiting = gauge(WORKER_SERIES.bookingsWaitingOldest);
  const outcomes = gauge(WORKER_SERIES.bookingsByOutcome);
  const cancellations = gauge(WORKER_SERIES.cancellationsByOutcome);
  const flags = gauge(WORKER_SERIES.reconfirmationFlags);
  const unconfirmed = gauge(WORKER_SERIES.cancellationsUnconfirmed);
  return {
    set(counts: Awaited<ReturnType<BookingCounter['get']>>): void {
      for (const [phase, n] of Object.entries(counts.waiting)) waiting.set({ phase }, n);
      // 0 only where none waits: a phase whose oldest start was not read is unknown.
      oldestWaiting.reset();
      for (const phase of Object.keys(counts.waiting) as WaitingPhase[]) {
        const started = counts.oldestWaitingStart[phase];
        if (started !== undefined) {
          oldestWaiting.set({ phase }, Math.max(0, counts.at - started) / 1000);
        } else if (counts.waiting[phase] === 0) {
          oldestWaiting.set({ phase }, 0);
        }
      }
      for (const [outcome, n] of Object.entries(counts.outcomes)) outcomes.set({ outcome }, n);
      for (const [outcome, n] of Object.entries(counts.cancellations))
        cancellations.set({ outcome }, n);
      flags.set(counts.reconfirmationFlags);
      unconfirmed.set(counts.cancellationsUnconfirmed);
    },
    /**
     * Unknown is no sample, never a number (a 0 would tell the alerts "none"). reset() puts an
     * unlabelled gauge back at 0, so those two are removed: remove() deletes their one sample.
     */
    unknown(): void {
      for (const g of [waiting, oldestWaiting, outcomes, cancellations]) g.reset();
      flags.remove();
      unconfirmed.remove();
    },
  };
}

/**
 * The fleet-wide booking gauges: one round of visibility queries feeds them all (a scrape collects
 * every metric at once, so their collects share the round the first one started).
 */
function bookingGauges(
  registry: Registry,
  counter: BookingCounter,
  onCountError?: (err: unknown) => void,
): void {
  let round: Promise<void> | undefined;
  const refresh = (): Promise<void> =>
    (round ??= counter
      .get()
      .then(
        (counts) => gauges.set(counts),
        (err: unknown) => {
          gauges.unknown();
          countErrors.inc();
          onCountError?.(err);
        },
      )
      .finally(() => {
        round = undefined;
      }));
  const countErrors = new Counter({
    ...seriesOptions(WORKER_SERIES.bookingCountErrors, registry),
    // Collected after the round like the gauges, so a scrape reports its own failure.
    collect: () => refresh(),
  });
  const gauges = roundGauges(registry, refresh);
}

/** How many orders have order events failing delivery, read at each scrape. */
function orderEventsGauge(
  registry: Registry,
  failingOrders: () => number | Promise<number>,
  onCountError?: (err: unknown) => void,
): void {
  new Gauge({
    ...seriesOptions(WORKER_SERIES.orderEventsFailing, registry),
    async collect() {
      try {
        this.set(await failingOrders());
      } catch (err) {
        // Visibility unreachable: unknown, so no sample (neither the last value nor the 0 an
        // unlabelled gauge starts at); the failure is logged once.
        this.remove();
        onCountError?.(err);
      }
    },
  });
}

/** Each supplier call counted and timed, by endpoint, method, status and code. */
function supplierCallRecorder(registry: Registry): (event: CallEvent, account?: string) => void {
  const calls = new Counter(seriesOptions(WORKER_SERIES.supplierCalls, registry));
  const duration = histogram(WORKER_SERIES.supplierCallDuration, registry);
  return (event, account = DEFAULT_SUPPLIER_ACCOUNT) => {
    try {
      const labels = { account, endpoint: event.endpoint, method: event.method };
      const status = event.statusCode === undefined ? 'none' : String(event.statusCode);
      calls.inc({ ...labels, status, code: event.code ?? 'OK' });
      const result = event.code === undefined ? 'ok' : 'error';
      duration.observe({ ...labels, result }, event.durationMs / 1000);
    } catch {
      // Metrics never break a booking.
    }
  };
}

/** Creates the registry and our series. One per process (default metrics are process-wide). */
export function createWorkerMetrics(options: WorkerMetricsOptions = {}): WorkerMetrics {
  const registry = new Registry();
  if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: registry });
  const recordSupplierCall = supplierCallRecorder(registry);
  const lateness = histogram(WORKER_SERIES.pollLateness, registry);
  if (options.bookingCounter) bookingGauges(registry, options.bookingCounter, options.onCountError);
  if (options.orderEventsFailing)
    orderEventsGauge(registry, options.orderEventsFailing, options.onCountError);
  return {
    registry,
    recordSupplierCall,
    recordPollLateness(lateMs) {
      if (Number.isFinite(lateMs) && lateMs >= 0) lateness.observe(lateMs / 1000);
    },
  };
}

export interface MetricsServerOptions {
  readonly registry: Registry;
  /** The SDK's own Prometheus endpoint (e.g. `http://127.0.0.1:9465/metrics`), appended to ours. */
  readonly sdkMetricsUrl?: string;
}

/** How long a scrape waits for the SDK's endpoint, ms. */
const SDK_WAIT_MS = 2_000;

/** `GET /metrics` (ours, then the SDK's); anything else is 404. */
export function buildMetricsServer(options: MetricsServerOptions): SmallServer {
  const { registry } = options;
  const sdkUp = options.sdkMetricsUrl
    ? new Gauge(seriesOptions(WORKER_SERIES.sdkMetricsUp, registry))
    : undefined;

  async function sdkExposition(): Promise<string> {
    if (!options.sdkMetricsUrl || !sdkUp) return '';
    try {
      const res = await fetch(options.sdkMetricsUrl, { signal: AbortSignal.timeout(SDK_WAIT_MS) });
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      const text = await res.text();
      sdkUp.set(1);
      return text;
    } catch {
      sdkUp.set(0);
      return '';
    }
  }

  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' || path !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not Found\n');
      return;
    }
    // The SDK's part first, so that our exposition reports whether it came.
    sdkExposition()
      .then(async (sdk) => {
        const ours = await registry.metrics();
        const body = sdk === '' ? ours : `${ours}${ours.endsWith('\n') ? '' : '\n'}${sdk}`;
        res.writeHead(200, { 'content-type': registry.contentType }).end(body);
      })
      .catch((err: unknown) => {
        res
          .writeHead(500, { 'content-type': 'text/plain' })
          .end(`metrics collection failed: ${err instanceof Error ? err.message : String(err)}\n`);
      });
  });
  return smallServer(server);
}

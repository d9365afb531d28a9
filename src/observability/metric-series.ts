/**
 * Every metric series the product exports, in one list: the worker's own, the counters workflows
 * create through the SDK's meter, and the SDK's series that alerts, dashboard and docs read.
 * docs/operating.md's table is generated from it; a test fails when a doc names a series not here.
 */

export interface MetricSeries {
  /** As scraped (a histogram adds `_bucket`, `_sum` and `_count`). */
  readonly name: string;
  readonly type: 'counter' | 'gauge' | 'histogram';
  /** Label names, as scraped. */
  readonly labels: readonly string[];
  /** What it counts or measures: the series' HELP text, and its row in the docs. */
  readonly meaning: string;
}

export interface WorkerSeries extends MetricSeries {
  /** Histogram buckets, in the series' unit. */
  readonly buckets?: readonly number[];
}

/** The worker's series (prom-client), registered by `createWorkerMetrics` from this record. */
export const WORKER_SERIES = {
  supplierCalls: {
    name: 'hotel_supplier_calls_total',
    type: 'counter',
    labels: ['account', 'endpoint', 'method', 'status', 'code'],
    meaning:
      'Supplier API calls that reached the HTTP layer, by supplier account (a configured id: `default` for HOTEL_API_*), endpoint template, method, HTTP status ("none" when no answer came) and error code ("OK" on success).',
  },
  supplierCallDuration: {
    name: 'hotel_supplier_call_duration_seconds',
    type: 'histogram',
    labels: ['account', 'endpoint', 'method', 'result'],
    meaning:
      'Wall time of supplier API calls, seconds, by supplier account, endpoint template, method and result (ok or error).',
    // Fast reads to the 120 s booking timeout.
    buckets: [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
  },
  pollLateness: {
    name: 'hotel_poll_lateness_seconds',
    type: 'histogram',
    labels: [],
    meaning:
      'How late confirmation and cancellation polls started after they were scheduled, seconds (worker or rate-limit backlog).',
    // Dispatch delays up to a backlog of minutes.
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
  },
  bookingsWaiting: {
    name: 'hotel_bookings_waiting',
    type: 'gauge',
    labels: ['phase'],
    meaning:
      'Running bookings waiting for an operator, by phase: NEEDS_RECONCILIATION, AWAITING_APPROVAL, STATUS_UNREADABLE (fleet-wide, from visibility: aggregate with max, not sum).',
  },
  bookingsWaitingOldest: {
    name: 'hotel_bookings_waiting_oldest_seconds',
    type: 'gauge',
    labels: ['phase'],
    meaning:
      'Age of the oldest running booking waiting for an operator, by phase, seconds since that booking started (0 when none waits; fleet-wide: aggregate with max).',
  },
  bookingsByOutcome: {
    name: 'hotel_bookings_by_outcome',
    type: 'gauge',
    labels: ['outcome'],
    meaning:
      "Orders' decisions by outcome: bookRoom runs (bookRoomAndGuard too) in visibility whose BookingOutcome is that outcome, running or closed. A CONFIRMED order counts from its decision, while its guard runs and after (still CONFIRMED if the guard later cancelled it), until its closed runs pass the namespace retention; a guard continued as new counts once per run, while a start after the order closed answers the decision and is not counted (fleet-wide: aggregate with max).",
  },
  cancellationsByOutcome: {
    name: 'hotel_cancellations_by_outcome',
    type: 'gauge',
    labels: ['outcome'],
    meaning:
      'Finished cancelBooking workflows by outcome still in visibility (within the namespace retention; fleet-wide: aggregate with max).',
  },
  bookingCountErrors: {
    name: 'hotel_booking_count_errors_total',
    type: 'counter',
    labels: [],
    meaning:
      'Failed attempts to count bookings in Temporal visibility (the booking gauges are absent from that scrape).',
  },
  sdkMetricsUp: {
    name: 'hotel_sdk_metrics_up',
    type: 'gauge',
    labels: [],
    meaning: "1 when the Temporal SDK's metrics endpoint answered this scrape, else 0.",
  },
  reconfirmationFlags: {
    name: 'hotel_reconfirmation_flags',
    type: 'gauge',
    labels: [],
    meaning:
      'Confirmed bookings whose reconfirmation read something other than CONFIRMED (running guards flagged; fleet-wide: aggregate with max).',
  },
  cancellationsUnconfirmed: {
    name: 'hotel_cancellations_unconfirmed',
    type: 'gauge',
    labels: [],
    meaning:
      'Cancellations the supplier never confirmed: guards in CANCELLATION_PENDING, and cancelBooking runs ended STILL_ACTIVE in the last 24 h (fleet-wide: aggregate with max).',
  },
  orderEventsFailing: {
    name: 'hotel_order_events_failing',
    type: 'gauge',
    labels: [],
    meaning: 'Orders whose order events are failing delivery (undelivered after retries began).',
  },
} as const satisfies Record<string, WorkerSeries>;

/** The prefix the SDK's Prometheus exporter gives every series, workflows' own included. */
export const SDK_PREFIX = 'temporal_';

/**
 * Counters workflows create through the SDK's meter (`metricMeter.createCounter(meterName, …)`),
 * exported by the SDK as `temporal_<meterName>`, with the SDK's labels (namespace, task_queue,
 * workflow_type) besides the workflow's own.
 */
export const WORKFLOW_SERIES = {
  reconfirmationFlags: {
    meterName: 'hotel_reconfirmation_flags',
    name: `${SDK_PREFIX}hotel_reconfirmation_flags`,
    type: 'counter',
    labels: ['reason', 'namespace', 'task_queue', 'workflow_type'],
    meaning:
      'Confirmed bookings flagged by the guard (reconfirmation not CONFIRMED, supplier cancelled, cancellation unconfirmed), by reason.',
  },
} as const satisfies Record<string, MetricSeries & { readonly meterName: string }>;

/**
 * The SDK's own series that the alerts (deploy/prometheus/alerts.yml), the dashboard and the docs
 * depend on, listed to be checked: test/ops/alerts-end-to-end.test.ts sees each on a real worker's
 * `/metrics`, with these labels. Latencies are in milliseconds (the SDK's default).
 */
export const SDK_SERIES: readonly MetricSeries[] = [
  {
    name: 'temporal_num_pollers',
    type: 'gauge',
    labels: ['poller_type', 'namespace', 'task_queue'],
    meaning:
      'Pollers the worker has open, by type (workflow_task, activity_task); no workflow-task poller: the worker takes no work (HotelWorkerNotPolling).',
  },
  {
    name: 'temporal_worker_task_slots_available',
    type: 'gauge',
    labels: ['worker_type', 'namespace', 'task_queue'],
    meaning: 'Free task slots of the worker, by worker type (WorkflowWorker, ActivityWorker).',
  },
  {
    name: 'temporal_workflow_task_execution_failed',
    type: 'counter',
    labels: ['workflow_type', 'failure_reason', 'namespace', 'task_queue'],
    meaning:
      'Workflow tasks that failed (a non-determinism after a bad deploy, a workflow type the worker lacks): HotelWorkflowTaskFailures.',
  },
  {
    name: 'temporal_workflow_task_execution_latency',
    type: 'histogram',
    labels: ['workflow_type', 'namespace', 'task_queue'],
    meaning: 'Time a workflow task took to run on the worker, ms.',
  },
  {
    name: 'temporal_activity_execution_failed',
    type: 'counter',
    labels: ['activity_type', 'workflow_type', 'failure_reason', 'namespace', 'task_queue'],
    meaning: 'Activity attempts that failed (each retry counts), by activity type.',
  },
  {
    name: 'temporal_activity_execution_latency',
    type: 'histogram',
    labels: ['activity_type', 'workflow_type', 'namespace', 'task_queue'],
    meaning: 'Time an activity attempt took, ms.',
  },
];

/** Every series of the three lists above. */
export function allMetricSeries(): MetricSeries[] {
  return [...Object.values(WORKER_SERIES), ...Object.values(WORKFLOW_SERIES), ...SDK_SERIES];
}

/** The names a scrape shows for `series`: a histogram's three, or its own. */
export function scrapedNames(series: MetricSeries): string[] {
  return series.type === 'histogram'
    ? ['_bucket', '_sum', '_count'].map((s) => series.name + s)
    : [series.name];
}

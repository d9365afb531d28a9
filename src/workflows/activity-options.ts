/**
 * Timeouts and retry policies of every activity: the one place they are decided. They follow the
 * hotel API client's classification: activities throw non-retryable failures for what must not be
 * retried and carry `nextRetryDelay` for `Retry-After`, so policies only bound time and attempts.
 */
import type { Priority } from '@temporalio/common';
import { workflowInfo } from '@temporalio/workflow';
import type { ActivityOptions, LocalActivityOptions } from '@temporalio/workflow';
import { DEFAULT_SUPPLIER_ACCOUNT, supplierTaskQueue } from '../shared/supplier-accounts';

/**
 * Task-queue priority of each kind of activity (1 is served first; unset is 3; the server's
 * `matching.useNewMatcher` honours it, dev server and cluster alike). When the activity queue has a
 * backlog (the fleet's slots full, or the supplier rate cap reached), a new booking's price check
 * and booking call, and a cancellation, are dispatched before the thousands of confirmation polls
 * that are due, instead of behind them. Priority orders the one queue, so the fleet-wide supplier
 * rate cap (`SUPPLIER_MAX_CALLS_PER_SECOND`, one per task queue) still covers every call.
 * Replay does not compare priorities, so running workflows are unaffected (test/workflows/replay.test.ts).
 */
export const PRIORITY = {
  /** What a customer waits for now: price checks, booking calls, cancel requests, reads. */
  booking: { priorityKey: 1 },
  /** Confirmation and cancellation polls: a poll a second late costs nobody anything. */
  poll: { priorityKey: 4 },
  /** Background work (content sync): after everything else. */
  background: { priorityKey: 5 },
} as const satisfies Record<string, Priority>;

/**
 * A supplier call's options for the order's account: the default account's calls stay on the
 * booking task queue; another account's go to its own queue (src/shared/supplier-accounts.ts),
 * whose workers hold that account's client, slots and rate cap. The one place calls are routed.
 */
export function onAccount<T extends ActivityOptions>(options: T, supplier: string | undefined): T {
  if (supplier === undefined || supplier === DEFAULT_SUPPLIER_ACCOUNT) return options;
  return { ...options, taskQueue: supplierTaskQueue(workflowInfo().taskQueue, supplier) };
}

/**
 * Whether the order's supplier reads may be made as local activities (in the worker that holds
 * the workflow task): only the default account's, since a local read takes none of its account's
 * slots or cap; another account's reads always go to its own queue.
 */
export function readsLocally(supplier: string | undefined): boolean {
  return supplier === undefined || supplier === DEFAULT_SUPPLIER_ACCOUNT;
}

/**
 * How long one supplier read may run: a little above the client's read timeout
 * (`HOTEL_API_READ_TIMEOUT_MS`, 15 s by default), so the client's own TIMEOUT is the usual signal,
 * and a read cut off by a dead worker is retried elsewhere within ~20 s rather than ~45 s.
 * {@link clientTimeoutProblems} refuses a read timeout that would not fit under it.
 */
export const READ_CALL_LIMIT_MS = 20_000;
const READ_START_TO_CLOSE = READ_CALL_LIMIT_MS;

/**
 * What a call's activity needs beyond the client's own deadline to report the answer (or the
 * client's TIMEOUT): the answer's body, decoding, the completion reaching the server.
 */
export const CALL_REPORT_MARGIN_MS = 15_000;

/**
 * `POST /booking`'s start-to-close timeout: only a backstop. The client's booking timeout
 * (`HOTEL_API_BOOKING_TIMEOUT_MS`, which workflow code cannot read) ends a slow call, and a dead
 * worker is noticed by the 20 s heartbeat timeout; this bounds a worker that is alive but stuck.
 * A fixed 150 s used to sit here: a booking timeout above it turned every slow booking into a
 * reconciliation, silently. Now {@link clientTimeoutProblems} refuses a booking timeout that does
 * not fit under the backstop, at start.
 */
export const BOOKING_CALL_BACKSTOP_MS = 15 * 60_000;

/**
 * The shutdown grace of a worker: every booking call in flight may run to the client's booking
 * timeout and be reported (a call cut off after its write needs an operator). The one place it
 * is derived; src/worker-config.ts applies it when `SHUTDOWN_GRACE_MS` is unset.
 */
export function shutdownGraceMsFor(bookingTimeoutMs: number): number {
  return bookingTimeoutMs + CALL_REPORT_MARGIN_MS;
}

/**
 * Client timeouts the activity timeouts cannot honour, one line each naming the variable: a call
 * the activity times out before the client does ends as an ambiguous activity timeout (bookings:
 * reconciliation) instead of the client's own classified answer.
 */
export function clientTimeoutProblems(timeouts: {
  readonly bookingMs: number;
  readonly readMs: number;
}): string[] {
  const problems: string[] = [];
  const maxBooking = BOOKING_CALL_BACKSTOP_MS - CALL_REPORT_MARGIN_MS;
  if (timeouts.bookingMs > maxBooking) {
    problems.push(
      `HOTEL_API_BOOKING_TIMEOUT_MS: ${timeouts.bookingMs} is over ${maxBooking}, the longest the booking activity's ${BOOKING_CALL_BACKSTOP_MS / 60_000} min backstop leaves room for (src/workflows/activity-options.ts)`,
    );
  }
  const maxRead = READ_CALL_LIMIT_MS - 2_000;
  if (timeouts.readMs > maxRead) {
    problems.push(
      `HOTEL_API_READ_TIMEOUT_MS: ${timeouts.readMs} is over ${maxRead}: supplier reads run in activities of ${READ_CALL_LIMIT_MS / 1000} s (src/workflows/activity-options.ts)`,
    );
  }
  return problems;
}

/**
 * The check of an order's earlier runs (activities/earlier-runs.ts) before a booking's first
 * supplier call: a local activity, since it calls Temporal, not the supplier (no rate cap, no
 * task-queue round trip, one marker in history). Visibility that lags or a server that does not
 * answer is retried for 10 minutes; then the booking ends FAILED with no booking sent, because
 * booking without knowing the earlier runs could book the order twice.
 */
export const EARLIER_RUNS_ACTIVITY: LocalActivityOptions = {
  startToCloseTimeout: '30s',
  scheduleToCloseTimeout: '10m',
  localRetryThreshold: '10s',
  retry: { initialInterval: '200ms', backoffCoefficient: 2, maximumInterval: '30s' },
};

/**
 * Announcing an order event (a local activity of bookRoom and the guard, in the workflow task that
 * changed the order's truth: no task queue, so it counts against no rate cap): a direct POST cut
 * at 1 s (src/order-events/activities/direct.ts), else a hand-over to the endpoint's delivery.
 * Retried until one of them took it: the workflow does not close with an event unannounced.
 */
export const ANNOUNCE_EVENT_ACTIVITY: LocalActivityOptions = {
  startToCloseTimeout: '10s',
  localRetryThreshold: '10s',
  retry: { initialInterval: '500ms', backoffCoefficient: 2, maximumInterval: '1m' },
};

/**
 * One delivery round of an overflow workflow (src/order-events/workflows/overflow-delivery.ts):
 * three POSTs of its event a few seconds apart (each bounded by DELIVERY_TIMEOUT_MS); the
 * workflow then waits with its own backoff (decisions.ts there) and shows the order as failing.
 */
export const DELIVER_EVENT_ACTIVITY: ActivityOptions = {
  startToCloseTimeout: '20s',
  retry: {
    initialInterval: '2s',
    backoffCoefficient: 2,
    maximumInterval: '10s',
    maximumAttempts: 3,
  },
};

/**
 * One round of the endpoint's delivery (src/order-events/workflows/endpoint-delivery.ts): every
 * due order's events, up to three POSTs each a few seconds apart, orders side by side; the
 * activity starts no POST after ROUND_BUDGET_MS (src/order-events/activities/rounds.ts) and
 * reports what went. It heartbeats, so a round lost with its worker is sent again by another
 * within 20 s; answers the endpoint gave are results, not failures, so only a lost or broken
 * round is retried here.
 */
export const DELIVER_ROUND_ACTIVITY: ActivityOptions = {
  startToCloseTimeout: '2m',
  heartbeatTimeout: '20s',
  retry: { initialInterval: '2s', backoffCoefficient: 2, maximumAttempts: 3 },
};

/**
 * Handing events the endpoint's delivery cannot hold to their orders' overflow workflows
 * (signal-with-start): retried until Temporal takes them.
 */
export const HAND_OVER_TO_ORDERS_ACTIVITY: ActivityOptions = {
  startToCloseTimeout: '1m',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '1m' },
};

/** Reads (price check, retrieve): retried with backoff on retryable failures. */
export const READ_ACTIVITY: ActivityOptions = {
  priority: PRIORITY.booking,
  startToCloseTimeout: READ_START_TO_CLOSE,
  scheduleToCloseTimeout: '10m',
  retry: {
    initialInterval: '1s',
    backoffCoefficient: 2,
    maximumInterval: '1m',
    maximumAttempts: 8,
  },
};

/**
 * A supplier read made as a local activity within the worker's local budget
 * (activities/local-reads.ts): the read's own timeouts and retries. An attempt that finds the
 * budget spent answers at once, and the workflow schedules the read with {@link READ_ACTIVITY}.
 */
export const LOCAL_READ_ACTIVITY: LocalActivityOptions = {
  startToCloseTimeout: READ_START_TO_CLOSE,
  scheduleToCloseTimeout: '10m',
  localRetryThreshold: '10s',
  retry: READ_ACTIVITY.retry!,
};

/**
 * Starting the order's guard from the task that decided CONFIRMED (activities/guard-start.ts): a
 * local activity, retried until Temporal takes the start, as a child's start would be; the
 * booking's result waits for it, so no confirmed order is left unguarded.
 */
export const START_GUARD_ACTIVITY: LocalActivityOptions = {
  startToCloseTimeout: '10s',
  localRetryThreshold: '10s',
  retry: { initialInterval: '200ms', backoffCoefficient: 2, maximumInterval: '30s' },
};

/**
 * `POST /booking`: never retried by Temporal. A worker that dies mid-call surfaces as a heartbeat
 * timeout (20 s), which the workflow treats as ambiguous. The client's booking timeout, whatever
 * it is configured to, is the usual end of a slow call: the start-to-close timeout is only the
 * backstop ({@link BOOKING_CALL_BACKSTOP_MS}). Timeouts are not part of replay's command check,
 * so running workflows are unaffected by the change from 150 s.
 */
export const CREATE_BOOKING_ACTIVITY: ActivityOptions = {
  priority: PRIORITY.booking,
  startToCloseTimeout: BOOKING_CALL_BACKSTOP_MS,
  heartbeatTimeout: '20s',
  retry: { maximumAttempts: 1 },
};

/**
 * Cancel requests (`DELETE /cancel`): idempotent at the supplier (cancelling twice is harmless), so
 * retried (backoff up to a minute) on anything but a refusal, for as long as the cancellation's
 * deadline allows: `scheduleToCloseTimeout` is set per call to it, so a supplier outage ends
 * `STILL_ACTIVE`, never a failure.
 */
export const CANCEL_ACTIVITY: ActivityOptions = {
  priority: PRIORITY.booking,
  startToCloseTimeout: READ_START_TO_CLOSE,
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '1m' },
};

/**
 * Polls (confirmation, cancellation): each attempt is one retrieve; the activity sets the exact
 * delay of the next poll. `scheduleToCloseTimeout` (the deadline) is set per call.
 */
export const POLL_ACTIVITY: ActivityOptions = {
  priority: PRIORITY.poll,
  startToCloseTimeout: READ_START_TO_CLOSE,
  // Only an attempt that ends without `nextRetryDelay` uses this backoff: one lost with its worker
  // (start-to-close timeout). Its exponent counts every poll before it, so a 10 m cap made a poll
  // lost in a deploy wait 10 minutes after ten polls (deploy drill); 30 s puts it back quickly.
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '30s' },
};

/** After a failure that proves the booking request never left us, try again this many times. */
export const BOOKING_SEND_ATTEMPTS = 5;
/** Pause between such tries, doubling each time. */
export const BOOKING_RESEND_BASE_DELAY_MS = 1_000;

/**
 * Content sync: a list page with its details (or the end of a pass). Heartbeats every few
 * seconds, so a dead worker's page moves to another worker within 30 s; the retried attempt
 * resumes from its heartbeat details.
 */
export const CONTENT_SYNC_ACTIVITY: ActivityOptions = {
  priority: PRIORITY.background,
  startToCloseTimeout: '15m',
  heartbeatTimeout: '30s',
  retry: {
    initialInterval: '1s',
    backoffCoefficient: 2,
    maximumInterval: '1m',
    maximumAttempts: 10,
  },
};

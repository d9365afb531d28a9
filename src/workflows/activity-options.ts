/**
 * Every activity's timeouts and retry policy, in one place (replay compares neither timeouts nor
 * priorities). Activities throw non-retryable failures and carry `nextRetryDelay`, so policies
 * only bound time and attempts.
 */
import type { Priority } from '@temporalio/common';
import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { ActivityOptions, LocalActivityOptions } from '@temporalio/workflow';
import { DEFAULT_SUPPLIER_ACCOUNT, supplierTaskQueue } from '../shared/supplier-accounts';

/**
 * Task-queue priority (1 first; unset is 3): with a backlog, a booking's calls and cancellations go
 * before the due polls. One queue, so the supplier rate cap still covers every call.
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
 * The one place calls are routed: the default account's stay on the booking task queue, another
 * account's go to its own (src/shared/supplier-accounts.ts), with its client, slots and rate cap.
 */
export function onAccount<T extends ActivityOptions>(options: T, supplier: string | undefined): T {
  if (supplier === undefined || supplier === DEFAULT_SUPPLIER_ACCOUNT) return options;
  return { ...options, taskQueue: supplierTaskQueue(workflowInfo().taskQueue, supplier) };
}

/** `T`'s activities with `options`, on the account's task queue ({@link onAccount}). */
export function accountActivities<T extends object>(
  supplier: string | undefined,
  options: ActivityOptions,
) {
  return proxyActivities<T>(onAccount(options, supplier));
}

/** Only the default account's reads may be local: a local read takes none of an account's slots or cap. */
export function readsLocally(supplier: string | undefined): boolean {
  return supplier === undefined || supplier === DEFAULT_SUPPLIER_ACCOUNT;
}

/**
 * One supplier read: a little above the client's read timeout (15 s by default), so the client's
 * TIMEOUT is the usual signal and a dead worker's read is retried within ~20 s.
 */
export const READ_CALL_LIMIT_MS = 20_000;

/** What a call's activity needs beyond the client's deadline to report its answer. */
export const CALL_REPORT_MARGIN_MS = 15_000;

/**
 * `POST /booking`'s start-to-close timeout, only a backstop for a worker alive but stuck: the
 * client's booking timeout ends a slow call, the heartbeat timeout a dead worker. A booking timeout
 * over it would turn slow bookings into reconciliations: {@link clientTimeoutProblems} refuses it.
 */
export const BOOKING_CALL_BACKSTOP_MS = 15 * 60_000;

/**
 * A worker's shutdown grace: a booking call in flight may run to its timeout and be reported (one
 * cut off after its write needs an operator). src/worker-config.ts applies it by default.
 */
export function shutdownGraceMsFor(bookingTimeoutMs: number): number {
  return bookingTimeoutMs + CALL_REPORT_MARGIN_MS;
}

/**
 * Client timeouts the activity timeouts cannot honour, one line each naming the variable: the
 * activity timing out first turns the client's classified answer into an ambiguous timeout.
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

/** An order's earlier runs (local: Temporal, not the supplier); then FAILED, never booked blind. */
export const EARLIER_RUNS_ACTIVITY: LocalActivityOptions = {
  startToCloseTimeout: '30s',
  scheduleToCloseTimeout: '10m',
  localRetryThreshold: '10s',
  retry: { initialInterval: '200ms', backoffCoefficient: 2, maximumInterval: '30s' },
};

/** Announcing an order event (../order-events/README.md), retried until taken. */
export const ANNOUNCE_EVENT_ACTIVITY: LocalActivityOptions = {
  startToCloseTimeout: '10s',
  localRetryThreshold: '10s',
  retry: { initialInterval: '500ms', backoffCoefficient: 2, maximumInterval: '1m' },
};

/** One round of an overflow workflow: three POSTs of its event; the workflow then backs off. */
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
 * One round of the endpoint's delivery (every due order's events, within ROUND_BUDGET_MS): it
 * heartbeats, and the endpoint's answers are results, so only a lost or broken round is retried.
 */
export const DELIVER_ROUND_ACTIVITY: ActivityOptions = {
  startToCloseTimeout: '2m',
  heartbeatTimeout: '20s',
  retry: { initialInterval: '2s', backoffCoefficient: 2, maximumAttempts: 3 },
};

/** Handing events to their orders' overflow workflows: retried until Temporal takes them. */
export const HAND_OVER_TO_ORDERS_ACTIVITY: ActivityOptions = {
  startToCloseTimeout: '1m',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '1m' },
};

/** Reads (price check, retrieve): retried with backoff on retryable failures. */
export const READ_ACTIVITY: ActivityOptions = {
  priority: PRIORITY.booking,
  startToCloseTimeout: READ_CALL_LIMIT_MS,
  scheduleToCloseTimeout: '10m',
  retry: {
    initialInterval: '1s',
    backoffCoefficient: 2,
    maximumInterval: '1m',
    maximumAttempts: 8,
  },
};

/** A local supplier read; one that finds the worker's budget spent is scheduled as {@link READ_ACTIVITY}. */
export const LOCAL_READ_ACTIVITY: LocalActivityOptions = {
  startToCloseTimeout: READ_CALL_LIMIT_MS,
  scheduleToCloseTimeout: '10m',
  localRetryThreshold: '10s',
  retry: READ_ACTIVITY.retry!,
};

/** Starting the guard (earlier versions): retried until taken, so no confirmed order is unguarded. */
export const START_GUARD_ACTIVITY: LocalActivityOptions = {
  startToCloseTimeout: '10s',
  localRetryThreshold: '10s',
  retry: { initialInterval: '200ms', backoffCoefficient: 2, maximumInterval: '30s' },
};

/** `POST /booking`, sent once: a worker dying mid-call is a heartbeat timeout, ambiguous. */
export const CREATE_BOOKING_ACTIVITY: ActivityOptions = {
  priority: PRIORITY.booking,
  startToCloseTimeout: BOOKING_CALL_BACKSTOP_MS,
  heartbeatTimeout: '20s',
  retry: { maximumAttempts: 1 },
};

/**
 * `DELETE /cancel`: idempotent, so retried on anything but a refusal until the deadline (set per
 * call): a supplier outage ends `STILL_ACTIVE`, never a failure.
 */
export const CANCEL_ACTIVITY: ActivityOptions = {
  priority: PRIORITY.booking,
  startToCloseTimeout: READ_CALL_LIMIT_MS,
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '1m' },
};

/** Polls: each attempt one retrieve, the activity sets the next delay; the deadline is per call. */
export const POLL_ACTIVITY: ActivityOptions = {
  priority: PRIORITY.poll,
  startToCloseTimeout: READ_CALL_LIMIT_MS,
  // Only a poll lost with its worker uses this backoff, whose exponent counts every poll before
  // it: a low cap puts it back quickly.
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '30s' },
};

/** After a failure that proves the booking request never left us, try again this many times. */
export const BOOKING_SEND_ATTEMPTS = 5;
/** Pause between such tries, doubling each time. */
export const BOOKING_RESEND_BASE_DELAY_MS = 1_000;

/** Content sync, a page at a time: heartbeats, so a retried attempt resumes from its details. */
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

/**
 * Timeouts and retry policies of every activity: the one place they are decided. They follow the
 * hotel API client's classification: activities throw non-retryable failures for what must not be
 * retried and carry `nextRetryDelay` for `Retry-After`, so policies only bound time and attempts.
 */
import type { ActivityOptions } from '@temporalio/workflow';

/**
 * How long one supplier read may run: a little above the client's read timeout
 * (`HOTEL_API_READ_TIMEOUT_MS`, 15 s by default), so the client's own TIMEOUT is the usual signal,
 * and a read cut off by a dead worker is retried elsewhere within ~20 s rather than ~45 s.
 * Raise it with the read timeout.
 */
const READ_START_TO_CLOSE = '20s';

/** Reads (price check, retrieve): retried with backoff on retryable failures. */
export const READ_ACTIVITY: ActivityOptions = {
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
 * `POST /booking`: never retried by Temporal. A worker that dies mid-call surfaces as a heartbeat
 * or start-to-close timeout, which the workflow treats as ambiguous. The timeout is above the
 * client's 120 s booking timeout so the client's own TIMEOUT is the usual signal.
 */
export const CREATE_BOOKING_ACTIVITY: ActivityOptions = {
  startToCloseTimeout: '150s',
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
  startToCloseTimeout: READ_START_TO_CLOSE,
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '1m' },
};

/**
 * Polls (confirmation, cancellation): each attempt is one retrieve; the activity sets the exact
 * delay of the next poll. `scheduleToCloseTimeout` (the deadline) is set per call.
 */
export const POLL_ACTIVITY: ActivityOptions = {
  startToCloseTimeout: READ_START_TO_CLOSE,
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '10m' },
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
  startToCloseTimeout: '15m',
  heartbeatTimeout: '30s',
  retry: {
    initialInterval: '1s',
    backoffCoefficient: 2,
    maximumInterval: '1m',
    maximumAttempts: 10,
  },
};

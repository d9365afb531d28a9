/**
 * The booking activities that read and wait. A poll that is not final fails BENIGN with the next
 * poll as its `nextRetryDelay`: retries are not in history, so a wait of days keeps a small one.
 */
import { ApplicationFailure, ApplicationFailureCategory } from '@temporalio/common';
import { Context } from '@temporalio/activity';
import type { HotelApiClient } from '../hotel-api';
import { HotelApiError } from '../hotel-api/errors';
import type { Polling } from '../shared/booking-contract';
import { defined } from '../shared/defined';
import { supplierStatusKind } from '../shared/supplier-status';
import { finalFailure, retryLater, toApplicationFailure, type FailureFacts } from './failures';
import { termsOf, type StayTerms } from './guard';
import { nextPollDelayMs } from './poll-delay';

/** What the reads need of the worker: the supplier client and the order id's field. */
export interface SupplierReads {
  readonly hotelApi: HotelApiClient;
  /** The custom field that carries the order id (config `BOOKING_ORDER_ID_FIELD`). */
  readonly orderIdField: string;
  /** Told how late each poll started against its schedule, in ms (metrics, benchmarks). */
  readonly onPollLateness?: (lateMs: number) => void;
}

export interface BookingSnapshot {
  readonly bookingId: number;
  readonly status: string;
  readonly price?: {
    readonly totalAmount: string;
    readonly currency: string;
    readonly paymentStatus?: string;
  };
  /** The order id read back from the booking's custom fields, when present. */
  readonly orderId?: string;
  /** The stay and cancellation terms the read held (the guard starts from them). */
  readonly terms?: StayTerms;
}

/**
 * A poll's "not yet": BENIGN (kept out of error logs and failure metrics), retryable after the
 * next poll's delay, with no details and no stack trace: nothing reads them, and every poll of
 * every waiting booking would pay to format, encrypt and store them.
 */
function pending(type: string, message: string, nextRetryDelay: number): ApplicationFailure {
  const failure = ApplicationFailure.create({
    type,
    message,
    nextRetryDelay,
    category: ApplicationFailureCategory.BENIGN,
  });
  failure.stack = '';
  return failure;
}

/**
 * Refusals that another send of a cancel cannot fix: credentials (rule 5: fail fast, the outcome
 * says why) and parameters the supplier rejects. Any other failure of an idempotent call proves
 * nothing and is retried until the call's deadline.
 */
const CANCEL_REFUSALS: ReadonlySet<string> = new Set([
  'AUTH_INVALID',
  'ACCOUNT_INACTIVE',
  'VALIDATION',
  'INVALID_REQUEST',
]);

/** What a poll keeps across its attempts (heartbeat details): since when reads have failed. */
interface PollMemory {
  /** Server time (ms) of the first attempt of the current run of failed reads; null: none. */
  readonly failingSince: number | null;
}

function pollMemory(details: unknown): PollMemory {
  const since = (details as Partial<PollMemory> | undefined)?.failingSince;
  return { failingSince: typeof since === 'number' ? since : null };
}

const signal = (): AbortSignal => Context.current().cancellationSignal;

/** `GET /retrieve`, reduced to what the workflow needs (ids, status, price, terms: no guest data). */
export async function snapshot(
  deps: SupplierReads,
  bookingId: number,
  field = deps.orderIdField,
): Promise<BookingSnapshot> {
  const r = await deps.hotelApi.retrieveBooking({ bookingId }, { signal: signal() });
  const fields = r.custom_fields as Record<string, unknown> | null | undefined;
  const orderId = fields && typeof fields[field] === 'string' ? fields[field] : undefined;
  const p = r.price;
  const price = p
    ? {
        totalAmount: p.total_amount,
        currency: p.currency,
        ...(p.payment_status ? { paymentStatus: p.payment_status } : {}),
      }
    : undefined;
  return defined({ bookingId: r.booking_id, status: r.status, price, orderId, terms: termsOf(r) });
}

function recordLateness(deps: SupplierReads): void {
  const info = Context.current().info;
  deps.onPollLateness?.(Math.max(0, Date.now() - info.currentAttemptScheduledTimestampMs));
}

/** The delay before the next poll, decided as this attempt ends (activities/poll-delay.ts). */
function nextPollMs(polling: Polling): number {
  const { attempt, currentAttemptScheduledTimestampMs: dueAtMs } = Context.current().info;
  return nextPollDelayMs(polling, attempt, dueAtMs, Date.now());
}

/** After reads failed for `unreadableAfterMs`: not retryable, so an operator is shown it. */
function unreadable(bookingId: number, failure: ApplicationFailure, forMs: number) {
  const facts = failure.details?.[0] as FailureFacts | undefined;
  return finalFailure(
    'BOOKING_UNREADABLE',
    `Booking ${bookingId} could not be read for ${Math.round(forMs / 1000)} s; last: ${failure.message}`,
    { code: facts?.code ?? failure.type ?? 'UNKNOWN', retryable: true, ambiguous: false },
  );
}

export interface AwaitFinalStatusInput {
  bookingId: number;
  polling: Polling;
  unreadableAfterMs?: number;
  untilReadable?: boolean;
}

/**
 * One poll of a pending booking: returns once its status is final, else fails a BENIGN
 * `BOOKING_PENDING` (see {@link pending}).
 *
 * A failed read proves nothing about the booking (a proxy's HTML page, a 404 from a lagging
 * replica, a 401 during a key rotation, an outage): it is retried at the poll's pace. When reads
 * have failed for `unreadableAfterMs` (server time, kept in heartbeat details), it fails
 * `BOOKING_UNREADABLE`, final, so the workflow shows the booking to an operator; it then polls
 * with `untilReadable`, which returns the first snapshot read, pending or not.
 */
export async function awaitFinalBookingStatus(
  deps: SupplierReads,
  input: AwaitFinalStatusInput,
): Promise<BookingSnapshot> {
  recordLateness(deps);
  const ctx = Context.current();
  const now = ctx.info.currentAttemptScheduledTimestampMs;
  const memory = pollMemory(ctx.info.heartbeatDetails);
  let snap: BookingSnapshot;
  try {
    snap = await snapshot(deps, input.bookingId);
  } catch (err) {
    const failure = toApplicationFailure(err);
    const since = memory.failingSince ?? now;
    if (input.unreadableAfterMs !== undefined && now - since >= input.unreadableAfterMs)
      throw unreadable(input.bookingId, failure, now - since);
    ctx.heartbeat({ failingSince: since } satisfies PollMemory);
    throw retryLater(failure, nextPollMs(input.polling));
  }
  if (memory.failingSince !== null) ctx.heartbeat({ failingSince: null } satisfies PollMemory);
  if (input.untilReadable || supplierStatusKind(snap.status) === 'final') return snap;
  const next = nextPollMs(input.polling);
  throw pending('BOOKING_PENDING', `Booking ${input.bookingId} is ${snap.status}`, next);
}

/**
 * `DELETE /cancel`: 204 is a cancellation; 202 only says the status is not known yet; 404 says
 * the booking does not exist. Cancelling twice is harmless, so every failure except a refusal
 * ({@link CANCEL_REFUSALS}) is retried by the policy until the cancellation's deadline.
 */
export async function cancelBooking(
  deps: SupplierReads,
  input: { bookingId: number },
): Promise<{ outcome: 'CANCELLED' | 'PENDING' | 'NOT_FOUND' }> {
  const { bookingId } = input;
  try {
    const r = await deps.hotelApi.cancelBooking({ bookingId }, { signal: signal() });
    return { outcome: r.outcome === 'CANCELLED' ? 'CANCELLED' : 'PENDING' };
  } catch (err) {
    if (err instanceof HotelApiError && err.code === 'NOT_FOUND') return { outcome: 'NOT_FOUND' };
    const failure = toApplicationFailure(err);
    if (!failure.nonRetryable || CANCEL_REFUSALS.has(failure.type ?? '')) throw failure;
    throw retryLater(failure);
  }
}

/**
 * One round of waiting for a 202 cancellation: retrieve; `CANCELLED` or 404 end it; otherwise
 * the cancel is sent again (harmless) and a BENIGN `CANCELLATION_PENDING` asks for another round.
 * A failed read or re-send proves nothing: another round follows, until the deadline.
 */
export async function awaitCancellation(
  deps: SupplierReads,
  input: { bookingId: number; polling: Polling },
): Promise<{ outcome: 'CANCELLED' | 'NOT_FOUND' }> {
  recordLateness(deps);
  const { bookingId } = input;
  let status: string;
  try {
    status = (await snapshot(deps, bookingId)).status;
    if (status === 'CANCELLED') return { outcome: 'CANCELLED' };
    const again = await deps.hotelApi.cancelBooking({ bookingId }, { signal: signal() });
    if (again.outcome === 'CANCELLED') return { outcome: 'CANCELLED' };
  } catch (err) {
    if (err instanceof HotelApiError && err.code === 'NOT_FOUND') return { outcome: 'NOT_FOUND' };
    throw retryLater(toApplicationFailure(err), nextPollMs(input.polling));
  }
  throw pending(
    'CANCELLATION_PENDING',
    `Cancellation of booking ${bookingId} not confirmed yet (status ${status})`,
    nextPollMs(input.polling),
  );
}

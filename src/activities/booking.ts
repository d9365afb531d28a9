/**
 * Booking activities: one supplier call (or one poll) each, built by a factory that receives the
 * hotel API client. They return only what the workflow needs: ids, statuses and prices, never the
 * guest's personal data that the supplier echoes back.
 */
import { ApplicationFailure, ApplicationFailureCategory } from '@temporalio/common';
import { Context } from '@temporalio/activity';
import type { HotelApiClient } from '../hotel-api';
import { HotelApiError, isHotelApiError } from '../hotel-api/errors';
import type { Polling, SupplierPrice } from '../shared/booking-contract';
import { supplierStatusKind } from '../shared/supplier-status';
import { BOOKING_CALL_MARK, BOOKING_NOT_SENT } from '../shared/booking-call-mark';
import { supplierCall, toApplicationFailure, type FailureFacts } from './failures';
import { termsOf, type StayTerms } from './guard';
import { nextPollDelayMs } from './poll-delay';

export interface BookingActivityDeps {
  readonly hotelApi: HotelApiClient;
  /** The custom field that carries the order id (config `BOOKING_ORDER_ID_FIELD`). */
  readonly orderIdField: string;
  /** Told how late each poll started against its schedule, in ms (metrics, benchmarks). */
  readonly onPollLateness?: (lateMs: number) => void;
  /** How often a long booking call heartbeats, so a dead worker is noticed quickly. @default 5000 */
  readonly heartbeatIntervalMs?: number;
}

/**
 * Records, and waits for Temporal to acknowledge, that the booking call is about to go out (an
 * awaited heartbeat through the client's async-completion API: the activity context's own
 * heartbeat is sent later, in a batch, unacknowledged). When Temporal does not answer, nothing is
 * sent: the failure says so (`BOOKING_NOT_SENT`, not ambiguous) and the workflow sends again.
 */
export async function markBookingCall(ctx: Context): Promise<void> {
  try {
    await ctx.client.activity.heartbeat(ctx.info.taskToken, BOOKING_CALL_MARK);
  } catch (err) {
    throw ApplicationFailure.create({
      type: BOOKING_NOT_SENT,
      message: `Temporal did not record the booking call's start, so it was not sent: ${err instanceof Error ? err.message : String(err)}`,
      nonRetryable: true,
      details: [
        { code: BOOKING_NOT_SENT, retryable: true, ambiguous: false } satisfies FailureFacts,
      ],
    });
  }
}

export interface PriceCheckResult {
  readonly status: 'AVAILABLE' | 'NOT AVAILABLE' | 'PRICE CHANGE' | 'POLICY CHANGE';
  readonly price: SupplierPrice | null;
  /** The `booking_id` token to book with. */
  readonly token: string | null;
}

export interface CreateBookingInput {
  readonly orderId: string;
  readonly token: string;
  readonly rooms: readonly { firstName: string; lastName: string; notes?: string | undefined }[];
  readonly contact: { phonePrefix: string; phone: string; email?: string | undefined };
  readonly customFields?: Readonly<Record<string, string>> | undefined;
  /** The field the starter validated the order id against; else the worker's `orderIdField`. */
  readonly orderIdField?: string | undefined;
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

/** The `POST /booking` body for a booking input: the order id travels in `orderIdField`. */
export function supplierBookingBody(input: CreateBookingInput, orderIdField: string) {
  return {
    room_detail: input.rooms.map((room) => ({
      lead_first_name: room.firstName,
      lead_last_name: room.lastName,
      notes: room.notes ?? null,
    })),
    phone_number_prefix: input.contact.phonePrefix,
    phone_number: input.contact.phone,
    email: input.contact.email ?? null,
    custom_fields: { ...input.customFields, [orderIdField]: input.orderId },
  };
}

/**
 * A poll's "not yet": BENIGN (an expected retry, kept out of error logs and failure metrics) and
 * retryable, `nextRetryDelay` the next poll. Its message names the status; it carries no details
 * and no stack trace. Nothing reads them (the workflow sees this failure only as the cause of a
 * deadline), and each poll of each waiting booking would pay for them: the stack formatted, both
 * serialized and encrypted by the worker, and stored with the activity by the server.
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

/** The same failure, retryable, with `nextRetryDelay` = the next poll: it proves nothing final. */
function retryLater(failure: ApplicationFailure, nextRetryDelay: number): ApplicationFailure {
  return ApplicationFailure.create({
    type: failure.type ?? 'UNKNOWN',
    message: failure.message,
    nextRetryDelay,
    details: failure.details ? [...failure.details] : [],
  });
}

export function createBookingActivities(deps: BookingActivityDeps) {
  const { hotelApi, orderIdField } = deps;

  function signal(): AbortSignal {
    return Context.current().cancellationSignal;
  }

  async function sendBooking(
    input: CreateBookingInput,
    marked: boolean,
  ): Promise<{ bookingId: number; status: string }> {
    const field = input.orderIdField ?? orderIdField;
    if (input.customFields && field in input.customFields) {
      throw ApplicationFailure.create({
        type: 'INVALID_REQUEST',
        message: `customFields.${field} is reserved for the order id`,
        nonRetryable: true,
        details: [{ code: 'INVALID_REQUEST', retryable: false, ambiguous: false }],
      });
    }
    const ctx = Context.current();
    if (marked) await markBookingCall(ctx);
    // Heartbeats let Temporal notice a dead worker within the heartbeat timeout, not the 150 s
    // start-to-close timeout; the workflow then reconciles instead of waiting.
    const details = marked ? BOOKING_CALL_MARK : undefined;
    const beat = setInterval(() => ctx.heartbeat(details), deps.heartbeatIntervalMs ?? 5_000);
    try {
      const r = await hotelApi.createBooking(
        {
          optionId: input.token,
          body: supplierBookingBody(input, field),
        },
        { signal: ctx.cancellationSignal },
      );
      // For the operator who reconciles a call whose answer never reached the workflow: the
      // order and the supplier's id, in the worker's log (ids only, no guest data).
      ctx.log.info(
        `booking call returned: order ${input.orderId} → supplier booking ${r.booking_id} (${r.status})`,
        { orderId: input.orderId, supplierBookingId: r.booking_id, supplierStatus: r.status },
      );
      return { bookingId: r.booking_id, status: r.status };
    } catch (err) {
      ctx.log.warn(`booking call failed: order ${input.orderId}, no supplier booking id`, {
        orderId: input.orderId,
        code: isHotelApiError(err) ? err.code : 'UNKNOWN',
      });
      throw toApplicationFailure(err);
    } finally {
      clearInterval(beat);
    }
  }

  async function snapshot(bookingId: number, field = orderIdField): Promise<BookingSnapshot> {
    const r = await hotelApi.retrieveBooking({ bookingId }, { signal: signal() });
    const fields = r.custom_fields as Record<string, unknown> | null | undefined;
    const orderId = fields && typeof fields[field] === 'string' ? fields[field] : undefined;
    return {
      bookingId: r.booking_id,
      status: r.status,
      ...(r.price
        ? {
            price: {
              totalAmount: r.price.total_amount,
              currency: r.price.currency,
              ...(r.price.payment_status ? { paymentStatus: r.price.payment_status } : {}),
            },
          }
        : {}),
      ...(orderId !== undefined ? { orderId } : {}),
      terms: termsOf(r),
    };
  }

  function recordLateness() {
    const info = Context.current().info;
    deps.onPollLateness?.(Math.max(0, Date.now() - info.currentAttemptScheduledTimestampMs));
  }

  /** The delay before the next poll, decided as this attempt ends (activities/poll-delay.ts). */
  function nextPollMs(polling: Polling): number {
    const info = Context.current().info;
    return nextPollDelayMs(
      polling,
      info.attempt,
      info.currentAttemptScheduledTimestampMs,
      Date.now(),
    );
  }

  return {
    /** `GET /price-check`. Retried by Temporal on retryable failures. */
    async priceCheck(input: { optionId: string }): Promise<PriceCheckResult> {
      const r = await supplierCall(() =>
        hotelApi.priceCheck({ optionId: input.optionId }, { signal: signal() }),
      );
      return { status: r.status, price: r.price ?? null, token: r.booking_id ?? null };
    },

    /**
     * `POST /booking`, at most once per activity (the retry policy has `maximumAttempts: 1`): a
     * failure that does not prove the request never arrived is the workflow's to reconcile. Runs
     * of earlier versions schedule this one; this version schedules {@link createBookingMarked}.
     */
    async createBooking(input: CreateBookingInput): Promise<{ bookingId: number; status: string }> {
      return sendBooking(input, false);
    },

    /**
     * `POST /booking` after the server has recorded that it is about to go out: the activity
     * heartbeats {@link BOOKING_CALL_MARK} and waits for Temporal's answer before the request
     * leaves. A timeout whose last heartbeat lacks the mark proves the call never left (the task
     * was lost with a server node, the worker died before it): the workflow sends it again. Every
     * later heartbeat carries the mark too, so it is never overwritten.
     */
    async createBookingMarked(
      input: CreateBookingInput,
    ): Promise<{ bookingId: number; status: string }> {
      return sendBooking(input, true);
    },

    /** `GET /retrieve`, reduced to what the workflow needs. */
    async retrieveBooking(input: { bookingId: number }): Promise<BookingSnapshot> {
      return supplierCall(() => snapshot(input.bookingId));
    },

    /**
     * Checks that an operator's booking id belongs to this order: its custom field must carry the
     * order id. Fails `ORDER_MISMATCH` (not retryable) otherwise.
     */
    async verifyBookingForOrder(input: {
      bookingId: number;
      orderId: string;
      /** The field the starter validated against; else the worker's `orderIdField`. */
      orderIdField?: string;
    }): Promise<BookingSnapshot> {
      const field = input.orderIdField ?? orderIdField;
      const snap = await supplierCall(() => snapshot(input.bookingId, field));
      if (snap.orderId !== input.orderId) {
        throw ApplicationFailure.create({
          type: 'ORDER_MISMATCH',
          message: `Supplier booking ${input.bookingId} does not carry order ${input.orderId} in ${field}`,
          nonRetryable: true,
        });
      }
      return snap;
    },

    /**
     * One poll of a pending booking: returns once its status is final; while it is pending, fails
     * with a BENIGN retryable `BOOKING_PENDING` whose `nextRetryDelay` is the next poll. Retries are
     * not written to history, so a booking that waits for days keeps a small history.
     *
     * A failed read proves nothing about the booking (a proxy's HTML page, a 404 from a lagging
     * replica, a 401 during a key rotation, a 408, an outage): it is retried at the poll's pace
     * until the deadline. When reads have failed for `unreadableAfterMs` (server time, kept across
     * attempts in heartbeat details), it fails `BOOKING_UNREADABLE` (not retryable) so the
     * workflow can show the booking to an operator; it then polls with `untilReadable`, which
     * returns the first snapshot read, pending or not.
     */
    async awaitFinalBookingStatus(input: {
      bookingId: number;
      polling: Polling;
      unreadableAfterMs?: number;
      untilReadable?: boolean;
    }): Promise<BookingSnapshot> {
      recordLateness();
      const ctx = Context.current();
      const now = ctx.info.currentAttemptScheduledTimestampMs;
      const memory = pollMemory(ctx.info.heartbeatDetails);
      let snap: BookingSnapshot;
      try {
        snap = await snapshot(input.bookingId);
      } catch (err) {
        const failure = toApplicationFailure(err);
        const since = memory.failingSince ?? now;
        if (input.unreadableAfterMs !== undefined && now - since >= input.unreadableAfterMs) {
          const facts = failure.details?.[0] as FailureFacts | undefined;
          throw ApplicationFailure.create({
            type: 'BOOKING_UNREADABLE',
            message: `Booking ${input.bookingId} could not be read for ${Math.round((now - since) / 1000)} s; last: ${failure.message}`,
            nonRetryable: true,
            details: [
              {
                code: facts?.code ?? failure.type ?? 'UNKNOWN',
                retryable: true,
                ambiguous: false,
              } satisfies FailureFacts,
            ],
          });
        }
        ctx.heartbeat({ failingSince: since } satisfies PollMemory);
        throw retryLater(failure, nextPollMs(input.polling));
      }
      if (memory.failingSince !== null) ctx.heartbeat({ failingSince: null } satisfies PollMemory);
      if (input.untilReadable || supplierStatusKind(snap.status) === 'final') return snap;
      throw pending(
        'BOOKING_PENDING',
        `Booking ${input.bookingId} is ${snap.status}`,
        nextPollMs(input.polling),
      );
    },

    /**
     * `DELETE /cancel`: 204 is a cancellation; 202 only says the status is not known yet; 404 says
     * the booking does not exist. Cancelling twice is harmless, so every failure except a refusal
     * ({@link CANCEL_REFUSALS}) is retried by the policy until the cancellation's deadline.
     */
    async cancelBooking(input: {
      bookingId: number;
    }): Promise<{ outcome: 'CANCELLED' | 'PENDING' | 'NOT_FOUND' }> {
      try {
        const r = await hotelApi.cancelBooking(
          { bookingId: input.bookingId },
          { signal: signal() },
        );
        return { outcome: r.outcome === 'CANCELLED' ? 'CANCELLED' : 'PENDING' };
      } catch (err) {
        if (err instanceof HotelApiError && err.code === 'NOT_FOUND')
          return { outcome: 'NOT_FOUND' };
        const failure = toApplicationFailure(err);
        if (!failure.nonRetryable || CANCEL_REFUSALS.has(failure.type ?? '')) throw failure;
        throw ApplicationFailure.create({
          type: failure.type ?? 'UNKNOWN',
          message: failure.message,
          details: failure.details ? [...failure.details] : [],
        });
      }
    },

    /**
     * One round of waiting for a 202 cancellation: retrieve; `CANCELLED` or 404 end it; otherwise
     * the cancel is sent again (harmless) and a BENIGN `CANCELLATION_PENDING` asks for another round.
     * A failed read or re-send proves nothing: another round follows, until the deadline.
     */
    async awaitCancellation(input: {
      bookingId: number;
      polling: Polling;
    }): Promise<{ outcome: 'CANCELLED' | 'NOT_FOUND' }> {
      recordLateness();
      let status: string;
      try {
        status = (await snapshot(input.bookingId)).status;
        if (status === 'CANCELLED') return { outcome: 'CANCELLED' };
        const again = await hotelApi.cancelBooking(
          { bookingId: input.bookingId },
          { signal: signal() },
        );
        if (again.outcome === 'CANCELLED') return { outcome: 'CANCELLED' };
      } catch (err) {
        if (err instanceof HotelApiError && err.code === 'NOT_FOUND')
          return { outcome: 'NOT_FOUND' };
        throw retryLater(toApplicationFailure(err), nextPollMs(input.polling));
      }
      throw pending(
        'CANCELLATION_PENDING',
        `Cancellation of booking ${input.bookingId} not confirmed yet (status ${status})`,
        nextPollMs(input.polling),
      );
    },
  };
}

export type BookingActivities = ReturnType<typeof createBookingActivities>;

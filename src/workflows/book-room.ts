/**
 * `bookRoom`, id `booking-<orderId>`: price check → decision → one booking call → confirmation,
 * with cancellation at any phase and operator reconciliation when the booking call is ambiguous.
 * The hard rules of booking are in docs (product.md); each is marked where it is enforced.
 */
import {
  ApplicationFailure,
  CancellationScope,
  allHandlersFinished,
  condition,
  isCancellation,
  patched,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  sleep,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { BookingActivities, BookingSnapshot, PriceCheckResult } from '../activities/booking';
import {
  ApprovePriceChangeSchema,
  BookRoomInputSchema,
  BookingOutcome,
  BookingPhase,
  CancelRequestSchema,
  CancellationOutcome,
  PENDING_SUPPLIER_STATUSES,
  ResolveReconciliationSchema,
  bookRoomInputRuleIssues,
  toFieldIssues,
  type BookRoomInput,
  type BookRoomResult,
  type BookingError,
  type BookingState,
  type PriceDecision,
  type SupplierPrice,
} from '../shared/booking-contract';
import {
  approvePriceChangeUpdate,
  bookingStateQuery,
  cancelUpdate,
  resolveReconciliationUpdate,
} from '../shared/booking-messages';
import { durationToMs } from '../shared/duration';
import {
  BookingOutcomeKey,
  BookingPhaseKey,
  CheckInDateKey,
  OrderIdKey,
  SupplierBookingIdKey,
  SupplierStatusKey,
} from '../shared/search-attributes';
import {
  BOOKING_RESEND_BASE_DELAY_MS,
  BOOKING_SEND_ATTEMPTS,
  CREATE_BOOKING_ACTIVITY,
  POLL_ACTIVITY,
  READ_ACTIVITY,
} from './activity-options';
import { DEFAULT_POLLING, runCancellation } from './cancellation';
import { failureFacts, isDeadline, toBookingError } from './failure-facts';
import { increasePercent } from './pricing';

/**
 * Every supplier call is a regular activity, the price check included. A local activity would save
 * a round trip per booking, but it bypasses the task queue, so the fleet-wide supplier rate cap
 * (`maxTaskQueueActivitiesPerSecond`) and the per-worker concurrency cap would not hold, and its
 * marker is stored outside the payload codec's reach (measured: test/ops/rate-limit.test.ts,
 * test/reliability/personal-data.test.ts).
 */
const reads = proxyActivities<BookingActivities>(READ_ACTIVITY);

/** Patch id of the input rules across fields (bookRoomInputRuleIssues). */
const INPUT_RULES_PATCH = 'input-rules-across-fields';

/** A price-check token older than this is re-checked before booking (tokens expire). */
const TOKEN_FRESH_MS = 5 * 60_000;
/** Price checks one booking may make through approvals and re-checks. */
const MAX_PRICE_ROUNDS = 4;

const FINAL: ReadonlySet<string> = new Set(Object.values(BookingOutcome));

type Final = Omit<BookRoomResult, 'orderId'>;
type Priced = { token: string; price: SupplierPrice | undefined };

export async function bookRoom(input: BookRoomInput): Promise<BookRoomResult> {
  // --- state ------------------------------------------------------------------------------------
  const orderId = typeof input?.orderId === 'string' ? input.orderId : '(invalid)';
  // The field the starter validated against; absent in older inputs (then the worker's setting).
  const orderIdField = typeof input?.orderIdField === 'string' ? input.orderIdField : undefined;
  let phase: BookingState['phase'] = BookingPhase.PRICE_CHECK;
  let supplierStatus: string | undefined;
  let bookingId: number | undefined;
  let price: SupplierPrice | undefined;
  let lastError: BookingState['lastError'];
  let pendingDecision: PriceDecision | undefined;
  let decision: boolean | undefined;
  let cancelRequested = false;
  let cancelReason: string | undefined;
  let resolution:
    { bookingId: number; snapshot: BookingSnapshot } | { noBooking: true } | undefined;
  let resolving = false;
  let pollScope: CancellationScope | undefined;
  let outcome: BookingOutcome | undefined;

  const state = (): BookingState => ({
    orderId,
    phase,
    cancelRequested,
    ...(supplierStatus !== undefined ? { supplierStatus } : {}),
    ...(bookingId !== undefined ? { bookingId } : {}),
    ...(price !== undefined ? { price } : {}),
    ...(lastError !== undefined ? { lastError } : {}),
    ...(pendingDecision !== undefined && phase === BookingPhase.AWAITING_APPROVAL
      ? { pendingDecision }
      : {}),
    ...(outcome !== undefined ? { outcome } : {}),
  });

  function details(): string {
    const lines = [`**${phase}** — order \`${orderId}\``];
    if (bookingId !== undefined)
      lines.push(`supplier booking ${bookingId} (${supplierStatus ?? '?'})`);
    if (price) lines.push(`price ${price.net} ${price.currency}`);
    if (pendingDecision)
      lines.push(
        `awaiting approval of ${pendingDecision.status} until ${pendingDecision.deadline}`,
      );
    if (lastError) lines.push(`last error: ${lastError.code}`);
    return lines.join('\n\n');
  }

  function enter(next: BookingState['phase']): void {
    phase = next;
    upsertSearchAttributes([{ key: BookingPhaseKey, value: next }]);
    setCurrentDetails(details());
  }

  function noteError(error: BookingError): void {
    lastError = { ...error, at: new Date().toISOString() };
  }

  function setBooking(id: number, status: string): void {
    bookingId = id;
    supplierStatus = status;
    upsertSearchAttributes([
      { key: SupplierBookingIdKey, value: id },
      { key: SupplierStatusKey, value: status },
    ]);
  }

  // --- messages -----------------------------------------------------------------------------------
  setHandler(bookingStateQuery, state);

  setHandler(
    approvePriceChangeUpdate,
    async (request) => {
      decision = request.approve;
      await condition(() => phase !== BookingPhase.AWAITING_APPROVAL);
      return state();
    },
    {
      validator: (request) => {
        const parsed = ApprovePriceChangeSchema.safeParse(request);
        if (!parsed.success) throw new Error(`approvePriceChange: ${issues(parsed.error)}`);
        if (phase !== BookingPhase.AWAITING_APPROVAL || decision !== undefined) {
          throw new Error(`Nothing awaits approval: the booking is ${phase}`);
        }
      },
    },
  );

  setHandler(
    cancelUpdate,
    (request) => {
      cancelRequested = true;
      cancelReason = request?.reason ?? undefined; // null is absent (rule 7)
      pollScope?.cancel();
      setCurrentDetails(details());
      return state();
    },
    {
      validator: (request) => {
        const parsed = CancelRequestSchema.safeParse(request ?? {});
        if (!parsed.success) throw new Error(`cancel: ${issues(parsed.error)}`);
        if (FINAL.has(phase)) throw new Error(`The booking has already ended: ${phase}`);
      },
    },
  );

  setHandler(
    resolveReconciliationUpdate,
    async (raw) => {
      const request = ResolveReconciliationSchema.parse(raw); // null fields are absent (rule 7)
      resolving = true;
      try {
        if ('noBooking' in request) {
          resolution = { noBooking: true };
        } else {
          let snapshot: BookingSnapshot;
          try {
            snapshot = await reads.verifyBookingForOrder({
              bookingId: request.bookingId,
              orderId,
              ...(orderIdField ? { orderIdField } : {}),
            });
          } catch (err) {
            const f = failureFacts(err);
            throw ApplicationFailure.create({
              type: f.code,
              message: `Booking ${request.bookingId} was not accepted: ${f.message}`,
              nonRetryable: true,
            });
          }
          resolution = { bookingId: request.bookingId, snapshot };
        }
      } finally {
        resolving = false;
      }
      await condition(() => phase !== BookingPhase.NEEDS_RECONCILIATION);
      return state();
    },
    {
      validator: (request) => {
        const parsed = ResolveReconciliationSchema.safeParse(request);
        if (!parsed.success)
          throw new Error(`resolveReconciliation: give { bookingId } or { noBooking: true }`);
        if (phase !== BookingPhase.NEEDS_RECONCILIATION) {
          throw new Error(`Nothing to reconcile: the booking is ${phase}`);
        }
        if (resolving || resolution !== undefined)
          throw new Error('A resolution is already being applied');
      },
    },
  );

  async function finish(final: Final): Promise<BookRoomResult> {
    outcome = final.outcome;
    if (final.error) noteError(final.error);
    if (final.bookingId !== undefined && final.bookingId !== bookingId) {
      setBooking(final.bookingId, final.supplierStatus ?? supplierStatus ?? 'UNKNOWN');
    }
    upsertSearchAttributes([{ key: BookingOutcomeKey, value: final.outcome }]);
    enter(final.outcome);
    // Let running update handlers return their answer before the workflow closes.
    await condition(allHandlersFinished);
    return {
      orderId,
      ...final,
      ...(bookingId !== undefined && final.bookingId === undefined ? { bookingId } : {}),
      ...(supplierStatus !== undefined && final.supplierStatus === undefined
        ? { supplierStatus }
        : {}),
      ...(price !== undefined && final.price === undefined ? { price } : {}),
    };
  }

  // --- input (rule 7: the client validated already; this guards direct starts) -----------------------
  const parsed = BookRoomInputSchema.safeParse(input);
  if (!parsed.success) {
    return finish({
      outcome: BookingOutcome.FAILED,
      reason: 'invalid input',
      error: { code: 'INVALID_INPUT', message: issues(parsed.error) },
    });
  }
  const p = parsed.data;
  // Rules across fields (price policy without a reference price, the reserved order-id field),
  // behind a patch: a workflow started before them replays as it ran.
  const ruleIssues = bookRoomInputRuleIssues(p);
  if (ruleIssues.length > 0 && patched(INPUT_RULES_PATCH)) {
    return finish({
      outcome: BookingOutcome.FAILED,
      reason: 'invalid input',
      error: {
        code: 'INVALID_INPUT',
        message: ruleIssues.map((i) => `${i.field}: ${i.message}`).join('; '),
      },
    });
  }
  upsertSearchAttributes([
    { key: OrderIdKey, value: p.orderId },
    ...(p.checkIn ? [{ key: CheckInDateKey, value: new Date(`${p.checkIn}T00:00:00Z`) }] : []),
  ]);
  enter(BookingPhase.PRICE_CHECK);

  const cancelledBeforeBooking = (): Final => ({
    outcome: BookingOutcome.CANCELLED,
    reason: `cancelled before any supplier booking was made${cancelReason ? `: ${cancelReason}` : ''}`,
  });

  // --- price check and decision (rule 2) ---------------------------------------------------------
  async function checkPrice(): Promise<PriceCheckResult | Final> {
    try {
      const { priceCheck } = proxyActivities<BookingActivities>({
        ...READ_ACTIVITY,
        summary: `Price check for order ${orderId}`,
      });
      return await priceCheck({ optionId: p.optionId });
    } catch (err) {
      const error = toBookingError(err);
      return { outcome: BookingOutcome.FAILED, reason: `price check failed: ${error.code}`, error };
    }
  }

  async function priceAndDecide(): Promise<Priced | Final> {
    let approved: { price: SupplierPrice | undefined; policy: boolean } | undefined;
    for (let round = 0; round < MAX_PRICE_ROUNDS; round++) {
      enter(BookingPhase.PRICE_CHECK);
      const checkedAt = Date.now();
      const pc = await checkPrice();
      if (cancelRequested) return cancelledBeforeBooking();
      if ('outcome' in pc) return pc;
      if (pc.status === 'NOT AVAILABLE') {
        return {
          outcome: BookingOutcome.NOT_AVAILABLE,
          reason: 'the supplier says the option is not available',
        };
      }
      if (!pc.token) {
        const error = {
          code: 'CONTRACT',
          message: `price check ${pc.status} without a booking_id`,
        };
        return { outcome: BookingOutcome.FAILED, reason: error.message, error };
      }
      const offered = pc.price ?? approved?.price ?? p.expectedPrice;
      let acceptable: boolean;
      let increase: number | undefined;
      if (pc.status === 'AVAILABLE') {
        acceptable = true;
      } else if (pc.status === 'PRICE CHANGE') {
        increase = increasePercent(approved?.price ?? p.expectedPrice, pc.price);
        // Without a comparable reference price the change cannot be judged: a person decides.
        acceptable =
          increase !== undefined && increase <= (p.priceChangePolicy?.maxIncreasePercent ?? 0);
      } else {
        acceptable =
          (p.priceChangePolicy?.acceptPolicyChange ?? false) || approved?.policy === true;
      }
      if (acceptable) {
        price = offered;
        return { token: pc.token, price: offered };
      }

      // Ask a person, until approvalTimeout.
      const timeoutMs = durationToMs(p.priceChangePolicy?.approvalTimeout ?? '15m') ?? 900_000;
      pendingDecision = {
        status: pc.status,
        ...(p.expectedPrice ? { expected: p.expectedPrice } : {}),
        ...(pc.price ? { offered: pc.price } : {}),
        ...(increase !== undefined ? { increasePercent: Math.round(increase * 100) / 100 } : {}),
        deadline: new Date(Date.now() + timeoutMs).toISOString(),
      };
      decision = undefined;
      enter(BookingPhase.AWAITING_APPROVAL);
      const decided = await condition(() => decision !== undefined || cancelRequested, timeoutMs);
      pendingDecision = undefined;
      if (cancelRequested) return cancelledBeforeBooking();
      if (!decided) {
        return {
          outcome: BookingOutcome.PRICE_REJECTED,
          reason: `no decision within ${String(p.priceChangePolicy?.approvalTimeout ?? '15m')}`,
        };
      }
      if (!decision)
        return { outcome: BookingOutcome.PRICE_REJECTED, reason: `the ${pc.status} was rejected` };
      approved = {
        price: pc.price ?? approved?.price,
        policy: approved?.policy === true || pc.status === 'POLICY CHANGE',
      };
      if (Date.now() - checkedAt < TOKEN_FRESH_MS) {
        price = offered;
        return { token: pc.token, price: offered };
      }
      // The token may have expired while a person decided: check again, against what was approved.
    }
    return { outcome: BookingOutcome.PRICE_REJECTED, reason: 'the price kept changing' };
  }

  // --- the booking call (rule 1) -----------------------------------------------------------------
  type BookAttempt =
    | { kind: 'booked'; bookingId: number; status: string }
    | { kind: 'final'; final: Final }
    | { kind: 'ambiguous'; error: BookingError };

  async function bookOnce(priced: Priced): Promise<BookAttempt> {
    let token = priced.token;
    let refreshedToken = false;
    for (let attempt = 1; ; attempt++) {
      try {
        const { createBooking } = proxyActivities<BookingActivities>({
          ...CREATE_BOOKING_ACTIVITY,
          summary: `POST /booking for order ${orderId} (sent at most once)`,
        });
        const r = await createBooking({
          orderId: p.orderId,
          token,
          rooms: p.rooms,
          contact: p.contact,
          customFields: p.customFields,
          ...(p.orderIdField ? { orderIdField: p.orderIdField } : {}),
        });
        return { kind: 'booked', bookingId: r.bookingId, status: r.status };
      } catch (err) {
        const f = failureFacts(err);
        const error = { code: f.code, message: f.message };
        noteError(error);
        // The supplier may have booked: never send again, an operator reconciles.
        if (f.ambiguous) return { kind: 'ambiguous', error };
        if (f.code === 'VALIDATION' || f.code === 'CLIENT_ERROR') {
          // A 422 proves nothing was booked. Sold out, or an expired token? Ask the price check.
          const pc = await checkPrice();
          if ('outcome' in pc) return { kind: 'final', final: pc };
          if (pc.status === 'NOT AVAILABLE') {
            return {
              kind: 'final',
              final: {
                outcome: BookingOutcome.NOT_AVAILABLE,
                reason: `sold out at booking: ${f.message}`,
              },
            };
          }
          if (!refreshedToken && pc.token && pc.status === 'AVAILABLE' && !cancelRequested) {
            refreshedToken = true;
            token = pc.token;
            continue;
          }
          return {
            kind: 'final',
            final: {
              outcome: BookingOutcome.FAILED,
              reason: `the supplier rejected the booking: ${f.message}`,
              error,
            },
          };
        }
        // Proof the request never arrived (connection refused, 429, clock skew corrected): resend.
        if (f.retryable && attempt < BOOKING_SEND_ATTEMPTS && !cancelRequested) {
          await sleep(f.retryAfterMs ?? BOOKING_RESEND_BASE_DELAY_MS * 2 ** (attempt - 1));
          if (cancelRequested) return { kind: 'final', final: cancelledBeforeBooking() };
          continue;
        }
        if (cancelRequested) return { kind: 'final', final: cancelledBeforeBooking() };
        return {
          kind: 'final',
          final: { outcome: BookingOutcome.FAILED, reason: `booking refused: ${f.code}`, error },
        };
      }
    }
  }

  // --- cancellation of an existing booking (rule 4) ------------------------------------------------
  async function cancelExisting(id: number, why: string): Promise<Final> {
    enter(BookingPhase.CANCELLING);
    let result: CancellationOutcome;
    try {
      result = await runCancellation(id, p.cancellationDeadline, p.polling ?? DEFAULT_POLLING);
    } catch (err) {
      const error = toBookingError(err);
      return {
        outcome: finalFromStatus(supplierStatus),
        reason: `${why}, but the cancellation failed: ${error.code}`,
        error,
      };
    }
    if (result === CancellationOutcome.STILL_ACTIVE) {
      return {
        outcome: finalFromStatus(supplierStatus),
        reason: `${why}, but the supplier did not confirm the cancellation within ${String(p.cancellationDeadline)}: an operator is needed`,
        cancellation: { outcome: result },
      };
    }
    supplierStatus = 'CANCELLED';
    upsertSearchAttributes([{ key: SupplierStatusKey, value: 'CANCELLED' }]);
    return {
      outcome: BookingOutcome.CANCELLED,
      reason: why,
      cancellation: { outcome: result, ...(cancelReason ? { reason: cancelReason } : {}) },
    };
  }

  function finalFromStatus(status: string | undefined): BookingOutcome {
    if (status === 'CONFIRMED') return BookingOutcome.CONFIRMED;
    if (status === 'CANCELLED') return BookingOutcome.CANCELLED;
    return BookingOutcome.NOT_CONFIRMED;
  }

  const cancelWhy = () => `cancelled on request${cancelReason ? `: ${cancelReason}` : ''}`;

  // --- the flow ------------------------------------------------------------------------------------
  const priced = await priceAndDecide();
  if ('outcome' in priced) return finish(priced);
  if (cancelRequested) return finish(cancelledBeforeBooking());

  enter(BookingPhase.BOOKING);
  const attempt = await bookOnce(priced);
  if (attempt.kind === 'final') return finish(attempt.final);

  if (attempt.kind === 'ambiguous') {
    enter(BookingPhase.NEEDS_RECONCILIATION);
    await condition(() => resolution !== undefined);
    if (!resolution || 'noBooking' in resolution) {
      return finish(
        cancelRequested
          ? {
              outcome: BookingOutcome.CANCELLED,
              reason: 'cancelled; an operator confirmed no supplier booking exists',
            }
          : {
              outcome: BookingOutcome.FAILED,
              reason: 'an operator confirmed that no supplier booking exists',
              error: attempt.error,
            },
      );
    }
    setBooking(resolution.bookingId, resolution.snapshot.status);
    const paid = resolution.snapshot.price;
    if (paid) price = { net: paid.totalAmount, currency: paid.currency };
  } else {
    setBooking(attempt.bookingId, attempt.status);
  }
  const id = bookingId!;

  // --- confirmation (rule 3) ---------------------------------------------------------------------
  if (!cancelRequested && PENDING_SUPPLIER_STATUSES.includes(supplierStatus ?? '')) {
    enter(BookingPhase.AWAITING_CONFIRMATION);
    const { awaitFinalBookingStatus } = proxyActivities<BookingActivities>({
      ...POLL_ACTIVITY,
      scheduleToCloseTimeout: durationToMs(p.confirmationDeadline) ?? 48 * 3_600_000,
      summary: `Poll supplier booking ${id} until it is final`,
    });
    pollScope = new CancellationScope();
    try {
      const snap = await pollScope.run(() =>
        awaitFinalBookingStatus({ bookingId: id, polling: p.polling ?? DEFAULT_POLLING }),
      );
      setBooking(id, snap.status);
    } catch (err) {
      if (!(cancelRequested && isCancellation(err))) {
        if (isDeadline(err)) {
          const why = `not confirmed within ${String(p.confirmationDeadline)}`;
          noteError({ code: 'CONFIRMATION_DEADLINE', message: why });
          if (!p.cancelOnConfirmationTimeout)
            return finish({ outcome: BookingOutcome.NOT_CONFIRMED, reason: why });
          const cancelled = await cancelExisting(
            id,
            `${why}; cancelled so it cannot confirm later`,
          );
          return finish({ ...cancelled, outcome: BookingOutcome.NOT_CONFIRMED });
        }
        const error = toBookingError(err);
        return finish({
          outcome: BookingOutcome.FAILED,
          reason: `could not read the booking's status: ${error.code}; check supplier booking ${id}`,
          error,
        });
      }
    } finally {
      pollScope = undefined;
    }
  }

  if (cancelRequested && supplierStatus !== 'CANCELLED' && supplierStatus !== 'NOT_CONFIRMED') {
    return finish(await cancelExisting(id, cancelWhy()));
  }
  if (supplierStatus === 'CANCELLED') {
    return finish({
      outcome: BookingOutcome.CANCELLED,
      reason: cancelRequested ? cancelWhy() : 'the supplier cancelled the booking',
    });
  }
  if (supplierStatus === 'CONFIRMED') return finish({ outcome: BookingOutcome.CONFIRMED });
  if (supplierStatus === 'NOT_CONFIRMED')
    return finish({
      outcome: BookingOutcome.NOT_CONFIRMED,
      reason: 'the supplier did not confirm the booking',
    });
  const error = {
    code: 'UNKNOWN_STATUS',
    message: `the supplier reported status ${String(supplierStatus)}`,
  };
  return finish({ outcome: BookingOutcome.FAILED, reason: error.message, error });
}

function issues(error: Parameters<typeof toFieldIssues>[0]): string {
  return toFieldIssues(error)
    .map((i) => `${i.field}: ${i.message}`)
    .join('; ');
}

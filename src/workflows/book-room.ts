/**
 * `bookRoom`, id `booking-<orderId>`: price check → decision → one booking call → confirmation,
 * with cancellation at any phase and operator reconciliation when the booking call is ambiguous.
 * The hard rules of booking are in docs/hard-rules.md; each is marked where it is enforced. The
 * decisions are pure functions in their own files (price-decision.ts, failure-decision.ts,
 * supplier-outcome.ts); this file is the script over them, its state and its messages.
 */
import {
  ApplicationFailure,
  CancellationScope,
  allHandlersFinished,
  condition,
  executeChild,
  isCancellation,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setCurrentDetails,
  setHandler,
  sleep,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { BookingActivities, BookingSnapshot } from '../activities/booking';
import type { EarlierRunsActivities } from '../activities/earlier-runs';
import type {
  BookRoomInput,
  BookRoomParams,
  BookRoomResult,
  BookingError,
  BookingState,
  PriceDecision,
  SupplierPrice,
} from '../shared/booking-contract';
import {
  BookingOutcome,
  BookingPhase,
  CancellationOutcome,
  bookingWorkflowId,
  cancellationWorkflowId,
  bookRoomInputRuleIssues,
} from '../shared/booking-values';
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
  EARLIER_RUNS_ACTIVITY,
  POLL_ACTIVITY,
  READ_ACTIVITY,
} from './activity-options';
import { cancelBooking as cancelBookingWorkflow } from './cancel-booking';
import {
  checkApprovePriceChange,
  checkBookRoomInput,
  checkCancelRequest,
  checkResolveReconciliation,
  issueText,
} from './input-checks';
import { DEFAULT_POLLING, runCancellation, type CancellationResult } from './cancellation';
import {
  afterBookingFailure,
  afterPollFailure,
  afterRecheck,
  unreadableAfterMs,
} from './failure-decision';
import { decideOnEarlierRuns } from './earlier-runs-decision';
import { failureFacts, isDeadline, toBookingError } from './failure-facts';
import { GUARD_AFTER_CONFIRMED_PATCH, handOverToGuard } from './guard-handover';
import { approve, decidePrice, type Approved, type PriceCheckAnswer } from './price-decision';
import { needsCancelling, outcomeAfterCancellation, readStatus } from './supplier-outcome';

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
/**
 * Patch: bookRoom runs its cancellations as a `cancelBooking` child (id `cancel-<bookingId>`), so
 * a cancellation the supplier never confirms shows in the "cancellations never confirmed" view.
 * Histories recorded before it replay the inline cancellation.
 */
const CANCEL_AS_CHILD = 'cancel-as-child-workflow';
/**
 * Patch: before its first supplier call, bookRoom checks that its workflow id is the order's and
 * what the order's earlier runs did (earlier-runs-decision.ts). Histories recorded before it
 * replay without the check.
 */
const EARLIER_RUNS_PATCH = 'earlier-runs-checked';

const FINAL: ReadonlySet<string> = new Set(Object.values(BookingOutcome));

type Final = Omit<BookRoomResult, 'orderId'>;
/** Every step tells its results apart by `kind`; `ended` carries the booking's outcome. */
type Ended = { readonly kind: 'ended'; readonly final: Final };
const end = (final: Final): Ended => ({ kind: 'ended', final });
type Checked = { kind: 'checked'; answer: PriceCheckAnswer } | Ended;
type Priced = { kind: 'priced'; token: string; price: SupplierPrice | undefined } | Ended;
type BookAttempt =
  | { kind: 'booked'; bookingId: number; status: string }
  | { kind: 'ambiguous'; error: BookingError }
  /** A 422's re-check found a new price or policy: decide again on this answer. */
  | { kind: 'decide-again'; answer: PriceCheckAnswer }
  | Ended;
type Reconciled = { kind: 'reconciled' } | Ended;
/** `has-booking`: an earlier run's booking is this run's booking; nothing is to be sent. */
type Settled = { kind: 'book' } | { kind: 'has-booking' } | Ended;
type Waited = { kind: 'final' | 'deadline' | 'cancelled' };

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

  /** Rule 8: the `cancel` update and a cancellation from Temporal both come here. */
  function requestCancel(reason: string | undefined): void {
    if (cancelRequested || FINAL.has(phase)) return;
    cancelRequested = true;
    cancelReason = reason;
    pollScope?.cancel();
    setCurrentDetails(details());
  }

  // --- messages -----------------------------------------------------------------------------------
  setHandler(bookingStateQuery, state);

  setHandler(
    approvePriceChangeUpdate,
    (request) =>
      // Handlers run in the root scope: a cancellation from Temporal must not break them either.
      CancellationScope.nonCancellable(async () => {
        decision = request.approve;
        await condition(() => phase !== BookingPhase.AWAITING_APPROVAL);
        return state();
      }),
    {
      validator: (request) => {
        const parsed = checkApprovePriceChange(request);
        if (!parsed.success) throw new Error(`approvePriceChange: ${issueText(parsed.issues)}`);
        if (phase !== BookingPhase.AWAITING_APPROVAL || decision !== undefined) {
          throw new Error(`Nothing awaits approval: the booking is ${phase}`);
        }
      },
    },
  );

  setHandler(
    cancelUpdate,
    (request) => {
      requestCancel(request?.reason ?? undefined); // null is absent (rule 7)
      return state();
    },
    {
      validator: (request) => {
        const parsed = checkCancelRequest(request ?? {});
        if (!parsed.success) throw new Error(`cancel: ${issueText(parsed.issues)}`);
        if (FINAL.has(phase)) throw new Error(`The booking has already ended: ${phase}`);
      },
    },
  );

  setHandler(
    resolveReconciliationUpdate,
    (raw) =>
      CancellationScope.nonCancellable(async () => {
        const checked = checkResolveReconciliation(raw); // null fields are absent (rule 7)
        if (!checked.success)
          throw new Error(`resolveReconciliation: ${issueText(checked.issues)}`);
        const request = checked.data;
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
      }),
    {
      validator: (request) => {
        const parsed = checkResolveReconciliation(request);
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

  // Rule 8: a cancellation from Temporal (handle.cancel(), the UI's Cancel, `temporal workflow
  // cancel`) means what the `cancel` update means. The script runs in a non-cancellable scope, so
  // the cleanup cannot itself be cancelled: an in-flight booking call completes and its booking
  // is cancelled; an ambiguous one still waits, open and searchable, for reconciliation.
  CancellationScope.current().cancelRequested.catch(() => requestCancel('cancelled from Temporal'));
  return CancellationScope.nonCancellable(script);

  // --- the script ---------------------------------------------------------------------------------
  async function script(): Promise<BookRoomResult> {
    // Rule 7: the client validated already; this guards direct starts.
    const parsed = checkBookRoomInput(input);
    if (!parsed.success) {
      return finish({
        outcome: BookingOutcome.FAILED,
        reason: 'invalid input',
        error: { code: 'INVALID_INPUT', message: issueText(parsed.issues) },
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
    // Rule 1, whoever starts the workflow: the order's earlier runs decide whether to book.
    let settled: Settled = { kind: 'book' };
    if (patched(EARLIER_RUNS_PATCH)) {
      settled = await settleEarlierRuns(p);
      if (settled.kind === 'ended') return finish(settled.final);
      if (settled.kind === 'book' && cancelRequested) return finish(cancelledBeforeBooking());
    }
    if (settled.kind === 'book') {
      const booked = await priceAndBook(p);
      if (booked.kind === 'ended') return finish(booked.final);
    }
    const id = bookingId!;

    // Rule 3: pending is not final.
    const waited = await awaitConfirmation(p, id);
    if (waited.kind === 'deadline') {
      const why = `not confirmed within ${String(p.confirmationDeadline)}`;
      noteError({ code: 'CONFIRMATION_DEADLINE', message: why });
      if (!p.cancelOnConfirmationTimeout)
        return finish({ outcome: BookingOutcome.NOT_CONFIRMED, reason: why });
      const cancelled = await cancelExisting(p, id, `${why}; cancelled so it cannot confirm later`);
      return finish({ ...cancelled, outcome: BookingOutcome.NOT_CONFIRMED });
    }
    if (cancelRequested && needsCancelling(supplierStatus)) {
      const cancelled = await cancelExisting(p, id, cancelWhy());
      // The supplier did not confirm the cancellation of a confirmed booking: it stands.
      if (cancelled.outcome === BookingOutcome.CONFIRMED) return finishConfirmed(p, cancelled);
      return finish(cancelled);
    }
    const reading = readStatus(supplierStatus ?? '');
    if (reading.kind !== 'final') {
      // Unreachable: the poll returns final statuses only. Should a change there break that, the
      // booking ends loudly (UNKNOWN_STATUS) rather than with an outcome it does not have.
      const error = { code: 'UNKNOWN_STATUS', message: `status ${String(supplierStatus)}` };
      return finish({ outcome: BookingOutcome.FAILED, reason: error.message, error });
    }
    if (reading.outcome === BookingOutcome.CONFIRMED) return finishConfirmed(p);
    return finish({
      outcome: reading.outcome,
      ...(cancelRequested && reading.outcome === BookingOutcome.CANCELLED
        ? { reason: cancelWhy() }
        : reading.reason !== undefined
          ? { reason: reading.reason }
          : {}),
    });
  }

  // --- steps --------------------------------------------------------------------------------------
  /**
   * Rule 1 for callers that start the workflow id again (any SDK's default id-reuse policy, the
   * CLI, the UI): the workflow id must be the order's, and the order's earlier runs and guard
   * decide (earlier-runs-decision.ts) whether this run books, reports their booking, follows it,
   * or waits for an operator.
   */
  async function settleEarlierRuns(p: BookRoomParams): Promise<Settled> {
    const expectedId = bookingWorkflowId(p.orderId);
    if (workflowInfo().workflowId !== expectedId) {
      const message = `workflow id: must be '${expectedId}' for order ${p.orderId} (one workflow id per order keeps one booking per order)`;
      return end({
        outcome: BookingOutcome.FAILED,
        reason: 'invalid input',
        error: { code: 'INVALID_INPUT', message },
      });
    }
    const { earlierRunsOfOrder } =
      proxyLocalActivities<EarlierRunsActivities>(EARLIER_RUNS_ACTIVITY);
    let earlier;
    try {
      earlier = await earlierRunsOfOrder({ orderId: p.orderId, runId: workflowInfo().runId });
    } catch (err) {
      const error = {
        code: 'EARLIER_RUNS_UNKNOWN',
        message: `the order's earlier runs could not be read: ${failureFacts(err).message}`,
      };
      return end({
        outcome: BookingOutcome.FAILED,
        reason: `nothing was sent: without the order's earlier runs a booking could be made twice`,
        error,
      });
    }
    const decision = decideOnEarlierRuns(earlier);
    switch (decision.next) {
      case 'book':
        return { kind: 'book' };
      case 'report':
        return end({
          outcome: decision.outcome,
          bookingId: decision.bookingId,
          ...(decision.supplierStatus !== undefined
            ? { supplierStatus: decision.supplierStatus }
            : {}),
          ...(decision.price !== undefined ? { price: decision.price } : {}),
          reason: `order ${p.orderId} was booked by an earlier run${decision.runId ? ` (${decision.runId})` : ''}: this run reports it and sent nothing`,
        });
      case 'follow':
        try {
          const snap = await reads.verifyBookingForOrder({
            bookingId: decision.bookingId,
            orderId,
            ...(orderIdField ? { orderIdField } : {}),
          });
          setBooking(decision.bookingId, snap.status);
          return { kind: 'has-booking' };
        } catch (err) {
          const f = failureFacts(err);
          return reconcileEarlier(
            `an earlier run (${decision.runId}) stopped holding supplier booking ${decision.bookingId}, which cannot be read: ${f.code}`,
          );
        }
      case 'reconcile':
        return reconcileEarlier(
          `an earlier run of this order (${decision.runId}): ${decision.why}`,
        );
    }
  }

  /** Whether the supplier holds a booking for the order is unknown: an operator says. */
  async function reconcileEarlier(message: string): Promise<Settled> {
    const error = { code: 'EARLIER_RUN_UNRESOLVED', message };
    noteError(error);
    const reconciled = await reconcile(error);
    return reconciled.kind === 'ended' ? reconciled : { kind: 'has-booking' };
  }

  /**
   * Rules 2 and 1: decide on the price, then book once; a 422 whose re-check finds a new price
   * goes back to the decision. Leaves the booking id set, or ends.
   */
  async function priceAndBook(p: BookRoomParams): Promise<{ kind: 'booked' } | Ended> {
    enter(BookingPhase.PRICE_CHECK);
    const rounds = { left: MAX_PRICE_ROUNDS };
    let answer: PriceCheckAnswer | undefined;
    let attempt: BookAttempt;
    for (;;) {
      const priced = await priceAndDecide(p, rounds, answer);
      if (priced.kind === 'ended') return priced;
      if (cancelRequested) return end(cancelledBeforeBooking());
      enter(BookingPhase.BOOKING);
      attempt = await bookOnce(p, priced);
      if (attempt.kind !== 'decide-again') break;
      answer = attempt.answer;
    }
    if (attempt.kind === 'ended') return attempt;
    if (attempt.kind === 'ambiguous') {
      const reconciled = await reconcile(attempt.error);
      if (reconciled.kind === 'ended') return reconciled;
    } else {
      setBooking(attempt.bookingId, attempt.status);
    }
    return { kind: 'booked' };
  }

  async function checkPrice(optionId: string): Promise<Checked> {
    try {
      const { priceCheck } = proxyActivities<BookingActivities>({
        ...READ_ACTIVITY,
        summary: `Price check for order ${orderId}`,
      });
      return { kind: 'checked', answer: await priceCheck({ optionId }) };
    } catch (err) {
      const error = toBookingError(err);
      return end({
        outcome: BookingOutcome.FAILED,
        reason: `price check failed: ${error.code}`,
        error,
      });
    }
  }

  /** Rule 2: price checks and decisions until there is a token to book with, or an outcome. */
  async function priceAndDecide(
    p: BookRoomParams,
    rounds: { left: number },
    given: PriceCheckAnswer | undefined,
  ): Promise<Priced> {
    let approved: Approved | undefined;
    let answer = given;
    for (; rounds.left > 0; rounds.left--) {
      enter(BookingPhase.PRICE_CHECK);
      const checkedAt = Date.now();
      if (!answer) {
        const pc = await checkPrice(p.optionId);
        if (cancelRequested) return end(cancelledBeforeBooking());
        if (pc.kind === 'ended') return pc;
        answer = pc.answer;
      }
      const verdict = decidePrice(answer, {
        expected: p.expectedPrice,
        maxIncreasePercent: p.priceChangePolicy?.maxIncreasePercent,
        acceptPolicyChange: p.priceChangePolicy?.acceptPolicyChange,
        approved,
      });
      switch (verdict.kind) {
        case 'not-available':
          return end({
            outcome: BookingOutcome.NOT_AVAILABLE,
            reason: 'the supplier says the option is not available',
          });
        case 'invalid': {
          const error = { code: 'CONTRACT', message: verdict.message };
          return end({ outcome: BookingOutcome.FAILED, reason: error.message, error });
        }
        case 'book':
          price = verdict.price;
          return { kind: 'priced', token: verdict.token, price: verdict.price };
        case 'ask':
          break;
      }

      // Ask a person, until approvalTimeout.
      const timeout = p.priceChangePolicy?.approvalTimeout ?? '15m';
      const timeoutMs = durationToMs(timeout) ?? 900_000;
      pendingDecision = {
        status: answer.status as PriceDecision['status'],
        ...(p.expectedPrice ? { expected: p.expectedPrice } : {}),
        ...(answer.price ? { offered: answer.price } : {}),
        ...(verdict.increasePercent !== undefined
          ? { increasePercent: verdict.increasePercent }
          : {}),
        deadline: new Date(Date.now() + timeoutMs).toISOString(),
      };
      decision = undefined;
      enter(BookingPhase.AWAITING_APPROVAL);
      const decided = await condition(() => decision !== undefined || cancelRequested, timeoutMs);
      pendingDecision = undefined;
      if (cancelRequested) return end(cancelledBeforeBooking());
      if (!decided) {
        return end({
          outcome: BookingOutcome.PRICE_REJECTED,
          reason: `no decision within ${String(timeout)}`,
        });
      }
      if (!decision) {
        return end({
          outcome: BookingOutcome.PRICE_REJECTED,
          reason: `the ${answer.status} was rejected`,
        });
      }
      approved = approve(answer, approved);
      if (Date.now() - checkedAt < TOKEN_FRESH_MS) {
        price = verdict.price;
        return { kind: 'priced', token: verdict.token, price: verdict.price };
      }
      // The token may have expired while a person decided: check again, against what was approved.
      answer = undefined;
    }
    return end({ outcome: BookingOutcome.PRICE_REJECTED, reason: 'the price kept changing' });
  }

  /** Rule 1: `POST /booking`, sent again only on proof that it never arrived. */
  async function bookOnce(
    p: BookRoomParams,
    priced: Extract<Priced, { kind: 'priced' }>,
  ): Promise<BookAttempt> {
    let token = priced.token;
    let tokenRefreshed = false;
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
        const next = afterBookingFailure(f, {
          attempt,
          maxAttempts: BOOKING_SEND_ATTEMPTS,
          baseDelayMs: BOOKING_RESEND_BASE_DELAY_MS,
          cancelRequested,
        });
        switch (next.next) {
          case 'reconcile':
            return { kind: 'ambiguous', error };
          case 'cancelled':
            return end(cancelledBeforeBooking());
          case 'fail':
            return end({
              outcome: BookingOutcome.FAILED,
              reason: `booking refused: ${f.code}`,
              error,
            });
          case 'resend':
            await sleep(next.delayMs);
            if (cancelRequested) return end(cancelledBeforeBooking());
            continue;
          case 'recheck-price': {
            // A 422 proves nothing was booked. Sold out, an expired token, a new price? Ask.
            const pc = await checkPrice(p.optionId);
            if (cancelRequested) return end(cancelledBeforeBooking());
            if (pc.kind === 'ended') return pc;
            const then = afterRecheck(pc.answer, { tokenRefreshed });
            switch (then.next) {
              case 'not-available':
                return end({
                  outcome: BookingOutcome.NOT_AVAILABLE,
                  reason: `sold out at booking: ${f.message}`,
                });
              case 'book-again':
                tokenRefreshed = true;
                token = then.token;
                continue;
              case 'decide':
                return { kind: 'decide-again', answer: then.answer };
              case 'fail':
                return end({
                  outcome: BookingOutcome.FAILED,
                  reason: `the supplier rejected the booking: ${f.message}`,
                  error,
                });
            }
          }
        }
      }
    }
  }

  /**
   * Rule 1: the booking call was ambiguous. Waits, open and searchable, for an operator; a
   * cancellation does not end the wait (the supplier may hold a booking). Ends the booking when
   * the operator says there is none; otherwise the supplier booking they named is the booking.
   */
  async function reconcile(error: BookingError): Promise<Reconciled> {
    enter(BookingPhase.NEEDS_RECONCILIATION);
    await condition(() => resolution !== undefined);
    if (!resolution || 'noBooking' in resolution) {
      return end(
        cancelRequested
          ? {
              outcome: BookingOutcome.CANCELLED,
              reason: 'cancelled; an operator confirmed no supplier booking exists',
            }
          : {
              outcome: BookingOutcome.FAILED,
              reason: 'an operator confirmed that no supplier booking exists',
              error,
            },
      );
    }
    // The price stays the one decided on: the retrieve's total is not a net price.
    setBooking(resolution.bookingId, resolution.snapshot.status);
    return { kind: 'reconciled' };
  }

  /**
   * Rule 3: polls until the booking's status is final, the deadline passes or a cancellation is
   * asked for. A failed read proves nothing: the poll goes on; when reads fail for long the
   * booking shows as `STATUS_UNREADABLE` (still polled) until a read succeeds again.
   */
  async function awaitConfirmation(p: BookRoomParams, id: number): Promise<Waited> {
    if (cancelRequested || readStatus(supplierStatus ?? '').kind === 'final')
      return { kind: 'final' };
    enter(BookingPhase.AWAITING_CONFIRMATION);
    const polling = p.polling ?? DEFAULT_POLLING;
    const until = Date.now() + (durationToMs(p.confirmationDeadline) ?? 48 * 3_600_000);
    let unreadable = false;
    pollScope = new CancellationScope();
    try {
      for (;;) {
        const { awaitFinalBookingStatus } = proxyActivities<BookingActivities>({
          ...POLL_ACTIVITY,
          scheduleToCloseTimeout: Math.max(1, until - Date.now()),
          summary: `Poll supplier booking ${id} until it is final`,
        });
        try {
          const snap = await pollScope.run(() =>
            awaitFinalBookingStatus({
              bookingId: id,
              polling,
              ...(unreadable
                ? { untilReadable: true }
                : { unreadableAfterMs: unreadableAfterMs(polling) }),
            }),
          );
          setBooking(id, snap.status);
          if (readStatus(snap.status).kind === 'final') return { kind: 'final' };
          unreadable = false; // read again: back to waiting
          enter(BookingPhase.AWAITING_CONFIRMATION);
        } catch (err) {
          const next = afterPollFailure({
            deadline: isDeadline(err),
            cancelled: cancelRequested && isCancellation(err),
          });
          if (next.next !== 'unreadable') return { kind: next.next };
          noteError(toBookingError(err));
          unreadable = true;
          enter(BookingPhase.STATUS_UNREADABLE);
        }
      }
    } finally {
      pollScope = undefined;
    }
  }

  /** Rule 4: cancels the supplier booking; the outcome follows what the supplier confirmed. */
  async function cancelExisting(p: BookRoomParams, id: number, why: string): Promise<Final> {
    enter(BookingPhase.CANCELLING);
    const polling = p.polling ?? DEFAULT_POLLING;
    let result: CancellationResult;
    if (patched(CANCEL_AS_CHILD)) {
      try {
        result = await executeChild(cancelBookingWorkflow, {
          workflowId: cancellationWorkflowId(id),
          args: [
            {
              bookingId: id,
              orderId: p.orderId,
              deadline: p.cancellationDeadline,
              polling,
              ...(cancelReason ? { reason: cancelReason } : {}),
            },
          ],
        });
      } catch (err) {
        // An operator's cancelBooking of this booking is running: cancel alongside it (harmless).
        if (!(err instanceof Error && err.name === 'WorkflowExecutionAlreadyStartedError'))
          throw err;
        result = await runCancellation(id, p.cancellationDeadline, polling);
      }
    } else {
      result = await runCancellation(id, p.cancellationDeadline, polling);
    }
    const outcome = outcomeAfterCancellation(result.outcome, supplierStatus);
    if (result.outcome === CancellationOutcome.STILL_ACTIVE) {
      noteError({ code: 'CANCELLATION_NOT_CONFIRMED', message: result.reason ?? 'STILL_ACTIVE' });
      return {
        outcome,
        reason: `${why}, but the supplier did not confirm the cancellation within ${String(p.cancellationDeadline)}: an operator is needed`,
        cancellation: { outcome: result.outcome },
      };
    }
    supplierStatus = 'CANCELLED';
    upsertSearchAttributes([{ key: SupplierStatusKey, value: 'CANCELLED' }]);
    return {
      outcome,
      reason: why,
      cancellation: { outcome: result.outcome, ...(cancelReason ? { reason: cancelReason } : {}) },
    };
  }

  function cancelledBeforeBooking(): Final {
    return {
      outcome: BookingOutcome.CANCELLED,
      reason: `cancelled before any supplier booking was made${cancelReason ? `: ${cancelReason}` : ''}`,
    };
  }

  function cancelWhy(): string {
    return `cancelled on request${cancelReason ? `: ${cancelReason}` : ''}`;
  }

  /** The one place where a CONFIRMED booking is finished (what follows a confirmation goes here). */
  async function finishConfirmed(
    p: BookRoomParams,
    final: Final = { outcome: BookingOutcome.CONFIRMED },
  ): Promise<BookRoomResult> {
    // The confirmed order is handed to its guard (guardBooking, until
    // check-out), started once the phase reads CONFIRMED so that cancel requests go there.
    // Patched: histories recorded before it close here without a guard.
    return finish(final, async () => {
      if (bookingId === undefined || !patched(GUARD_AFTER_CONFIRMED_PATCH)) return;
      const unconfirmedCancel = final.cancellation?.outcome === CancellationOutcome.STILL_ACTIVE;
      await handOverToGuard(p, bookingId, price, unconfirmedCancel);
    });
  }

  async function finish(final: Final, afterOutcome?: () => Promise<void>): Promise<BookRoomResult> {
    outcome = final.outcome;
    if (final.error) noteError(final.error);
    if (final.bookingId !== undefined && final.bookingId !== bookingId) {
      setBooking(final.bookingId, final.supplierStatus ?? supplierStatus ?? 'UNKNOWN');
    }
    upsertSearchAttributes([{ key: BookingOutcomeKey, value: final.outcome }]);
    enter(final.outcome);
    await afterOutcome?.();
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
}

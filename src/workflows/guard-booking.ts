/**
 * `guardBooking`, id `guard-<orderId>`: a CONFIRMED booking's life until check-out. `bookRoom`
 * starts it (an abandoned child) when the booking is confirmed and returns its own result at once;
 * the guard then holds the order:
 *
 * - reads the booking once (status, stay dates, `cancel_policy` / `penalty_date`): the
 *   free-cancellation deadline is the earliest of the supplier's and the order system's;
 * - reconfirms before check-in (`guard.reconfirmBefore`, default 72 h and 24 h): a read that is not
 *   CONFIRMED flags the booking (phase, `Reconfirmation = 'FLAGGED'`, a metric, the reason);
 * - takes cancel-by-order until check-in: the `cancel` update and a Temporal cancellation of this
 *   workflow go through one path, `decideCancellation` then `runCancellation` (rule 4); after free
 *   cancellation ends only with `acceptPenalty: true`;
 * - cancels by itself before the deadline when `guard.autoCancelBeforePenalty` is set and the
 *   order system did not send `keep`;
 * - closes at check-out (or once cancelled) with its final truth.
 *
 * A handful of supplier calls per booking however long it lives; one timer per point in time;
 * `continueAsNew` when the server suggests it.
 */
import {
  ApplicationFailure,
  CancellationScope,
  allHandlersFinished,
  condition,
  continueAsNew,
  metricMeter,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { BookingTerms, GuardActivities } from '../activities/guard';
import type { BookingError, SupplierPrice } from '../shared/booking-contract';
import { CancellationOutcome } from '../shared/booking-values';
import { DEFAULT_POLLING, defaultGuardPolicy } from '../shared/input-fast-path';
import type {
  CancellationTerms,
  GuardBookingInput,
  GuardBookingResult,
  GuardFlag,
  OrderState,
} from '../shared/guard-contract';
import { FINAL_GUARD_PHASES, GuardPhase, ReconfirmationMark } from '../shared/guard-values';
import { guardCancelUpdate, keepUpdate, orderStateQuery } from '../shared/guard-messages';
import {
  BookingOutcomeKey,
  BookingPhaseKey,
  CheckInDateKey,
  FreeCancellationUntilKey,
  OrderIdKey,
  ReconfirmationKey,
  SupplierBookingIdKey,
  SupplierStatusKey,
} from '../shared/search-attributes';
import { READ_ACTIVITY } from './activity-options';
import { runCancellation } from './cancellation';
import { toBookingError } from './failure-facts';
import {
  checkGuardBookingInput,
  checkGuardCancelRequest,
  checkKeepRequest,
  issueText,
} from './input-checks';
import {
  autoCancelTime,
  cancellationTerms,
  decideCancellation,
  iso,
  nextWake,
  parseInstant,
  reconfirmationTimes,
  reconfirmationVerdict,
  stayInstants,
  truthOf,
  type BookingRead,
} from './guard-decisions';

type CancelBy = 'update' | 'temporal' | 'auto';
interface CancelRequest {
  readonly by: CancelBy;
  readonly reason?: string;
  readonly acceptPenalty: boolean;
}

/** Everything the guard knows, carried across `continueAsNew`. */
interface Carried {
  phase: GuardPhase;
  supplierStatus?: string;
  checkIn?: string;
  checkOut?: string;
  checkInAt?: number;
  checkOutAt?: number;
  terms: CancellationTerms;
  reconfirmAt: number[];
  reconfirmations: { at: string; status: string }[];
  flag?: GuardFlag;
  autoCancel?: { at?: string; kept: boolean; done: boolean };
  cancellation?: OrderState['cancellation'];
  refusal?: { at: string; message: string };
  lastError?: BookingError & { at: string };
}

export async function guardBooking(input: GuardBookingInput): Promise<GuardBookingResult> {
  const parsed = checkGuardBookingInput(input);
  if (!parsed.success) {
    throw ApplicationFailure.create({
      type: 'INVALID_INPUT',
      message: issueText(parsed.issues),
      nonRetryable: true,
    });
  }
  const p = parsed.data;
  const { orderId, bookingId } = p;
  const policy = p.guard ?? defaultGuardPolicy();
  const polling = p.polling ?? DEFAULT_POLLING;
  const carried = p.carried as Carried | undefined;
  const s: Carried = carried ?? {
    phase: p.cancellationPending ? GuardPhase.CANCELLATION_PENDING : GuardPhase.CONFIRMED,
    ...(p.cancellationPending
      ? {
          cancellation: {
            requestedAt: iso(Date.now()),
            by: 'update' as const,
            reason: 'requested while booking; the supplier had not confirmed it',
            acceptPenalty: false,
            outcome: CancellationOutcome.STILL_ACTIVE,
          },
        }
      : {}),
    ...(p.checkIn !== undefined ? { checkIn: p.checkIn } : {}),
    terms: cancellationTerms({ orderDeadline: policy.freeCancellationUntil }),
    reconfirmAt: [],
    reconfirmations: [],
  };

  let pending: CancelRequest | undefined;
  let requested = 0;
  let taken = 0;
  let changed = false;
  /** The terms are known (read at the start, or carried over). */
  let ready = carried !== undefined;
  const flags = metricMeter.createCounter(
    'hotel_reconfirmation_flags',
    'bookings',
    'Confirmed bookings flagged by the guard (reconfirmation not CONFIRMED, supplier cancelled, cancellation unconfirmed)',
  );

  const isFinal = () => FINAL_GUARD_PHASES.includes(s.phase);

  const state = (): OrderState => ({
    orderId,
    phase: s.phase,
    truth: truthOf(s.phase, !isFinal()),
    holder: 'guardBooking',
    workflowId: workflowInfo().workflowId,
    open: !isFinal(),
    outcome: 'CONFIRMED',
    bookingId,
    cancelRequested: s.cancellation !== undefined,
    ...(s.supplierStatus !== undefined ? { supplierStatus: s.supplierStatus } : {}),
    ...(p.price !== undefined ? { price: p.price as SupplierPrice } : {}),
    ...(s.lastError !== undefined ? { lastError: s.lastError } : {}),
    ...(s.checkIn !== undefined ? { checkIn: s.checkIn } : {}),
    ...(s.checkInAt !== undefined ? { checkInAt: iso(s.checkInAt) } : {}),
    ...(s.checkOutAt !== undefined ? { checkOutAt: iso(s.checkOutAt) } : {}),
    terms: s.terms,
    ...(s.reconfirmAt[0] !== undefined && !isFinal()
      ? { nextReconfirmationAt: iso(s.reconfirmAt[0]) }
      : {}),
    reconfirmations: s.reconfirmations,
    ...(s.flag !== undefined ? { flag: s.flag } : {}),
    ...(s.autoCancel !== undefined ? { autoCancel: s.autoCancel } : {}),
    ...(s.cancellation !== undefined ? { cancellation: s.cancellation } : {}),
    ...(s.refusal !== undefined ? { refusal: s.refusal } : {}),
  });

  function details(): string {
    const lines = [`**${s.phase}** — order \`${orderId}\`, supplier booking ${bookingId}`];
    if (s.terms.refundable === false) lines.push('non-refundable rate');
    else
      lines.push(
        `free cancellation until ${s.terms.freeCancellationUntil ?? 'unknown (cancelling needs acceptPenalty)'}`,
      );
    if (s.checkInAt !== undefined) lines.push(`check-in ${iso(s.checkInAt)}`);
    if (s.reconfirmAt[0] !== undefined && !isFinal())
      lines.push(`next reconfirmation ${iso(s.reconfirmAt[0])}`);
    if (s.autoCancel && !s.autoCancel.done)
      lines.push(
        s.autoCancel.kept
          ? 'kept by the order system (no automatic cancellation)'
          : `cancels automatically at ${s.autoCancel.at ?? '?'} unless kept`,
      );
    if (s.flag) lines.push(`flagged ${s.flag.reason}: ${s.flag.message}`);
    if (s.refusal) lines.push(`cancellation refused: ${s.refusal.message}`);
    return lines.join('\n\n');
  }

  function enter(next: GuardPhase): void {
    s.phase = next;
    upsertSearchAttributes([{ key: BookingPhaseKey, value: next }]);
    setCurrentDetails(details());
  }

  function flag(reason: GuardFlag['reason'], message: string, mark = true): void {
    s.flag = { reason, message, at: iso(Date.now()) };
    if (mark)
      upsertSearchAttributes([{ key: ReconfirmationKey, value: ReconfirmationMark.FLAGGED }]);
    flags.add(1, { reason });
  }

  function setStatus(status: string): void {
    s.supplierStatus = status;
    upsertSearchAttributes([{ key: SupplierStatusKey, value: status }]);
  }

  /** Arms or disarms `autoCancelBeforePenalty` from the current terms. */
  function armAutoCancel(): void {
    if (!policy.autoCancelBeforePenalty) return;
    const at = autoCancelTime(s.terms, policy.autoCancelMargin);
    s.autoCancel = {
      kept: s.autoCancel?.kept ?? false,
      done: s.autoCancel?.done ?? false,
      ...(at !== undefined ? { at: iso(at) } : {}),
    };
  }

  // --- messages -----------------------------------------------------------------------------------
  setHandler(orderStateQuery, state);

  setHandler(
    guardCancelUpdate,
    async (request) => {
      // Non-cancellable: after a refused Temporal cancellation the root scope stays cancelled,
      // and later requests must still be answered.
      await CancellationScope.nonCancellable(async () => {
        // A request that arrives before the terms are read is decided on them, not without them.
        await condition(() => ready);
        const acceptPenalty = request?.acceptPenalty === true;
        refuseIfNot(decide(acceptPenalty));
        if (decide(acceptPenalty).kind === 'already') return;
        pending = {
          by: 'update',
          acceptPenalty,
          ...(request?.reason ? { reason: request.reason } : {}),
        };
        const mine = ++requested;
        await condition(() => taken >= mine);
      });
      return state();
    },
    {
      validator: (request) => {
        const parsedRequest = checkGuardCancelRequest(request ?? {});
        if (!parsedRequest.success) throw new Error(`cancel: ${issueText(parsedRequest.issues)}`);
        // Refused before it is written to history when the answer is already known.
        if (ready) refuseIfNot(decide(request?.acceptPenalty === true));
      },
    },
  );

  setHandler(
    keepUpdate,
    () => {
      s.autoCancel = { ...(s.autoCancel ?? { done: false }), kept: true };
      changed = true;
      setCurrentDetails(details());
      return state();
    },
    {
      validator: (request) => {
        if (!checkKeepRequest(request ?? {}).success)
          throw new Error('keep: give {} or { reason }');
        if (!policy.autoCancelBeforePenalty)
          throw new Error(
            `Order ${orderId} was booked without autoCancelBeforePenalty: there is no automatic cancellation to stop`,
          );
        if (s.autoCancel?.done || isFinal() || s.phase === GuardPhase.CANCELLING)
          throw new Error(
            `Order ${orderId} is ${s.phase}: the automatic cancellation has already run or the order has ended`,
          );
      },
    },
  );

  /** Throws the refusal, its code as the failure's type (CancellationRefusedError.code). */
  function refuseIfNot(decision: ReturnType<typeof decide>): void {
    if (decision.kind === 'refuse')
      throw ApplicationFailure.create({
        type: decision.code,
        message: decision.message,
        nonRetryable: true,
      });
  }

  function decide(acceptPenalty: boolean) {
    return decideCancellation({
      orderId,
      now: Date.now(),
      phase: s.phase,
      terms: s.terms,
      checkInAt: s.checkInAt,
      acceptPenalty,
    });
  }

  // A cancellation of this workflow from Temporal (UI, CLI, handle.cancel()) is a cancel request
  // like the update's: same decision, same cleanup. The body runs non-cancellable, so the request
  // is decided rather than cutting a supplier call or a wait short (rule 8).
  CancellationScope.current().cancelRequested.catch(() => {
    pending = { by: 'temporal', acceptPenalty: false, reason: 'cancelled from Temporal' };
  });

  // --- supplier reads -------------------------------------------------------------------------------
  async function read(why: string): Promise<BookingRead & { terms?: BookingTerms }> {
    const { readBookingTerms } = proxyActivities<GuardActivities>({
      ...READ_ACTIVITY,
      summary: `${why}: GET /retrieve of supplier booking ${bookingId}`,
    });
    try {
      const r = await readBookingTerms({ bookingId });
      if (!r.found) return { kind: 'not-found' };
      return { kind: 'status', status: r.status, terms: r };
    } catch (err) {
      const e = toBookingError(err);
      s.lastError = { ...e, at: iso(Date.now()) };
      return { kind: 'unreadable', code: e.code, message: e.message };
    }
  }

  /** Applies what a read says; `true` when the guard has nothing left to guard. */
  function apply(r: BookingRead): void {
    if (r.kind === 'status') setStatus(r.status);
    s.reconfirmations.push({
      at: iso(Date.now()),
      status: r.kind === 'status' ? r.status : r.kind === 'not-found' ? 'NOT_FOUND' : 'UNREADABLE',
    });
    const weCancelled = s.cancellation !== undefined;
    const verdict = reconfirmationVerdict(r, weCancelled, bookingId);
    switch (verdict.kind) {
      case 'confirmed':
        upsertSearchAttributes([{ key: ReconfirmationKey, value: ReconfirmationMark.CONFIRMED }]);
        if (s.phase === GuardPhase.NEEDS_ATTENTION) enter(GuardPhase.CONFIRMED);
        else setCurrentDetails(details());
        return;
      case 'cancelled-by-us':
        if (s.cancellation) s.cancellation = { ...s.cancellation, outcome: 'CANCELLED' };
        enter(GuardPhase.CANCELLED);
        return;
      case 'cancelled-by-supplier':
        flag('SUPPLIER_CANCELLED', `the supplier cancelled booking ${bookingId}`);
        enter(GuardPhase.CANCELLED_BY_SUPPLIER);
        return;
      case 'flag':
        flag(verdict.reason, verdict.message);
        if (s.phase === GuardPhase.CONFIRMED) enter(GuardPhase.NEEDS_ATTENTION);
        else setCurrentDetails(details());
        return;
    }
  }

  async function start(): Promise<void> {
    upsertSearchAttributes([
      { key: OrderIdKey, value: orderId },
      { key: SupplierBookingIdKey, value: bookingId },
      { key: BookingPhaseKey, value: s.phase },
    ]);
    const r = await read('Terms of the confirmed booking');
    const terms = r.terms;
    if (terms) {
      if (terms.checkIn) s.checkIn = terms.checkIn;
      if (terms.checkOut) s.checkOut = terms.checkOut;
      s.terms = cancellationTerms({
        supplierPenaltyDate: terms.penaltyDate,
        refundable: terms.refundable ?? undefined,
        orderDeadline: policy.freeCancellationUntil,
      });
    }
    const stay = stayInstants({
      checkIn: s.checkIn,
      checkOut: s.checkOut,
      checkInAt: policy.checkInAt,
      checkOutAt: policy.checkOutAt,
    });
    if (stay.checkInAt !== undefined) s.checkInAt = stay.checkInAt;
    if (stay.checkOutAt !== undefined) s.checkOutAt = stay.checkOutAt;
    // Points already past are covered by this read.
    s.reconfirmAt = reconfirmationTimes(s.checkInAt, policy.reconfirmBefore).filter(
      (t) => t > Date.now(),
    );
    const deadline = parseInstant(s.terms.freeCancellationUntil);
    upsertSearchAttributes([
      ...(deadline !== undefined
        ? [{ key: FreeCancellationUntilKey, value: new Date(deadline) }]
        : []),
      ...(s.checkIn !== undefined
        ? [{ key: CheckInDateKey, value: new Date(`${s.checkIn}T00:00:00Z`) }]
        : []),
    ]);
    armAutoCancel();
    apply(r);
  }

  async function cancel(request: CancelRequest): Promise<void> {
    const decision = decide(request.acceptPenalty);
    if (decision.kind === 'already') return;
    if (decision.kind === 'refuse') {
      s.refusal = { at: iso(Date.now()), message: decision.message };
      setCurrentDetails(details());
      return;
    }
    s.refusal = undefined;
    s.cancellation = {
      requestedAt: iso(Date.now()),
      by: request.by,
      acceptPenalty: request.acceptPenalty,
      ...(request.reason !== undefined ? { reason: request.reason } : {}),
    };
    enter(GuardPhase.CANCELLING);
    let outcome: CancellationOutcome;
    try {
      // runCancellation answers an outcome, or (in newer code) `{ outcome, reason }`.
      const r = (await runCancellation(bookingId, p.cancellationDeadline, polling)) as unknown as
        CancellationOutcome | { readonly outcome: CancellationOutcome };
      outcome = typeof r === 'string' ? r : r.outcome;
    } catch (err) {
      const e = toBookingError(err);
      s.lastError = { ...e, at: iso(Date.now()) };
      flag('CANCELLATION_UNCONFIRMED', `the cancellation failed: ${e.code}`, false);
      enter(GuardPhase.CANCELLATION_PENDING);
      return;
    }
    s.cancellation = { ...s.cancellation, outcome };
    if (outcome === CancellationOutcome.STILL_ACTIVE) {
      flag(
        'CANCELLATION_UNCONFIRMED',
        `the supplier did not confirm the cancellation within ${String(p.cancellationDeadline)}`,
        false,
      );
      enter(GuardPhase.CANCELLATION_PENDING);
      return;
    }
    setStatus('CANCELLED');
    enter(GuardPhase.CANCELLED);
  }

  function autoCancelAt(): number | undefined {
    const a = s.autoCancel;
    if (!a || a.kept || a.done || a.at === undefined) return undefined;
    if (s.phase !== GuardPhase.CONFIRMED && s.phase !== GuardPhase.NEEDS_ATTENTION)
      return undefined;
    return parseInstant(a.at);
  }

  async function guard(): Promise<void> {
    if (!carried) await start();
    ready = true;
    setCurrentDetails(details());
    while (!isFinal()) {
      if (pending) {
        const request = pending;
        pending = undefined;
        taken = requested;
        await cancel(request);
        continue;
      }
      const wake = nextWake({
        reconfirmAt: s.reconfirmAt,
        autoCancelAt: autoCancelAt(),
        checkOutAt: s.checkOutAt,
      });
      const waitMs = wake ? wake.at - Date.now() : undefined;
      if (waitMs === undefined || waitMs > 0) {
        changed = false;
        const interrupted = await condition(() => pending !== undefined || changed, waitMs);
        if (interrupted) continue;
      }
      if (!wake) continue;
      if (wake.what === 'auto-cancel') {
        s.autoCancel = { ...s.autoCancel!, done: true };
        const deadline = s.terms.freeCancellationUntil ?? '?';
        pending = {
          by: 'auto',
          acceptPenalty: false,
          reason: `autoCancelBeforePenalty: the order system did not keep it before free cancellation ends (${deadline})`,
        };
      } else if (wake.what === 'reconfirm') {
        s.reconfirmAt = s.reconfirmAt.slice(1);
        apply(await read('Reconfirmation before check-in'));
      } else {
        enter(GuardPhase.CHECKED_OUT);
      }
      if (workflowInfo().continueAsNewSuggested && !isFinal() && !pending) {
        await condition(allHandlersFinished);
        await continueAsNew<typeof guardBooking>({ ...input, carried: { ...s } });
      }
    }
    upsertSearchAttributes([{ key: BookingOutcomeKey, value: s.phase }]);
  }

  await CancellationScope.nonCancellable(async () => {
    await guard();
    // Let running update handlers return their answer before the workflow closes.
    await condition(allHandlersFinished);
  });
  const final = state();
  return {
    orderId,
    bookingId,
    phase: s.phase,
    truth: final.truth,
    reason: reasonFor(s),
    state: final,
    ...(s.lastError !== undefined
      ? { error: { code: s.lastError.code, message: s.lastError.message } }
      : {}),
  };
}

function reasonFor(s: Carried): string {
  switch (s.phase) {
    case GuardPhase.CANCELLED:
      return s.cancellation?.outcome === 'NOT_FOUND'
        ? 'cancelled: the supplier no longer knows the booking'
        : `cancelled (${s.cancellation?.by ?? 'on request'}${s.cancellation?.reason ? `: ${s.cancellation.reason}` : ''})${s.cancellation?.acceptPenalty ? ', penalty accepted' : ''}`;
    case GuardPhase.CANCELLED_BY_SUPPLIER:
      return s.flag?.message ?? 'the supplier cancelled the booking';
    default:
      return s.flag
        ? `the stay is over; last flag ${s.flag.reason}: ${s.flag.message}`
        : 'the stay is over; the booking stood to the end';
  }
}

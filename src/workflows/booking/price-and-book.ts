/**
 * Rules 2 and 1: the price is decided (price-decision.ts), a person asked when it must be, then the
 * booking call is sent once; a 422 whose re-check finds a new price goes back to the decision.
 */
import { sleep } from '@temporalio/workflow';
import type { BookingActivities } from '../../activities/booking';
import type {
  BookRoomParams,
  BookingError,
  PriceDecision,
  SupplierPrice,
} from '../../shared/booking-contract';
import { BookingPhase } from '../../shared/booking-values';
import { DEFAULT_APPROVAL_TIMEOUT } from '../../config/defaults';
import { durationToMs } from '../../shared/duration';
import {
  BOOKING_RESEND_BASE_DELAY_MS,
  BOOKING_SEND_ATTEMPTS,
  CREATE_BOOKING_ACTIVITY,
  READ_ACTIVITY,
  accountActivities,
} from '../activity-options';
import { bookingCallFacts, failureFacts, toBookingError } from '../failure-facts';
import type { BookingRun } from './booking-run';
import { reconcile } from './confirmation';
import { Decisions, decided, type Decided } from './decisions';
import { afterBookingFailure, afterRecheck } from './failure-decision';
import {
  approve,
  decidePrice,
  type Approved,
  type PriceCheckAnswer,
  type PriceVerdict,
} from './price-decision';
import { waitUntil } from '../wait';

/** A price-check token older than this is re-checked before booking (tokens expire). */
const TOKEN_FRESH_MS = 5 * 60_000;
/** Price checks one booking may make through approvals and re-checks. */
const MAX_PRICE_ROUNDS = 4;

type Checked = { kind: 'checked'; answer: PriceCheckAnswer } | Decided;
type Priced = { kind: 'priced'; token: string; price: SupplierPrice | undefined } | Decided;
type BookAttempt =
  | { kind: 'booked'; bookingId: number; status: string }
  | { kind: 'ambiguous'; error: BookingError }
  /** A 422's re-check found a new price or policy: decide again on this answer. */
  | { kind: 'decide-again'; answer: PriceCheckAnswer }
  | Decided;

const cancelledBeforeBooking = (run: BookingRun): Decided =>
  decided(Decisions.cancelledBeforeBooking(run.cancelReason));

/** Leaves the booking id set (booked, or named by an operator after an ambiguous call), or decides. */
export async function priceAndBook(
  run: BookingRun,
  p: BookRoomParams,
): Promise<{ kind: 'booked' } | Decided> {
  run.enter(BookingPhase.PRICE_CHECK);
  const rounds = { left: MAX_PRICE_ROUNDS };
  // The first task's local price check: its answer, its refusal, or nothing (then scheduled).
  const local = run.localPrice;
  run.localPrice = undefined;
  if (local?.kind === 'failed' && !local.retryable)
    return decided(Decisions.priceCheckFailed({ code: local.code, message: local.message }));
  let answer: PriceCheckAnswer | undefined = local?.kind === 'read' ? local.result : undefined;
  let attempt: BookAttempt;
  for (;;) {
    const pricing = priceAndDecide(run, p, rounds, answer);
    const priced = pricing instanceof Promise ? await pricing : pricing;
    if (priced.kind === 'decided') return priced;
    if (run.cancelRequested) return cancelledBeforeBooking(run);
    run.enter(BookingPhase.BOOKING);
    attempt = await bookOnce(run, p, priced);
    if (attempt.kind !== 'decide-again') break;
    answer = attempt.answer;
  }
  if (attempt.kind === 'decided') return attempt;
  if (attempt.kind === 'ambiguous') {
    const reconciled = await reconcile(run, attempt.error);
    if (reconciled.kind === 'decided') return reconciled;
  } else {
    run.setBooking(attempt.bookingId, attempt.status);
  }
  return { kind: 'booked' };
}

async function checkPrice(run: BookingRun, optionId: string): Promise<Checked> {
  try {
    const { priceCheck } = accountActivities<BookingActivities>(run.supplier, {
      ...READ_ACTIVITY,
      summary: `Price check for order ${run.orderId}`,
    });
    return { kind: 'checked', answer: await priceCheck({ optionId }) };
  } catch (err) {
    return decided(Decisions.priceCheckFailed(toBookingError(err)));
  }
}

/**
 * Rule 2: price checks and decisions until there is a token to book with, or a decision;
 * synchronous on a `given` answer that decides at once (the common case): no promise is made.
 */
function priceAndDecide(
  run: BookingRun,
  p: BookRoomParams,
  rounds: { left: number },
  given: PriceCheckAnswer | undefined,
  approved?: Approved,
): Priced | Promise<Priced> {
  if (rounds.left <= 0) return decided(Decisions.priceRejected('the price kept changing'));
  run.enter(BookingPhase.PRICE_CHECK);
  const checkedAt = Date.now();
  if (given) return onAnswer(run, p, rounds, { answer: given, checkedAt, approved });
  return checkPrice(run, p.optionId).then((pc) => {
    if (run.cancelRequested) return cancelledBeforeBooking(run);
    if (pc.kind === 'decided') return pc;
    return onAnswer(run, p, rounds, { answer: pc.answer, checkedAt, approved });
  });
}

/** One round's price check: its answer, when it was asked for, and what a person approved before. */
interface PriceRound {
  readonly answer: PriceCheckAnswer;
  readonly checkedAt: number;
  readonly approved: Approved | undefined;
}

/** What one price check's answer decides (price-decision.ts). */
function onAnswer(
  run: BookingRun,
  p: BookRoomParams,
  rounds: { left: number },
  round: PriceRound,
): Priced | Promise<Priced> {
  const verdict = decidePrice(round.answer, {
    expected: p.expectedPrice,
    maxIncreasePercent: p.priceChangePolicy?.maxIncreasePercent,
    acceptPolicyChange: p.priceChangePolicy?.acceptPolicyChange,
    approved: round.approved,
  });
  switch (verdict.kind) {
    case 'not-available':
      return decided(Decisions.notAvailable('the supplier says the option is not available'));
    case 'invalid':
      return decided(Decisions.contractBroken(verdict.message));
    case 'book':
      run.price = verdict.price;
      return { kind: 'priced', token: verdict.token, price: verdict.price };
    case 'ask':
      return askPerson(run, p, rounds, round, verdict);
  }
}

/** Ask a person, until approvalTimeout; a token grown stale meanwhile is checked again. */
async function askPerson(
  run: BookingRun,
  p: BookRoomParams,
  rounds: { left: number },
  { answer, checkedAt, approved }: PriceRound,
  verdict: Extract<PriceVerdict, { kind: 'ask' }>,
): Promise<Priced> {
  const timeout = p.priceChangePolicy?.approvalTimeout ?? DEFAULT_APPROVAL_TIMEOUT;
  const timeoutMs = durationToMs(timeout) ?? durationToMs(DEFAULT_APPROVAL_TIMEOUT)!;
  run.pendingDecision = {
    status: answer.status as PriceDecision['status'],
    ...(p.expectedPrice ? { expected: p.expectedPrice } : {}),
    ...(answer.price ? { offered: answer.price } : {}),
    ...(verdict.increasePercent !== undefined ? { increasePercent: verdict.increasePercent } : {}),
    deadline: new Date(Date.now() + timeoutMs).toISOString(),
  };
  run.approval = undefined;
  run.enter(BookingPhase.AWAITING_APPROVAL);
  const answered = await waitUntil(() => run.approval !== undefined || run.cancelRequested, {
    ms: timeoutMs,
    summary: 'Approval timeout: the price change is rejected unless approved',
  });
  run.pendingDecision = undefined;
  if (run.cancelRequested) return cancelledBeforeBooking(run);
  if (!answered) return decided(Decisions.priceRejected(`no decision within ${String(timeout)}`));
  if (!run.approval) return decided(Decisions.priceRejected(`the ${answer.status} was rejected`));
  if (Date.now() - checkedAt < TOKEN_FRESH_MS) {
    run.price = verdict.price;
    return { kind: 'priced', token: verdict.token, price: verdict.price };
  }
  // The token may have expired while a person decided: check again, against what was approved.
  rounds.left -= 1;
  return priceAndDecide(run, p, rounds, undefined, approve(answer, approved));
}

/** Rule 1: `POST /booking`, sent again only on proof that it never arrived. */
async function bookOnce(
  run: BookingRun,
  p: BookRoomParams,
  priced: Extract<Priced, { kind: 'priced' }>,
): Promise<BookAttempt> {
  let token = priced.token;
  let tokenRefreshed = false;
  const marked = run.bookingCallMarked;
  for (let attempt = 1; ; attempt++) {
    try {
      const { createBooking, createBookingMarked } = accountActivities<BookingActivities>(
        run.supplier,
        {
          ...CREATE_BOOKING_ACTIVITY,
          summary: `POST /booking for order ${run.orderId} (sent at most once)`,
        },
      );
      const r = await (marked ? createBookingMarked : createBooking)({
        orderId: p.orderId,
        token,
        rooms: p.rooms,
        contact: p.contact,
        customFields: p.customFields,
        ...(p.orderIdField ? { orderIdField: p.orderIdField } : {}),
      });
      return { kind: 'booked', bookingId: r.bookingId, status: r.status };
    } catch (err) {
      const f = marked ? bookingCallFacts(err) : failureFacts(err);
      const error = { code: f.code, message: f.message };
      run.noteError(error);
      const next = afterBookingFailure(f, {
        attempt,
        maxAttempts: BOOKING_SEND_ATTEMPTS,
        baseDelayMs: BOOKING_RESEND_BASE_DELAY_MS,
        cancelRequested: run.cancelRequested,
      });
      switch (next.next) {
        case 'reconcile':
          return { kind: 'ambiguous', error };
        case 'cancelled':
          return cancelledBeforeBooking(run);
        case 'fail':
          return decided(Decisions.bookingRefused(error));
        case 'resend':
          await sleep(next.delayMs, {
            summary: `POST /booking again: attempt ${attempt} booked nothing`,
          });
          if (run.cancelRequested) return cancelledBeforeBooking(run);
          continue;
        case 'recheck-price': {
          // A 422 proves nothing was booked. Sold out, an expired token, a new price? Ask.
          const pc = await checkPrice(run, p.optionId);
          if (run.cancelRequested) return cancelledBeforeBooking(run);
          if (pc.kind === 'decided') return pc;
          const then = afterRecheck(pc.answer, { tokenRefreshed });
          switch (then.next) {
            case 'not-available':
              return decided(Decisions.notAvailable(`sold out at booking: ${f.message}`));
            case 'book-again':
              tokenRefreshed = true;
              token = then.token;
              continue;
            case 'decide':
              return { kind: 'decide-again', answer: then.answer };
            case 'fail':
              return decided(Decisions.bookingRejected(error));
          }
        }
      }
    }
  }
}

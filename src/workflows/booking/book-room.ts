/**
 * `bookRoom`, id `booking-<orderId>`: one workflow holds an order from its first call to check-out:
 * the booking (rules: docs/hard-rules.md), then, from the activation that decided CONFIRMED, its
 * guard (../guard/). State: booking-run.ts; handlers: booking-messages.ts; this file is the script.
 */
import { CancellationScope, continueAsNew, patched, setHandler } from '@temporalio/workflow';
import type {
  BookRoomInput,
  BookRoomParams,
  BookRoomResult,
  OrderIdAlone,
  OrderInput,
  OrderResult,
} from '../../shared/booking-contract';
import { BookingOutcome } from '../../shared/booking-values';
import type { GuardInput } from '../../shared/guard-contract';
import { outcomeUpdate } from '../../shared/booking-messages';
import { CheckInDateKey, OrderIdKey, SupplierAccountKey } from '../../shared/search-attributes';
import { accountOf } from '../../shared/supplier-accounts';
import { bookRoomOfEarlierVersions } from '../earlier-versions/book-room';
import { checkOrderIdAlone, isOrderIdAlone, issueText } from '../input-checks';
import { bookRoomInputVerdict } from '../input-verdicts';
import { Patch } from '../../shared/compatibility';
import { SearchAttributeWriter } from '../search-attribute-writer';
import { cancelledFromTemporal, checkedGuardInput, guardToTheEnd } from '../guard/guard';
import { registerGuardHandlers } from '../guard/guard-messages';
import { guardOutbox } from '../guard/guard-home';
import { GuardRun } from '../guard/guard-run';
import { noArgument, registerBookingHandlers } from './booking-messages';
import { BookingRun } from './booking-run';
import { cancelSupplierBooking } from './cancel-supplier-booking';
import { awaitConfirmation, supplierDecision, waitsForConfirmation } from './confirmation';
import { close, decide, finish, guardHome, guardTheOrder } from './decide';
import { Decisions, type Decision } from './decisions';
import { settleEarlierRuns, wrongWorkflowId } from './earlier-runs';
import { priceAndBook } from './price-and-book';
import { needsCancelling } from './supplier-outcome';

/** A history with neither marker was recorded by an earlier version (docs/earlier-versions.md). */
export function bookRoom(input: OrderInput): Promise<OrderResult> {
  if (!patched(Patch.BOOKING_CALL_MARKED) && !patched(Patch.ONE_ORDER_ONE_WORKFLOW))
    return bookRoomOfEarlierVersions(input as BookRoomInput);
  return order(input);
}

/** The order's workflow, also registered under its earlier name `bookRoomAndGuard` (index.ts). */
export function order(input: OrderInput): Promise<OrderResult> {
  if (input !== null && typeof input === 'object' && 'guarding' in input)
    return guardOn(input.guarding.guard, input.guarding.decided);
  const run = new BookingRun(input);
  // Already decided for a bookRoom run (no second marker); a start of the earlier name writes it
  // here. Runs recorded before it replay their booking call unmarked.
  run.bookingCallMarked = patched(Patch.BOOKING_CALL_MARKED);
  registerBookingHandlers(run);
  // Rule 8: a cancellation from Temporal means what the `cancel` update means, taken by whichever
  // part holds the order. The script runs non-cancellable (one scope for the booking and its
  // guard), so the cleanup cannot be cancelled.
  CancellationScope.current().cancelRequested.catch(() => {
    if (run.guarding) cancelledFromTemporal(run.guarding.guard);
    else run.requestCancel('cancelled from Temporal');
  });
  return CancellationScope.nonCancellable(() =>
    book(run, input).then((decided) =>
      run.guarding ? guarded(run.guarding.guard, run.guarding.input, decided) : decided,
    ),
  );
}

/** The booking, from the input's checks to its decision. */
async function book(run: BookingRun, input: BookRoomInput | OrderIdAlone): Promise<BookRoomResult> {
  if (isOrderIdAlone(input)) return reach(run, input);
  const p = checkedInput(input);
  if ('outcome' in p) return finish(run, p);
  run.searchAttributes.write([
    { key: OrderIdKey, value: p.orderId },
    ...(p.checkIn ? [{ key: CheckInDateKey, value: new Date(`${p.checkIn}T00:00:00Z`) }] : []),
    // Written only by orders that name their account: a namespace set up before accounts existed
    // lacks the attribute, and the orders of a single-account deployment need none.
    ...(p.supplier !== undefined ? [{ key: SupplierAccountKey, value: p.supplier }] : []),
  ]);
  // Rule 1, whoever starts the workflow: the order's earlier runs decide whether to book.
  const settled = wrongWorkflowId(p) ?? (await settleEarlierRuns(run, p));
  if (settled.kind === 'decided') return finish(run, settled.decision);
  if (settled.kind === 'book') {
    if (run.accountRefused)
      return finish(run, Decisions.accountRefused(accountOf(p.supplier), run.accountRefused));
    if (run.cancelRequested) return finish(run, Decisions.cancelledBeforeBooking(run.cancelReason));
    const booked = await priceAndBook(run, p);
    if (booked.kind === 'decided') return finish(run, booked.decision);
  }
  const id = run.bookingId!;
  // Rule 3: pending is not final (a booking call answered CONFIRMED waits for nothing).
  if (waitsForConfirmation(run)) {
    const waited = await awaitConfirmation(run, p, id);
    if (waited.kind === 'deadline') return finish(run, await afterDeadline(run, p, id));
  }
  if (run.cancelRequested && needsCancelling(run.supplierStatus))
    return settle(run, p, await cancelSupplierBooking(run, p, id, run.cancelWhy()));
  return settle(run, p, supplierDecision(run));
}

/** The order id alone reaches the order, never books: its decision, else `NO_ORDER`. */
async function reach(run: BookingRun, input: OrderIdAlone): Promise<BookRoomResult> {
  const checked = checkOrderIdAlone(input);
  if (!checked.success) return finish(run, Decisions.invalidInput(issueText(checked.issues)));
  run.searchAttributes.write([{ key: OrderIdKey, value: input.orderId }]);
  const settled = wrongWorkflowId(input) ?? (await settleEarlierRuns(run, input));
  if (settled.kind === 'decided') return finish(run, settled.decision);
  // Unreachable: settling the order id alone decides (earlier-runs.ts).
  return finish(run, Decisions.noOrder(input.orderId, 'no run of this order has decided it'));
}

/**
 * Rule 7: the client validated already; this guards every other caller, with the published
 * contract's rules (a run recorded before them replays with its own: input-verdicts.ts).
 */
function checkedInput(input: BookRoomInput): BookRoomParams | Decision {
  const verdict = bookRoomInputVerdict(input);
  const checked =
    verdict.earlier && !patched(Patch.CONTRACT_RULES_AS_PUBLISHED) ? verdict.earlier : verdict.now;
  if (!checked.success) return Decisions.invalidInput(issueText(checked.issues));
  return checked.data;
}

/** The confirmation deadline passed (rule 3): NOT_CONFIRMED, cancelled first when asked to. */
async function afterDeadline(run: BookingRun, p: BookRoomParams, id: number): Promise<Decision> {
  const why = `not confirmed within ${String(p.confirmationDeadline)}`;
  run.noteError({ code: 'CONFIRMATION_DEADLINE', message: why });
  if (!p.cancelOnConfirmationTimeout) return Decisions.notConfirmed(why);
  const why2 = `${why}; cancelled so it cannot confirm later`;
  return {
    ...(await cancelSupplierBooking(run, p, id, why2)),
    outcome: BookingOutcome.NOT_CONFIRMED,
  };
}

/** The booking's decision; a CONFIRMED one is guarded from this activation on, synchronously. */
function settle(
  run: BookingRun,
  p: BookRoomParams,
  decision: Decision,
): BookRoomResult | Promise<BookRoomResult> {
  if (decision.outcome !== BookingOutcome.CONFIRMED) return finish(run, decision);
  const result = decide(run, decision);
  guardTheOrder(run, p, decision);
  return run.guarding ? result : close(run).then(() => result);
}

/** A run continued as new by its guard: the guard goes on, `outcome` answers from the input. */
function guardOn(input: GuardInput, decided: BookRoomResult): Promise<OrderResult> {
  setHandler(outcomeUpdate, () => decided, { validator: noArgument });
  const params = checkedGuardInput(input);
  const guard = new GuardRun(params, guardHome(new SearchAttributeWriter(), guardOutbox(params)));
  registerGuardHandlers(guard);
  CancellationScope.current().cancelRequested.catch(() => cancelledFromTemporal(guard));
  return CancellationScope.nonCancellable(() => guarded(guard, input, decided));
}

function guarded(
  guard: GuardRun,
  input: GuardInput,
  decided: BookRoomResult,
): Promise<OrderResult> {
  return guardToTheEnd(guard, input, (next) =>
    continueAsNew<typeof bookRoom>({ guarding: { guard: next, decided } }),
  ).then((ended) => ({ ...decided, guard: ended }));
}

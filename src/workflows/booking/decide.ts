/** The booking's decision, then, in the same activation, the order's guard or the run's close. */
import { allHandlersFinished, condition } from '@temporalio/workflow';
import type { BookRoomParams, BookRoomResult } from '../../shared/booking-contract';
import type { GuardInput } from '../../shared/guard-contract';
import { CancellationOutcome } from '../../shared/booking-values';
import { BookingDecidedAtKey, BookingOutcomeKey } from '../../shared/search-attributes';
import { checkedGuardInput } from '../guard/guard';
import { guardInput } from '../guard/guard-input';
import { registerGuardHandlers } from '../guard/guard-messages';
import { GuardRun, type GuardHome } from '../guard/guard-run';
import { readBooking } from '../guard/guard-steps';
import type { OrderEventOutbox } from '../../order-events/workflows/outbox';
import type { SearchAttributes } from '../search-attribute-writer';
import { refusal, type BookingRun } from './booking-run';
import type { Decision } from './decisions';
import { defined } from '../../shared/defined';

/** Records the decision (synchronously: nothing else runs between it and what follows it). */
export function decide(run: BookingRun, decision: Decision): BookRoomResult {
  run.outcome = decision.outcome;
  run.reason = decision.reason;
  if (decision.error) run.noteError(decision.error);
  if (decision.bookingId !== undefined && decision.bookingId !== run.bookingId)
    run.setBooking(decision.bookingId, decision.supplierStatus ?? run.supplierStatus ?? 'UNKNOWN');
  if (!run.answersEarlier) {
    run.searchAttributes.write([
      { key: BookingOutcomeKey, value: decision.outcome },
      { key: BookingDecidedAtKey, value: new Date() },
    ]);
  }
  run.enter(decision.outcome);
  run.cancelAnswer ??= refusal('ENDED', `The booking has already ended: ${decision.outcome}`);
  run.decided = {
    orderId: run.orderId,
    ...decision,
    ...defined({
      bookingId: decision.bookingId ?? run.bookingId,
      supplierStatus: decision.supplierStatus ?? run.supplierStatus,
      price: decision.price ?? run.price,
    }),
  };
  return run.decided;
}

/** The run ends here: its last writes, its order events, its running update handlers. */
export async function close(run: BookingRun): Promise<void> {
  run.searchAttributes.flush();
  await run.events?.flushed();
  await condition(allHandlersFinished);
}

/** A decision after which the order is not guarded: decided, then closed. */
export async function finish(run: BookingRun, decision: Decision): Promise<BookRoomResult> {
  const result = decide(run, decision);
  await close(run);
  return result;
}

/** The hand-over (docs/life-of-a-booking.md): from here on the order's handlers are the guard's. */
export function guardTheOrder(run: BookingRun, p: BookRoomParams, decision: Decision): void {
  const input = guardInputOf(run, p, decision);
  if (!input) return;
  const guard = new GuardRun(checkedGuardInput(input), guardHome(run.searchAttributes, run.events));
  registerGuardHandlers(guard);
  run.guarding = { guard, input };
}

/** The guard's input for the run's booking; undefined when it has none or is not to be guarded. */
export function guardInputOf(
  run: BookingRun,
  p: BookRoomParams,
  decision: Decision,
  withTerms = true,
): GuardInput | undefined {
  if (run.bookingId === undefined) return undefined;
  return guardInput(p, {
    bookingId: run.bookingId,
    price: run.price,
    cancellationPending: decision.cancellation?.outcome === CancellationOutcome.STILL_ACTIVE,
    events: run.events,
    // The guard starts from the last read's terms when that read said CONFIRMED.
    terms:
      withTerms && run.terms && run.supplierStatus === 'CONFIRMED'
        ? { status: run.supplierStatus, ...run.terms }
        : undefined,
  });
}

/** The guard's home in its order's workflow: the writer and outbox it is given. */
export function guardHome(
  searchAttributes: SearchAttributes,
  events: OrderEventOutbox | undefined,
): GuardHome {
  return {
    searchAttributes,
    events,
    // One local activity at a time: an announcement in flight first. The task that decided
    // CONFIRMED also answers the caller: a local read would hold that answer back by a supplier
    // call, so the read is a scheduled activity.
    readTerms(guard) {
      const read = () => readBooking(guard, 'Terms of the confirmed booking');
      return guard.events ? guard.events.flushed().then(read) : read();
    },
  };
}

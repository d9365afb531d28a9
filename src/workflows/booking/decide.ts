/**
 * The booking's decision, in one place: its search attributes and phase, the `outcome` update's
 * answer, then, in the same activation, either the order's guard (a CONFIRMED booking is guarded
 * until check-out, its handlers answering from here on) or the run's close.
 */
import { allHandlersFinished, condition } from '@temporalio/workflow';
import type { BookRoomParams, BookRoomResult } from '../../shared/booking-contract';
import { CancellationOutcome } from '../../shared/booking-values';
import { BookingDecidedAtKey, BookingOutcomeKey } from '../../shared/search-attributes';
import { checkedGuardInput } from '../guard/guard';
import { guardInput } from '../guard/guard-input';
import { registerGuardHandlers } from '../guard/guard-messages';
import type { GuardHome } from '../guard/guard-home';
import { GuardRun } from '../guard/guard-run';
import { readBooking } from '../guard/guard-steps';
import type { OrderEventOutbox } from '../../order-events/workflows/outbox';
import type { SearchAttributes } from '../search-attribute-writer';
import type { BookingRun } from './booking-run';
import type { Decision } from './decisions';

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
  run.cancelAnswer ??= {
    refused: { code: 'ENDED', message: `The booking has already ended: ${decision.outcome}` },
  };
  run.decided = {
    orderId: run.orderId,
    ...decision,
    ...(run.bookingId !== undefined && decision.bookingId === undefined
      ? { bookingId: run.bookingId }
      : {}),
    ...(run.supplierStatus !== undefined && decision.supplierStatus === undefined
      ? { supplierStatus: run.supplierStatus }
      : {}),
    ...(run.price !== undefined && decision.price === undefined ? { price: run.price } : {}),
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

/**
 * The order's guard takes a CONFIRMED booking, in the activation that decided it (unless the
 * order system asked for none): from here on `bookingState`, `cancel` and `keep` are the guard's.
 */
export function guardTheOrder(run: BookingRun, p: BookRoomParams, decision: Decision): void {
  if (run.bookingId === undefined) return;
  const input = guardInput(p, {
    bookingId: run.bookingId,
    price: run.price,
    cancellationPending: decision.cancellation?.outcome === CancellationOutcome.STILL_ACTIVE,
    events: run.events,
    // The guard starts from the last read's terms when that read said CONFIRMED.
    terms:
      run.terms && run.supplierStatus === 'CONFIRMED'
        ? { status: run.supplierStatus, ...run.terms }
        : undefined,
  });
  if (!input) return;
  const guard = new GuardRun(checkedGuardInput(input), guardHome(run.searchAttributes, run.events));
  registerGuardHandlers(guard);
  run.guarding = { guard, input };
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

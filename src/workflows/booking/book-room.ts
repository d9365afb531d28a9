/**
 * `bookRoomAndGuard`, id `booking-<orderId>`: `bookRoom`'s booking (the same script, book-room.ts)
 * and, once it is CONFIRMED, the order's guard (the same watch, guard-booking.ts) in this one
 * workflow, instead of a second workflow started for the guard. The caller hears the decision
 * from the `outcome` update, sent with the start; the workflow's own result comes at check-out or
 * once the order is cancelled. Its messages are `bookRoom`'s until the decision, the guard's from
 * the activation that decided CONFIRMED (same names: one call reaches the order).
 */
import { CancellationScope, condition, continueAsNew, setHandler } from '@temporalio/workflow';
import type {
  BookRoomAndGuardInput,
  BookRoomAndGuardResult,
  BookRoomResult,
} from '../../shared/booking-contract';
import type { GuardBookingInput } from '../../shared/guard-contract';
import { outcomeUpdate } from '../../shared/booking-messages';
import { registerBookRoomHandlers } from './booking-messages';
import { script } from '../earlier-versions/book-room';
import { BookingRun } from './booking-run';
import { registerGuardHandlers } from '../guard/guard-messages';
import { cancelledFromTemporal, checkedGuardInput, guardToTheEnd } from '../guard/guard';
import { GuardRun } from '../guard/guard-run';

export async function bookRoomAndGuard(
  input: BookRoomAndGuardInput,
): Promise<BookRoomAndGuardResult> {
  if (input !== null && typeof input === 'object' && 'guarding' in input)
    return guardOn(input.guarding.guard, input.guarding.decided);
  let guard: GuardRun | undefined;
  const run: BookingRun = new BookingRun(input, (guardInput) => {
    guard = new GuardRun(checkedGuardInput(guardInput), { sa: run.sa, events: run.events });
    run.guarding = guardInput;
    registerGuardHandlers(guard);
  });
  registerBookRoomHandlers(run);
  setHandler(outcomeUpdate, async () => {
    await condition(() => run.decided !== undefined);
    return run.decided!;
  });
  // Rule 8, as in bookRoom: a cancellation from Temporal is the `cancel` update's request, taken
  // by whichever part holds the order when it arrives.
  CancellationScope.current().cancelRequested.catch(() => {
    if (guard) cancelledFromTemporal(guard);
    else run.requestCancel('cancelled from Temporal');
  });
  const decided = await CancellationScope.nonCancellable(() => script(run, input));
  if (!guard || !run.guarding) return decided;
  return guarded(guard, run.guarding, decided);
}

/** A run continued as new by its guard: the guard goes on, `outcome` answers from the input. */
function guardOn(input: GuardBookingInput, decided: BookRoomResult) {
  setHandler(outcomeUpdate, () => decided);
  const guard = new GuardRun(checkedGuardInput(input), {});
  registerGuardHandlers(guard);
  CancellationScope.current().cancelRequested.catch(() => cancelledFromTemporal(guard));
  return guarded(guard, input, decided);
}

async function guarded(
  guard: GuardRun,
  input: GuardBookingInput,
  decided: BookRoomResult,
): Promise<BookRoomAndGuardResult> {
  const ended = await guardToTheEnd(guard, input, (next) =>
    continueAsNew<typeof bookRoomAndGuard>({ guarding: { guard: next, decided } }),
  );
  return { ...decided, guard: ended };
}

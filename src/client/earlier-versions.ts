/**
 * Orders of earlier versions, as the client meets them: a `bookRoom` that closed once CONFIRMED
 * and handed the order to a guard of its own, `guard-<orderId>` (`guardBooking`), which holds it
 * until check-out. Deleted by the rule in docs/earlier-versions.md, with the workflow code.
 */
import type { Client } from '@temporalio/client';
import type { OrderResult } from '../shared/booking-contract';
import { bookingStateQuery, cancelUpdate } from '../shared/booking-messages';
import { guardWorkflowId, type GuardResult, type OrderState } from '../shared/guard-contract';
import { describeIfExists } from './booking-client-options';

/** An earlier version's guard of the order, when one exists. */
export async function guardOfEarlierVersion(client: Client, orderId: string) {
  const handle = client.workflow.getHandle(guardWorkflowId(orderId));
  const run = await describeIfExists(handle);
  if (run === undefined) return undefined;
  const running = run.status.name === 'RUNNING';
  return {
    async state(): Promise<OrderState> {
      if (running) return inTodaysWords(await handle.query(bookingStateQuery));
      return inTodaysWords(((await handle.result()) as GuardResult).state);
    },
    /** Its `cancel` update, while it runs; undefined once it has closed. */
    async cancel(request: object): Promise<OrderState | undefined> {
      if (!running) return undefined;
      return inTodaysWords(await handle.executeUpdate(cancelUpdate, { args: [request] }));
    },
  };
}

/**
 * An order's state in today's words: earlier versions named its holder `bookRoom` and
 * `guardBooking` (today `booking` and `guard`), in answers and in the results of closed orders.
 */
export function inTodaysWords<T extends OrderState | undefined>(state: T): T {
  const was = state?.holder as string | undefined;
  if (was === 'bookRoom') return { ...state, holder: 'booking' };
  if (was === 'guardBooking') return { ...state, holder: 'guard' };
  return state;
}

/** Whether a closed order's result says an earlier version handed it to a guard of its own. */
export function handedToGuardOfItsOwn(result: OrderResult): boolean {
  return result.outcome === 'CONFIRMED' && result.guard === undefined;
}

/**
 * What a guard's home uses: the outbox of a guard that starts from its input. The home's shape
 * (`GuardHome`) is the run's constructor parameter, so it is declared beside the run
 * (guard-run.ts) and named here too, for the homes (../booking/decide.ts,
 * ../earlier-versions/guard-booking.ts).
 */
import type { GuardParams } from '../../shared/guard-contract';
import { OrderEventOutbox } from '../../order-events/workflows/outbox';
import type { Carried } from './guard-state';

export type { GuardHome } from './guard-run';

/** The outbox of a guard that starts from its input (continued as new, or in a workflow of its own). */
export function guardOutbox(params: GuardParams): OrderEventOutbox | undefined {
  if (!params.orderEvents) return undefined;
  const carried = params.carried as Pick<Carried, 'lastEventSequence'> | undefined;
  return new OrderEventOutbox(
    params.orderId,
    carried?.lastEventSequence ?? params.orderEvents.lastSequence,
    { supplier: params.supplier },
  );
}

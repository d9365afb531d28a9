import type { GuardParams } from '../../shared/guard-contract';
import { OrderEventOutbox } from '../../order-events/workflows/outbox';
import type { Carried } from './guard-state';

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

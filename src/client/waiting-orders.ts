/**
 * Answers to an order that waits for a person: a price or policy change to approve or reject
 * (`AWAITING_APPROVAL`), a booking call whose result is unknown to reconcile (`NEEDS_RECONCILIATION`).
 */
import type { ResolveReconciliation } from '../shared/booking-contract';
import { approvePriceChangeUpdate, resolveReconciliationUpdate } from '../shared/booking-messages';
import type { OrderState } from '../shared/guard-contract';
import { validResolution } from './booking-input';
import { inTodaysWords } from './earlier-versions';
import { orderHandle, type BookingClientSettings } from './booking-client-options';

/** `BookingClient`'s `approvePriceChange` and `resolveReconciliation`. */
export class WaitingOrders {
  constructor(private readonly settings: BookingClientSettings) {}

  async approvePriceChange(orderId: string, approve: boolean): Promise<OrderState> {
    const handle = orderHandle(this.settings.client, orderId);
    return inTodaysWords(
      await handle.executeUpdate(approvePriceChangeUpdate, { args: [{ approve }] }),
    );
  }

  async resolveReconciliation(
    orderId: string,
    resolution: ResolveReconciliation,
  ): Promise<OrderState> {
    const valid = validResolution(resolution);
    const handle = orderHandle(this.settings.client, orderId);
    return inTodaysWords(
      await handle.executeUpdate(resolveReconciliationUpdate, { args: [valid] }),
    );
  }
}

/** Answers to an order waiting for a person: a price change approved, a reconciliation resolved. */
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

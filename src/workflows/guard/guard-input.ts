import type { BookRoomParams, SupplierPrice } from '../../shared/booking-contract';
import type { GuardInput } from '../../shared/guard-contract';
import { defined } from '../../shared/defined';

/** What the booking holds of a confirmed booking when its guard takes the order. */
export interface HandedOver {
  readonly bookingId: number;
  readonly price: SupplierPrice | undefined;
  /** The booking's cancellation did not complete (`STILL_ACTIVE`): the guard takes it over. */
  readonly cancellationPending: boolean;
  /** Order events are on: the guard announces its changes, after the booking's last sequence. */
  readonly events: { readonly lastSequence: number } | undefined;
  /** The status and terms of the booking's last read (a poll), when it read them. */
  readonly terms: GuardInput['terms'];
}

/** The guard's input for a confirmed order; undefined when the order is not to be guarded. */
export function guardInput(
  p: Pick<
    BookRoomParams,
    'orderId' | 'checkIn' | 'guard' | 'cancellationDeadline' | 'polling' | 'supplier'
  >,
  held: HandedOver,
): GuardInput | undefined {
  if (p.guard?.enabled === false) return undefined;
  return {
    orderId: p.orderId,
    bookingId: held.bookingId,
    cancellationDeadline: p.cancellationDeadline,
    ...defined({ checkIn: p.checkIn, guard: p.guard, polling: p.polling, supplier: p.supplier }),
    ...(held.price !== undefined ? { price: { ...held.price } } : {}),
    ...(held.cancellationPending ? { cancellationPending: true } : {}),
    ...(held.events ? { orderEvents: { lastSequence: held.events.lastSequence } } : {}),
    ...(held.terms ? { terms: held.terms } : {}),
  };
}

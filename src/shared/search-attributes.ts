/**
 * The custom search attributes this project writes, one place for their names and types. They are
 * never encrypted, so none of them may hold personal data: only phases, statuses, ids and dates.
 */
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

export const BookingPhaseKey = defineSearchAttributeKey(
  'BookingPhase',
  SearchAttributeType.KEYWORD,
);
export const SupplierBookingIdKey = defineSearchAttributeKey(
  'SupplierBookingId',
  SearchAttributeType.INT,
);
export const SupplierStatusKey = defineSearchAttributeKey(
  'SupplierStatus',
  SearchAttributeType.KEYWORD,
);
export const BookingOutcomeKey = defineSearchAttributeKey(
  'BookingOutcome',
  SearchAttributeType.KEYWORD,
);
export const OrderIdKey = defineSearchAttributeKey('OrderId', SearchAttributeType.KEYWORD);
export const CheckInDateKey = defineSearchAttributeKey('CheckInDate', SearchAttributeType.DATETIME);
/**
 * When the booking was decided (its outcome), by `bookRoomAndGuard`, which does not close then
 * when CONFIRMED: the daily views' "today" for it (a `bookRoom` run closes at its decision).
 */
export const BookingDecidedAtKey = defineSearchAttributeKey(
  'BookingDecidedAt',
  SearchAttributeType.DATETIME,
);

// --- after CONFIRMED (guardBooking) --------------------------------------------------------------
/** When free cancellation ends (absent when unknown). The "free cancellation ends within 48 h" view. */
export const FreeCancellationUntilKey = defineSearchAttributeKey(
  'FreeCancellationUntil',
  SearchAttributeType.DATETIME,
);
/** `CONFIRMED` after a reconfirmation that read CONFIRMED; `FLAGGED` when one did not. */
export const ReconfirmationKey = defineSearchAttributeKey(
  'Reconfirmation',
  SearchAttributeType.KEYWORD,
);

// --- order events (deliverOrderEvents) ------------------------------------------------------------
/** `DELIVERED`, `FAILING` or `UNDELIVERED` (order-events.ts `DeliveryMark`): the failing view. */
export const OrderEventsDeliveryKey = defineSearchAttributeKey(
  'OrderEventsDelivery',
  SearchAttributeType.KEYWORD,
);

/** Every custom search attribute, for registration on the server. */
export const ALL_SEARCH_ATTRIBUTE_KEYS = [
  BookingPhaseKey,
  SupplierBookingIdKey,
  SupplierStatusKey,
  BookingOutcomeKey,
  OrderIdKey,
  CheckInDateKey,
  BookingDecidedAtKey,
  FreeCancellationUntilKey,
  ReconfirmationKey,
  OrderEventsDeliveryKey,
] as const;

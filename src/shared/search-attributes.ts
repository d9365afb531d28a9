/**
 * The custom search attributes this project writes, one place for their names and types. They are
 * never encrypted, so none of them may hold personal data: only phases, statuses, ids and dates.
 */
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

const keyword = <N extends string>(name: N) =>
  defineSearchAttributeKey(name, SearchAttributeType.KEYWORD);
const datetime = <N extends string>(name: N) =>
  defineSearchAttributeKey(name, SearchAttributeType.DATETIME);

export const BookingPhaseKey = keyword('BookingPhase');
export const SupplierBookingIdKey = defineSearchAttributeKey(
  'SupplierBookingId',
  SearchAttributeType.INT,
);
export const SupplierStatusKey = keyword('SupplierStatus');
export const BookingOutcomeKey = keyword('BookingOutcome');
export const OrderIdKey = keyword('OrderId');
/** The supplier account of an order that names one (src/shared/supplier-accounts.ts). */
export const SupplierAccountKey = keyword('SupplierAccount');
export const CheckInDateKey = datetime('CheckInDate');
/**
 * When the booking was decided (its outcome), by the order's workflow, which does not close then
 * when CONFIRMED: the daily views' "today" for it (a `bookRoom` run closes at its decision).
 */
export const BookingDecidedAtKey = datetime('BookingDecidedAt');

// --- after CONFIRMED (the guard) -----------------------------------------------------------------
/** When free cancellation ends (absent when unknown). The "free cancellation ends within 48 h" view. */
export const FreeCancellationUntilKey = datetime('FreeCancellationUntil');
/** `CONFIRMED` after a reconfirmation that read CONFIRMED; `FLAGGED` when one did not. */
export const ReconfirmationKey = keyword('Reconfirmation');

// --- order events (the delivery workflows) --------------------------------------------------------
/**
 * `DELIVERED`, `FAILING` or `UNDELIVERED` (order-events.ts `DeliveryMark`) of a delivery workflow,
 * the endpoint's or an order's own: the failing view.
 */
export const OrderEventsDeliveryKey = keyword('OrderEventsDelivery');

/** Every custom search attribute, for registration on the server. */
export const ALL_SEARCH_ATTRIBUTE_KEYS = [
  BookingPhaseKey,
  SupplierBookingIdKey,
  SupplierStatusKey,
  BookingOutcomeKey,
  OrderIdKey,
  SupplierAccountKey,
  CheckInDateKey,
  BookingDecidedAtKey,
  FreeCancellationUntilKey,
  ReconfirmationKey,
  OrderEventsDeliveryKey,
] as const;

/**
 * Every run whatever its `TemporalNamespaceDivision`, Temporal's own search attribute, which any
 * starter may set. A visibility query that does not name it gets the server's default filter (the
 * division unset) and leaves such runs out of lists and counts. On SQLite visibility (the dev
 * server's) that default also makes the planner read the namespace's every row through the
 * division's index rather than the index of the query's own attribute.
 */
export const EVERY_DIVISION =
  '(TemporalNamespaceDivision IS NULL OR TemporalNamespaceDivision IS NOT NULL)';

/** Temporal's own attribute of that name, as a starter (any SDK, the CLI) may set it. */
export const TemporalNamespaceDivisionKey = keyword('TemporalNamespaceDivision');

/** A query's trailing `ORDER BY` (attribute names, commas, `ASC`/`DESC`), which stays last. */
const ORDER_BY = /\s*\bORDER\s+BY\s+[\w\s,]+$/i;

/**
 * `query` over every division ({@link EVERY_DIVISION}): its filter in parentheses, the clause
 * after it, its `ORDER BY` (where the server takes one) last. An empty filter lists every run.
 */
export function inEveryDivision(query: string): string {
  const orderBy = ORDER_BY.exec(query)?.[0] ?? '';
  const filter = query.slice(0, query.length - orderBy.length).trim();
  const where = filter === '' ? EVERY_DIVISION : `(${filter}) AND ${EVERY_DIVISION}`;
  return orderBy === '' ? where : `${where} ${orderBy.trim()}`;
}

/**
 * Every default of the product, once: the environment's (read by src/config/env-schema.ts) and
 * the booking contract's (read by the zod contracts in src/shared/, their zod-free fast path and
 * the workflows). Pure constants, no imports: workflow code may import this file.
 */

/** The task queue that workers poll and clients start on (env `TEMPORAL_TASK_QUEUE` overrides). */
export const DEFAULT_TASK_QUEUE = 'hotel-booking';

/** The custom field that carries the order id to the supplier (env `BOOKING_ORDER_ID_FIELD`). */
export const DEFAULT_ORDER_ID_FIELD = 'custom_field_10';

/** How a booking polls the supplier while it waits for confirmation (`polling` in the input). */
export const DEFAULT_POLLING = {
  initialInterval: '5s',
  maximumInterval: '5m',
  backoffCoefficient: 1.5,
} as const;

/**
 * With order events on, the least time the order system has to send `keep` after it was told of a
 * provisional order's automatic cancellation (`guard.autoCancelNotice`).
 */
export const DEFAULT_AUTO_CANCEL_NOTICE = '15m';

/** How long a price change waits for `approvePriceChange` (`priceChangePolicy.approvalTimeout`). */
export const DEFAULT_APPROVAL_TIMEOUT = '15m';

/** The Temporal namespace workers and clients use (env `TEMPORAL_NAMESPACE`). */
export const DEFAULT_NAMESPACE = 'default';

/** A worker's concurrent supplier calls (env `SUPPLIER_MAX_CONCURRENT_CALLS`). */
export const DEFAULT_MAX_CONCURRENT_CALLS = 100;

/** Workflows a worker keeps cached. */
export const DEFAULT_MAX_CACHED_WORKFLOWS = 100;

/** When the guard reconfirms a booking, before check-in (`guard.reconfirmBefore`). */
export const DEFAULT_RECONFIRM_BEFORE: readonly string[] = ['72h', '24h'];

/** How long before free cancellation ends `autoCancelBeforePenalty` cancels (`guard.autoCancelMargin`). */
export const DEFAULT_AUTO_CANCEL_MARGIN = '6h';

/** How long a booking waits for the supplier to confirm (`confirmationDeadline`). */
export const DEFAULT_CONFIRMATION_DEADLINE = '48h';

/** How long a cancellation waits for the supplier to confirm it (`cancellationDeadline`). */
export const DEFAULT_CANCELLATION_DEADLINE = '2h';

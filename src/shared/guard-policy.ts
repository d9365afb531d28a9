/**
 * The guard's policy (`guard` in the `bookRoom` input) and the durations and instants the
 * contract's fields take. Pure (zod only).
 */
import { z } from 'zod';
import {
  DEFAULT_AUTO_CANCEL_MARGIN,
  DEFAULT_AUTO_CANCEL_NOTICE,
  DEFAULT_RECONFIRM_BEFORE,
} from '../config/defaults';
import { absent, optionalField } from './absent';
import { durationPattern } from './contract-patterns';
import { durationToMs } from './duration';

/**
 * A positive duration (`'30s'`, `'15m'`, `'48h'`, or ms), named `what` in the message. Decided by
 * `durationToMs`; the JSON Schema says the same with a pattern (contract-patterns.ts): a string
 * that rounds to 0 ms is refused.
 */
export const positiveDuration = (what: string) =>
  z
    .union([
      z.string().meta({ pattern: durationPattern() }),
      z.number().meta({ exclusiveMinimum: 0 }),
    ])
    .refine((v) => {
      const ms = durationToMs(v);
      return ms !== undefined && ms > 0;
    }, `${what} must be a positive duration such as '30s', '15m', '48h' or a number of ms`);

const instant = (what: string) =>
  z.iso.datetime({
    offset: true,
    message: `${what}: an ISO 8601 instant, e.g. 2027-03-10T14:00:00Z`,
  });

/**
 * What the order system tells the guard (`bookRoom` input field `guard`). Every field is optional;
 * the supplier's retrieve (`check_in`, `check_out`, `cancel_policy`, `penalty_date`) fills in the
 * rest.
 */
export const GuardPolicySchema = z.strictObject({
  /** For callers that guard bookings themselves. */
  enabled: absent(
    z
      .boolean()
      .default(true)
      .describe(
        'false: the order is not guarded after CONFIRMED (the workflow ends at the decision; its result is the last word)',
      ),
  ),
  /**
   * The guard uses the EARLIEST of this and the supplier's `penalty_date`: a deadline read late
   * never makes a cancellation cost money.
   */
  freeCancellationUntil: optionalField(
    instant('freeCancellationUntil'),
    "when free cancellation ends (ISO 8601 instant with offset): the room's cancel_penalties from availability; the guard uses the earliest of this and the supplier's penalty_date",
  ),
  checkInAt: optionalField(
    instant('checkInAt'),
    'when the guest may check in (ISO 8601 instant with offset, the hotel local time); unset: the check-in date at 00:00 UTC',
  ),
  checkOutAt: optionalField(
    instant('checkOutAt'),
    'when the stay ends (ISO 8601 instant with offset); unset: the day after the check-out date, 00:00 UTC',
  ),
  reconfirmBefore: absent(
    z
      .array(positiveDuration('reconfirmBefore').describe('a duration before check-in'))
      .max(6, 'at most 6 reconfirmation points')
      .default([...DEFAULT_RECONFIRM_BEFORE])
      .describe(
        'reconfirm the booking with the supplier this long before check-in: at most 6 durations',
      ),
  ),
  autoCancelBeforePenalty: absent(
    z
      .boolean()
      .default(false)
      .describe(
        'a provisional order: cancel it automatically autoCancelMargin before free cancellation ends, unless the order system sends the keep update first',
      ),
  ),
  autoCancelMargin: absent(
    positiveDuration('autoCancelMargin')
      .default(DEFAULT_AUTO_CANCEL_MARGIN)
      .describe(
        'how long before the free-cancellation deadline the automatic cancellation runs (a duration)',
      ),
  ),
  autoCancelNotice: absent(
    positiveDuration('autoCancelNotice')
      .default(DEFAULT_AUTO_CANCEL_NOTICE)
      .describe(
        'with order events on: the automatic cancellation runs no sooner than this after order.free_cancellation_ending announced it, so the order system can send keep (a duration)',
      ),
  ),
});
export type GuardPolicyInput = z.input<typeof GuardPolicySchema>;
export type GuardPolicy = z.output<typeof GuardPolicySchema>;

/**
 * zod schemas of what `orderEventBody` (event.ts) POSTs, one per event type, for the JSON Schemas
 * of contract/ (`npm run contract`). Workflows never import this file.
 */
import { z } from 'zod';
import { SupplierPriceSchema } from '../../shared/result-schemas';
import { BookingOutcome, BookingPhase } from '../../shared/booking-values';
import type { OrderTruth } from '../../shared/guard-contract';
import { GuardPhase } from '../../shared/guard-values';
import { truthOf } from '../../shared/order-truth';
import { OrderEventType, eventTypeOfPhase, type OrderEventBody, type OrderEventData } from './event';

type Phase = BookingPhase | GuardPhase;
const PHASES: readonly Phase[] = [
  ...new Set<Phase>([
    ...Object.values(BookingPhase),
    ...Object.values(BookingOutcome),
    ...Object.values(GuardPhase),
  ]),
];

/**
 * The phases an event of `type` is announced in: those whose entry announces it, and for
 * `order.free_cancellation_ending` (announced by the guard while it waits) any of the guard's.
 */
export function phasesOfEvent(type: OrderEventType): readonly Phase[] {
  if (type === OrderEventType.FREE_CANCELLATION_ENDING) return Object.values(GuardPhase);
  return PHASES.filter((p) => eventTypeOfPhase(p) === type);
}

/** The truths an event of `type` may carry: the truth of each of its phases, open or closed. */
export function truthsOfEvent(type: OrderEventType): readonly OrderTruth[] {
  return [...new Set(phasesOfEvent(type).flatMap((p) => [truthOf(p, true), truthOf(p, false)]))];
}

/** What each type is sent for (docs/order-events.md). */
const WHEN: Readonly<Record<OrderEventType, string>> = {
  'order.confirmed': 'the booking is confirmed (again, after a flag a later read cleared)',
  'order.not_confirmed':
    'the supplier did not confirm the booking (or not by the confirmation deadline)',
  'order.cancelled':
    'the order is cancelled: on request, by the automatic cancellation, or before a booking was made',
  'order.not_available': 'the room could not be booked',
  'order.price_rejected': 'a price or policy change was refused or not approved in time',
  'order.failed':
    'the booking failed (e.g. credentials refused, or an operator said no booking was made)',
  'order.approval_required': 'a price or policy change waits for approvePriceChange',
  'order.needs_reconciliation':
    "the booking call's fate is unknown: an operator looks at the supplier (resolveReconciliation)",
  'order.status_unreadable':
    'the supplier booking cannot be read for long while its confirmation is awaited',
  'order.cancellation_pending': 'a cancellation waits for the supplier to confirm it',
  'order.cancelled_by_supplier': 'a reconfirmation found the booking cancelled by the supplier',
  'order.needs_attention':
    'a reconfirmation read something other than CONFIRMED (not found, pending, unreadable)',
  'order.free_cancellation_ending':
    'free cancellation ends within 48 h while the booking stands (reason says when, and when the automatic cancellation runs if one is armed)',
  'order.stay_completed': 'the stay is over and the booking stood to the end',
};

export function orderEventBodySchema(type: OrderEventType) {
  const data = z.object({
    orderId: z.string().describe("the order's id"),
    supplier: z
      .string()
      .optional()
      .describe('the supplier account of an order whose input named one'),
    truth: z
      .enum(truthsOfEvent(type) as [OrderTruth, ...OrderTruth[]])
      .describe("the order's one truth after the change (docs/contract.md)"),
    phase: z
      .enum(phasesOfEvent(type) as [Phase, ...Phase[]])
      .describe('the phase the order workflow entered'),
    sequence: z
      .number()
      .int()
      .min(1)
      .describe(
        'increases with every event of the order, across its runs: a receiver that saw a higher one may drop a lower one; not contiguous (compare, do not count)',
      ),
    bookingId: z.number().int().optional().describe('the supplier booking id, once there is one'),
    supplierStatus: z.string().optional().describe("the supplier booking's last status read"),
    price: SupplierPriceSchema.optional().describe('the price, once known'),
    freeCancellationUntil: z
      .string()
      .optional()
      .describe('when free cancellation ends (ISO 8601 instant), once the guard knows it'),
    reason: z
      .string()
      .optional()
      .describe("the outcome's or the flag's reason, for people, when there is one"),
  });
  return z.object({
    type: z.literal(type).describe(`the event's type: ${type}, sent when ${WHEN[type]}`),
    timestamp: z.string().describe('when the truth changed (ISO 8601 instant, UTC)'),
    data: data.describe(
      "what changed: ids, phases, statuses, the price and dates, never a guest's personal data",
    ),
  });
}

/** What each type is sent for, in words (the published schema's title). */
export const orderEventWhen = (type: OrderEventType): string => WHEN[type];

// The compiler holds the schema to the body's type, both ways.
type Same<A, B> =
  (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Plain<T> = { -readonly [K in keyof T]: Plain<T[K]> };
const same = <T extends true>(): T | undefined => undefined;
type Body = z.output<ReturnType<typeof orderEventBodySchema>>;
same<
  Same<Plain<Omit<OrderEventData, 'phase' | 'truth'>>, Plain<Omit<Body['data'], 'phase' | 'truth'>>>
>();
same<Same<Plain<Omit<OrderEventBody, 'data' | 'type'>>, Plain<Omit<Body, 'data' | 'type'>>>>();

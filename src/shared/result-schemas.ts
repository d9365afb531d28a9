/**
 * zod schemas of what the workflows answer: `bookRoom`'s decision (the `outcome` update) and
 * result (with its guard's end), the `bookingState` query (which every update also returns), and
 * `cancelBooking`'s result. They describe the TypeScript types of the contract (the compiler
 * checks that each schema and its type say the same), so that the JSON Schemas published under
 * contract/ (tools: `npm run contract`) cover answers as well as inputs. Workflows never import
 * them: they answer with the plain types.
 */
import { z } from 'zod';
import {
  BookingOutcome,
  BookingPhase,
  CancellationOutcome,
  type BookRoomResult,
  type BookingState,
  type CancelBookingResult,
} from './booking-contract';
import { GuardPhase, type GuardBookingResult, type OrderState } from './guard-contract';

const outcome = z.enum(Object.values(BookingOutcome));
const cancellationOutcome = z.enum(Object.values(CancellationOutcome));
const bookingPhase = z.enum([...Object.values(BookingPhase), ...Object.values(BookingOutcome)]);
const guardPhase = z.enum(Object.values(GuardPhase));

export const SupplierPriceSchema = z.object({
  net: z.string(),
  currency: z.string().optional(),
  taxes: z.string().optional(),
  sales_taxes: z.string().optional(),
  without_tax: z.string().optional(),
});

export const BookingErrorSchema = z.object({
  code: z.string().describe("the hotel API client's code (e.g. AUTH_INVALID) or the workflow's"),
  message: z.string(),
});

export const BookRoomResultSchema = z.object({
  orderId: z.string(),
  outcome,
  bookingId: z.number().int().optional(),
  supplierStatus: z.string().optional(),
  price: SupplierPriceSchema.optional(),
  reason: z.string().optional().describe('why the booking ended the way it did, for people'),
  error: BookingErrorSchema.optional(),
  cancellation: z
    .object({ outcome: cancellationOutcome, reason: z.string().optional() })
    .optional()
    .describe('set when a cancellation ran'),
});

const PriceDecisionSchema = z.object({
  status: z.enum(['PRICE CHANGE', 'POLICY CHANGE', 'AVAILABLE']),
  expected: z.object({ net: z.string(), currency: z.string() }).optional(),
  offered: SupplierPriceSchema.optional(),
  increasePercent: z.number().optional(),
  deadline: z.string(),
});

const bookingStateFields = {
  orderId: z.string(),
  supplierStatus: z.string().optional(),
  bookingId: z.number().int().optional(),
  price: SupplierPriceSchema.optional(),
  lastError: BookingErrorSchema.extend({ at: z.string() }).optional(),
  pendingDecision: PriceDecisionSchema.optional().describe(
    'what waits for approvePriceChange, while AWAITING_APPROVAL',
  ),
  cancelRequested: z.boolean(),
  outcome: outcome.optional(),
};

/** `bookRoom`'s `bookingState` query, and the answer of its updates. */
export const BookingStateSchema = z.object({ ...bookingStateFields, phase: bookingPhase });

const orderTruth = z.enum([
  'PENDING',
  'CONFIRMED',
  'CANCELLATION_PENDING',
  'CANCELLED',
  'CANCELLED_BY_SUPPLIER',
  'NEEDS_ATTENTION',
  'STAY_COMPLETED',
  'NOT_CONFIRMED',
  'NOT_AVAILABLE',
  'PRICE_REJECTED',
  'FAILED',
]);

/** The order's `bookingState` query in every phase, and every update's answer. */
export const OrderStateSchema = z.object({
  ...bookingStateFields,
  phase: z.union([bookingPhase, guardPhase]),
  truth: orderTruth,
  holder: z.enum(['bookRoom', 'guardBooking']),
  workflowId: z.string(),
  open: z.boolean(),
  checkIn: z.string().optional(),
  checkInAt: z.string().optional(),
  checkOutAt: z.string().optional(),
  terms: z
    .object({
      freeCancellationUntil: z.string().optional(),
      source: z.enum(['supplier', 'order', 'supplier+order']).optional(),
      refundable: z.boolean().optional(),
    })
    .optional(),
  nextReconfirmationAt: z.string().optional(),
  reconfirmations: z.array(z.object({ at: z.string(), status: z.string() })).optional(),
  flag: z
    .object({
      reason: z.enum([
        'SUPPLIER_CANCELLED',
        'NOT_FOUND',
        'NOT_CONFIRMED',
        'UNREADABLE',
        'CANCELLATION_UNCONFIRMED',
      ]),
      message: z.string(),
      at: z.string(),
    })
    .optional(),
  autoCancel: z
    .object({ at: z.string().optional(), kept: z.boolean(), done: z.boolean() })
    .optional(),
  cancellation: z
    .object({
      requestedAt: z.string(),
      by: z.enum(['update', 'temporal', 'auto']),
      reason: z.string().optional(),
      acceptPenalty: z.boolean(),
      outcome: cancellationOutcome.optional(),
    })
    .optional(),
  refusal: z.object({ at: z.string(), message: z.string() }).optional(),
});

export const GuardBookingResultSchema = z.object({
  orderId: z.string(),
  bookingId: z.number().int(),
  phase: guardPhase,
  truth: orderTruth,
  reason: z.string(),
  state: OrderStateSchema,
  error: BookingErrorSchema.optional(),
});

export const OrderResultSchema = BookRoomResultSchema.extend({
  guard: GuardBookingResultSchema.optional().describe(
    'how the guard of a CONFIRMED booking ended (check-out or cancellation)',
  ),
});

export const CancelBookingResultSchema = z.object({
  bookingId: z.number().int(),
  outcome: cancellationOutcome,
  reason: z.string().optional(),
});

// The compiler holds each schema to its type, both ways: a field added to one and not the other
// fails `npm run typecheck`.
type Same<A, B> =
  (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Plain<T> = { -readonly [K in keyof T]: Plain<T[K]> };
const same = <T extends true>(): T | undefined => undefined;
same<Same<Plain<BookRoomResult>, Plain<z.output<typeof BookRoomResultSchema>>>>();
same<Same<Plain<BookingState>, Plain<z.output<typeof BookingStateSchema>>>>();
same<Same<Plain<OrderState>, Plain<z.output<typeof OrderStateSchema>>>>();
same<Same<Plain<GuardBookingResult>, Plain<z.output<typeof GuardBookingResultSchema>>>>();
same<Same<Plain<CancelBookingResult>, Plain<z.output<typeof CancelBookingResultSchema>>>>();

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
  type BookRoomInput,
  type BookRoomResult,
  type BookingState,
  type CancelBookingResult,
  type OrderIdAlone,
  type OrderInput,
} from './booking-contract';
import { GuardInputSchema, GuardPhase, type GuardResult, type OrderState } from './guard-contract';

const outcome = z.enum(Object.values(BookingOutcome));
const cancellationOutcome = z.enum(Object.values(CancellationOutcome));
const bookingPhase = z.enum([...Object.values(BookingPhase), ...Object.values(BookingOutcome)]);
const guardPhase = z.enum(Object.values(GuardPhase));
const instant = (what: string) => z.string().describe(`${what} (ISO 8601 instant)`);

export const SupplierPriceSchema = z.object({
  net: z.string().describe('the net amount as a decimal string, e.g. "120.50"'),
  currency: z.string().optional().describe('the ISO 4217 currency code, e.g. "EUR"'),
  taxes: z.string().optional().describe("the supplier's taxes, as a decimal string"),
  sales_taxes: z.string().optional().describe("the supplier's sales taxes, as a decimal string"),
  without_tax: z.string().optional().describe('the amount without tax, as a decimal string'),
});

export const BookingErrorSchema = z.object({
  code: z
    .string()
    .describe(
      "the hotel API client's code (e.g. AUTH_INVALID) or the workflow's own (e.g. INVALID_INPUT); docs/hard-rules.md lists them",
    ),
  message: z.string().describe('what went wrong, for people'),
});

const supplierPrice = (what: string) => SupplierPriceSchema.optional().describe(what);

export const BookRoomResultSchema = z.object({
  orderId: z.string().describe("the order's id"),
  outcome: outcome.describe(
    "the booking's decision: CONFIRMED, NOT_CONFIRMED (not confirmed by the deadline, or refused by the supplier), CANCELLED, NOT_AVAILABLE, PRICE_REJECTED, FAILED",
  ),
  bookingId: z.number().int().optional().describe('the supplier booking id, once there is one'),
  supplierStatus: z.string().optional().describe("the supplier booking's last status read"),
  price: supplierPrice("the price booked at (the price check's, or the booking's)"),
  reason: z.string().optional().describe('why the booking ended the way it did, for people'),
  error: BookingErrorSchema.optional().describe('the error the outcome comes from, if any'),
  cancellation: z
    .object({
      outcome: cancellationOutcome.describe(
        "the cancellation's outcome: CANCELLED, NOT_FOUND (the supplier does not know the booking), STILL_ACTIVE (not confirmed by the deadline: an operator is needed)",
      ),
      reason: z.string().optional().describe('why, when it did not end CANCELLED'),
    })
    .optional()
    .describe('set when a cancellation of the supplier booking ran'),
});

const PriceDecisionSchema = z.object({
  status: z
    .enum(['PRICE CHANGE', 'POLICY CHANGE', 'AVAILABLE'])
    .describe("the price check's status"),
  expected: z
    .object({
      net: z.string().describe('the net amount as a decimal string'),
      currency: z.string().describe('the ISO 4217 currency code'),
    })
    .optional()
    .describe("the input's expectedPrice"),
  offered: supplierPrice('the price the supplier offers now'),
  increasePercent: z
    .number()
    .optional()
    .describe('the increase over expectedPrice, in percent, when both are known'),
  deadline: instant('when the booking ends PRICE_REJECTED without an approval'),
});

const bookingStateFields = {
  orderId: z.string().describe("the order's id"),
  supplierStatus: z.string().optional().describe("the supplier booking's last status read"),
  bookingId: z.number().int().optional().describe('the supplier booking id, once there is one'),
  price: supplierPrice('the price, once the price check or the booking gave one'),
  lastError: BookingErrorSchema.extend({ at: instant('when it happened') })
    .optional()
    .describe('the last error met (it may have been retried since)'),
  pendingDecision: PriceDecisionSchema.optional().describe(
    'what waits for approvePriceChange, while AWAITING_APPROVAL',
  ),
  cancelRequested: z.boolean().describe('a cancellation of the order was asked for'),
  outcome: outcome.optional().describe("the booking's decision, once there is one"),
};

/** `bookRoom`'s `bookingState` query, and the answer of its updates. */
export const BookingStateSchema = z.object({
  ...bookingStateFields,
  phase: bookingPhase.describe("the booking's phase, or its outcome once decided"),
});

const orderTruth = z
  .enum([
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
  ])
  .describe(
    "the order's one truth for the order system, whichever part of the workflow holds it: PENDING while the booking decides; then its outcome (NOT_CONFIRMED, NOT_AVAILABLE, PRICE_REJECTED, FAILED, CANCELLED) or, once CONFIRMED, the guard's: CONFIRMED, CANCELLATION_PENDING (a cancellation the supplier has not confirmed yet), CANCELLED, CANCELLED_BY_SUPPLIER, NEEDS_ATTENTION (a reconfirmation read something other than CONFIRMED), STAY_COMPLETED (checked out)",
  );

/** The order's `bookingState` query in every phase, and every update's answer. */
export const OrderStateSchema = z.object({
  ...bookingStateFields,
  phase: z
    .union([bookingPhase, guardPhase])
    .describe(
      "the phase of the part that holds the order: the booking's (PRICE_CHECK, AWAITING_APPROVAL, BOOKING, AWAITING_CONFIRMATION, NEEDS_RECONCILIATION, STATUS_UNREADABLE, CANCELLING, or the outcome) or, once guarded, the guard's (CONFIRMED, CANCELLING, CANCELLATION_PENDING, CANCELLED, CANCELLED_BY_SUPPLIER, NEEDS_ATTENTION, CHECKED_OUT)",
    ),
  truth: orderTruth,
  holder: z
    .enum(['booking', 'guard'])
    .describe(
      'the part of the order workflow that holds the order: booking until the decision, guard once the guard holds it',
    ),
  workflowId: z.string().describe("the order's workflow id, booking-<orderId>"),
  open: z.boolean().describe('whether that workflow is still running'),
  supplier: z
    .string()
    .optional()
    .describe('the supplier account every call of the order goes to, when its input named one'),
  checkIn: z.string().optional().describe('the check-in date (YYYY-MM-DD)'),
  checkInAt: instant('when the guest may check in').optional(),
  checkOutAt: instant('when the stay ends').optional(),
  terms: z
    .object({
      freeCancellationUntil: instant(
        'when free cancellation ends; absent when unknown (then every cancellation needs acceptPenalty)',
      ).optional(),
      source: z
        .enum(['supplier', 'order', 'supplier+order'])
        .optional()
        .describe(
          'where the deadline came from: the supplier, the order (guard.freeCancellationUntil), or both (the earliest)',
        ),
      refundable: z
        .boolean()
        .optional()
        .describe("the supplier's cancel_policy: false for a non-refundable rate"),
    })
    .optional()
    .describe('what the guard knows of the cancellation terms'),
  nextReconfirmationAt: instant('the next reconfirmation, while any is left').optional(),
  reconfirmations: z
    .array(
      z
        .object({
          at: instant('when it was read'),
          status: z.string().describe('the supplier status it read'),
        })
        .describe('one reconfirmation'),
    )
    .optional()
    .describe('the reconfirmations so far'),
  flag: z
    .object({
      reason: z
        .enum([
          'SUPPLIER_CANCELLED',
          'NOT_FOUND',
          'NOT_CONFIRMED',
          'UNREADABLE',
          'CANCELLATION_UNCONFIRMED',
        ])
        .describe('why the booking was flagged'),
      message: z.string().describe('the flag, for people'),
      at: instant('when it was flagged'),
    })
    .optional()
    .describe('set when the guard flagged the booking for an operator'),
  autoCancel: z
    .object({
      at: instant('when the automatic cancellation runs').optional(),
      kept: z.boolean().describe('the order system sent keep: it will not run'),
      done: z.boolean().describe('it ran'),
    })
    .optional()
    .describe('with guard.autoCancelBeforePenalty: the automatic cancellation'),
  cancellation: z
    .object({
      requestedAt: instant('when it was asked for'),
      by: z
        .enum(['update', 'temporal', 'auto'])
        .describe(
          'who asked: the cancel update, a cancellation from Temporal, or the automatic cancellation',
        ),
      reason: z.string().optional().describe('why, as given'),
      acceptPenalty: z.boolean().describe('the penalty was accepted'),
      outcome: cancellationOutcome.optional().describe("the cancellation's outcome, once known"),
    })
    .optional()
    .describe("the guard's cancellation of the order"),
  refusal: z
    .object({
      at: instant('when it was refused'),
      message: z.string().describe('why (e.g. the penalty, check-in passed)'),
    })
    .optional()
    .describe('the last cancellation request that was refused'),
});

export const GuardResultSchema = z.object({
  orderId: z.string().describe("the order's id"),
  bookingId: z.number().int().describe('the supplier booking id'),
  phase: guardPhase.describe(
    "the guard's final phase: CANCELLED, CANCELLED_BY_SUPPLIER or CHECKED_OUT",
  ),
  truth: orderTruth,
  reason: z.string().describe('how the guard ended, for people'),
  state: OrderStateSchema.describe("the order's state when the guard ended"),
  error: BookingErrorSchema.optional().describe('the last error the guard met, if any'),
});

export const OrderResultSchema = BookRoomResultSchema.extend({
  guard: GuardResultSchema.optional().describe(
    'how the guard of a CONFIRMED booking ended (check-out or cancellation)',
  ),
});

export const CancelBookingResultSchema = z.object({
  bookingId: z.number().int().describe('the supplier booking id'),
  outcome: cancellationOutcome.describe(
    'CANCELLED, NOT_FOUND (the supplier does not know the booking), STILL_ACTIVE (not confirmed by the deadline, or refused: an operator is needed)',
  ),
  reason: z.string().optional().describe('why, when it did not end CANCELLED'),
});

/**
 * What the order workflow carries when its guard continues as new: `bookRoom`'s own input in the
 * guard phase (OrderInput's second form), never sent by callers.
 */
export const GuardingInputSchema = z.object({
  guarding: z
    .object({
      guard: GuardInputSchema.describe("the guard's input: the confirmed booking and its policy"),
      decided: BookRoomResultSchema.describe('the decision, which the outcome update answers'),
    })
    .describe('the guard phase of the order, continued as new'),
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
same<Same<Plain<GuardResult>, Plain<z.output<typeof GuardResultSchema>>>>();
same<Same<Plain<CancelBookingResult>, Plain<z.output<typeof CancelBookingResultSchema>>>>();
same<
  Same<
    Plain<Exclude<OrderInput, BookRoomInput | OrderIdAlone>>,
    Plain<z.input<typeof GuardingInputSchema>>
  >
>();

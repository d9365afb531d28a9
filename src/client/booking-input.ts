/** The client's checks of what a caller sends, with the schemas the workflows share. */
import {
  BookRoomInputSchema,
  CancelBookingInputSchema,
  ResolveReconciliationSchema,
  bookRoomInputRuleIssues,
  toFieldIssues,
  type BookRoomParams,
  type ResolveReconciliation,
} from '../shared/booking-contract';
import { DEFAULT_ORDER_ID_FIELD } from '../config/defaults';
import { BookingInputError } from './booking-errors';

/**
 * Validates a `bookRoom` input (`null` counts as absent) and returns it as the workflow reads it,
 * with the order-id field it was validated against, so the worker books with that same field.
 * Throws {@link BookingInputError} naming every bad field.
 */
export function validateBookRoomInput(
  input: unknown,
  orderIdField = DEFAULT_ORDER_ID_FIELD,
): BookRoomParams {
  const parsed = BookRoomInputSchema.safeParse(input);
  if (parsed.success) {
    const issues = bookRoomInputRuleIssues(parsed.data, orderIdField);
    if (issues.length > 0) throw new BookingInputError(issues);
    return { ...parsed.data, orderIdField: parsed.data.orderIdField ?? orderIdField };
  }
  const issues = toFieldIssues(parsed.error);
  const raw = input as { customFields?: unknown; orderIdField?: unknown } | null | undefined;
  const field = typeof raw?.orderIdField === 'string' ? raw.orderIdField : orderIdField;
  const fields = raw?.customFields;
  if (fields && typeof fields === 'object' && field in fields) {
    issues.push({
      field: `customFields.${field}`,
      message: 'reserved: the order id travels to the supplier in this field',
    });
  }
  throw new BookingInputError(issues);
}

/** A `resolveReconciliation` argument as the update takes it, or {@link BookingInputError}. */
export function validResolution(resolution: unknown): ResolveReconciliation {
  const parsed = ResolveReconciliationSchema.safeParse(resolution);
  if (!parsed.success) throw new BookingInputError(toFieldIssues(parsed.error), 'resolution');
  return parsed.data;
}

/** Throws {@link BookingInputError} unless `input` is a `cancelBooking` input. */
export function checkCancelBookingInput(input: unknown): void {
  const parsed = CancelBookingInputSchema.safeParse(input);
  if (!parsed.success)
    throw new BookingInputError(toFieldIssues(parsed.error), 'cancellation input');
}

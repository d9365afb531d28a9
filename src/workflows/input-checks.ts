/**
 * The workflows' checks of inputs and update arguments: the zod-free fast path
 * (src/shared/input-fast-path.ts), else the zod schemas, required lazily: zod writes to its
 * schemas, which the bundle's shared modules would freeze, and a valid input never builds them.
 */
import { ApplicationFailure } from '@temporalio/workflow';
import type * as BookingContract from '../shared/booking-contract';
import type { FieldIssue } from '../shared/booking-values';
import type * as GuardContract from '../shared/guard-contract';
import {
  fastApprovePriceChange,
  fastBookRoomInput,
  fastCancelBookingInput,
  fastCancelRequest,
  fastGuardInput,
  fastGuardCancelRequest,
  fastResolveReconciliation,
} from '../shared/input-fast-path';
import { ORDER_ID_RE } from '../shared/booking-values';
import { UndecodablePayload } from '../shared/undecodable-payload';

export type Checked<T> =
  | { readonly success: true; readonly data: T }
  | { readonly success: false; readonly issues: FieldIssue[] };

interface Schema<T> {
  safeParse(v: unknown): { success: true; data: T } | { success: false; error: unknown };
}

function booking(): typeof BookingContract {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- lazy on purpose, see above
  return require('../shared/booking-contract') as typeof BookingContract;
}
function guard(): typeof GuardContract {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- lazy on purpose, see above
  return require('../shared/guard-contract') as typeof GuardContract;
}

function check<T>(fast: T | undefined, schema: () => Schema<T>, v: unknown): Checked<T> {
  if (fast !== undefined) return { success: true, data: fast };
  if (v instanceof UndecodablePayload)
    return { success: false, issues: [{ field: '(input)', message: v.why }] };
  const parsed = schema().safeParse(v);
  if (parsed.success) return { success: true, data: parsed.data };
  const error = parsed.error as Parameters<typeof BookingContract.toFieldIssues>[0];
  return { success: false, issues: booking().toFieldIssues(error) };
}

/** `field: message; …` */
export function issueText(issues: readonly FieldIssue[]): string {
  return issues.map((i) => `${i.field}: ${i.message}`).join('; ');
}

/** The checked input, or a failure of the workflow naming every bad field (`INVALID_INPUT`). */
export function orFail<T>(checked: Checked<T>): T {
  if (checked.success) return checked.data;
  throw ApplicationFailure.nonRetryable(issueText(checked.issues), 'INVALID_INPUT');
}

/** Whether a start's input is the order id alone (no other field, not even a null one). */
export function isOrderIdAlone(v: unknown): v is BookingContract.OrderIdAlone {
  return v !== null && typeof v === 'object' && Object.keys(v).length === 1 && 'orderId' in v;
}
export const checkOrderIdAlone = (v: unknown) =>
  check(
    isOrderIdAlone(v) && typeof v.orderId === 'string' && ORDER_ID_RE.test(v.orderId)
      ? v
      : undefined,
    () => booking().OrderIdAloneSchema,
    v,
  );
export const checkBookRoomInput = (v: unknown) =>
  check(fastBookRoomInput(v), () => booking().BookRoomInputSchema, v);
export const checkApprovePriceChange = (v: unknown) =>
  check(fastApprovePriceChange(v), () => booking().ApprovePriceChangeSchema, v);
export const checkCancelRequest = (v: unknown) =>
  check(fastCancelRequest(v), () => booking().CancelRequestSchema, v);
export const checkResolveReconciliation = (v: unknown) =>
  check(fastResolveReconciliation(v), () => booking().ResolveReconciliationSchema, v);
export const checkCancelBookingInput = (v: unknown) =>
  check(fastCancelBookingInput(v), () => booking().CancelBookingInputSchema, v);
export const checkGuardInput = (v: unknown) =>
  check(fastGuardInput(v), () => guard().GuardInputSchema, v);
export const checkGuardCancelRequest = (v: unknown) =>
  check(fastGuardCancelRequest(v), () => guard().GuardCancelRequestSchema, v);
export const checkKeepRequest = (v: unknown) =>
  check(fastCancelRequest(v), () => guard().KeepRequestSchema, v);

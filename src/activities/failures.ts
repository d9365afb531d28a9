/**
 * Where supplier-call failures become Temporal failures, once: `type` is the hotel API client's
 * code, retryability and ambiguity its classification (src/hotel-api/errors).
 */
import { ApplicationFailure } from '@temporalio/common';
import { HotelApiError } from '../hotel-api/errors';
import { defined } from '../shared/defined';

/** What travels in `ApplicationFailure.details[0]`: facts for the workflow, no secrets, no PII. */
export interface FailureFacts {
  readonly code: string;
  readonly retryable: boolean;
  readonly ambiguous: boolean;
  readonly statusCode?: number;
  readonly requestId?: string;
  readonly retryAfterMs?: number;
  readonly fieldErrors?: readonly { field: string; message: string }[];
}

/** Converts any error thrown by the hotel API client into the `ApplicationFailure` to throw. */
export function toApplicationFailure(err: unknown): ApplicationFailure {
  if (err instanceof ApplicationFailure) return err;
  if (err instanceof HotelApiError) {
    const { code, retryable, ambiguous, statusCode, requestId, retryAfterMs, fieldErrors } = err;
    const known = defined({ statusCode, requestId, retryAfterMs, fieldErrors });
    const facts: FailureFacts = { code, retryable, ambiguous, ...known };
    return ApplicationFailure.create({
      type: err.code,
      message: err.message,
      // ABORTED here means the activity itself was cancelled, e.g. by a worker shutting down
      // after its grace time: another attempt on another worker must be allowed. (A booking call
      // is never retried anyway: its policy has one attempt, and ABORTED is ambiguous.)
      nonRetryable: !err.retryable && err.code !== 'ABORTED',
      details: [facts],
      ...(err.retryAfterMs !== undefined ? { nextRetryDelay: err.retryAfterMs } : {}),
    });
  }
  // Anything else is a bug of ours: retryable (Temporal's default), and never ambiguous-safe.
  return ApplicationFailure.create({
    type: 'INTERNAL',
    message: err instanceof Error ? err.message : String(err),
    details: [{ code: 'INTERNAL', retryable: true, ambiguous: true } satisfies FailureFacts],
  });
}

/** A failure no retry can fix, and the facts the workflow reads (`code` defaults to `type`). */
export function finalFailure(
  type: string,
  message: string,
  facts?: Omit<FailureFacts, 'code'> & { readonly code?: string },
): ApplicationFailure {
  return ApplicationFailure.create({
    type,
    message,
    nonRetryable: true,
    ...(facts ? { details: [{ code: type, ...facts }] } : {}),
  });
}

/** The same failure, retryable (it proves nothing final), next tried after `nextRetryDelay`. */
export function retryLater(
  failure: ApplicationFailure,
  nextRetryDelay?: number,
): ApplicationFailure {
  return ApplicationFailure.create({
    type: failure.type ?? 'UNKNOWN',
    message: failure.message,
    nextRetryDelay,
    details: failure.details ? [...failure.details] : [],
  });
}

/** Runs a supplier call and converts its failure at the boundary. */
export async function supplierCall<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw toApplicationFailure(err);
  }
}

/** {@link supplierCall} for a read whose 404 is an answer (`notFound()`'s), not a failure. */
export async function supplierRead<T, N>(fn: () => Promise<T>, notFound: () => N): Promise<T | N> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof HotelApiError && err.code === 'NOT_FOUND') return notFound();
    throw toApplicationFailure(err);
  }
}

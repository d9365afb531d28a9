/**
 * Where supplier-call failures become Temporal failures, once: `type` is the hotel API client's
 * code, retryability and ambiguity its classification (src/hotel-api/errors).
 */
import { ApplicationFailure } from '@temporalio/common';
import { HotelApiError } from '../hotel-api/errors';

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
    const facts: FailureFacts = {
      code: err.code,
      retryable: err.retryable,
      ambiguous: err.ambiguous,
      ...(err.statusCode !== undefined ? { statusCode: err.statusCode } : {}),
      ...(err.requestId !== undefined ? { requestId: err.requestId } : {}),
      ...(err.retryAfterMs !== undefined ? { retryAfterMs: err.retryAfterMs } : {}),
      ...(err.fieldErrors !== undefined ? { fieldErrors: err.fieldErrors } : {}),
    };
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
  const message = err instanceof Error ? err.message : String(err);
  return ApplicationFailure.create({
    type: 'INTERNAL',
    message,
    details: [{ code: 'INTERNAL', retryable: true, ambiguous: true } satisfies FailureFacts],
  });
}

/** A failure no retry of the activity can fix, with the facts the workflow reads, if any. */
export function finalFailure(
  type: string,
  message: string,
  facts?: FailureFacts,
): ApplicationFailure {
  return ApplicationFailure.create({
    type,
    message,
    nonRetryable: true,
    ...(facts ? { details: [facts] } : {}),
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

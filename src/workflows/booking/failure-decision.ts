/** What a failure means for the booking's next step, pure: the booking rules over failure-facts.ts. */
import type { FailureFacts } from '../../activities/failures';
import type { Polling } from '../../shared/booking-contract';
import { DEFAULT_POLLING } from '../../config/defaults';
import { durationToMs } from '../../shared/duration';
import type { PriceCheckAnswer } from './price-decision';

export type AfterBookingFailure =
  /** The supplier may have booked (rule 1): never send again; an operator reconciles. */
  | { readonly next: 'reconcile' }
  /** Proof that nothing was booked, and a cancellation was asked for: the booking is cancelled. */
  | { readonly next: 'cancelled' }
  /** The supplier refused the request (422): sold out, an expired token or a new price? Ask. */
  | { readonly next: 'recheck-price' }
  /** Proof the request never arrived (connection refused, 429, clock corrected): send again. */
  | { readonly next: 'resend'; readonly delayMs: number }
  /** Refused for good (credentials, our own validation, out of tries): rule 5, fail fast. */
  | { readonly next: 'fail' };

export interface BookingFailureContext {
  /** 1 for the first send. */
  readonly attempt: number;
  readonly maxAttempts: number;
  /** The pause before the second send; it doubles each time. */
  readonly baseDelayMs: number;
  readonly cancelRequested: boolean;
}

export function afterBookingFailure(
  f: Pick<FailureFacts, 'code' | 'retryable' | 'ambiguous' | 'retryAfterMs'>,
  ctx: BookingFailureContext,
): AfterBookingFailure {
  if (f.ambiguous) return { next: 'reconcile' };
  if (ctx.cancelRequested) return { next: 'cancelled' };
  if (f.code === 'VALIDATION') return { next: 'recheck-price' };
  if (f.retryable && ctx.attempt < ctx.maxAttempts) {
    return { next: 'resend', delayMs: f.retryAfterMs ?? ctx.baseDelayMs * 2 ** (ctx.attempt - 1) };
  }
  return { next: 'fail' };
}

/** After a 422 on `POST /booking`, what the fresh price check says to do. */
export type AfterRecheck =
  | { readonly next: 'not-available' }
  /** Same offer, new token (the old one had expired): book again, once. */
  | { readonly next: 'book-again'; readonly token: string }
  /** The price or the policy changed: back to the price decision with this answer. */
  | { readonly next: 'decide'; readonly answer: PriceCheckAnswer }
  | { readonly next: 'fail' };

export function afterRecheck(
  answer: PriceCheckAnswer,
  ctx: { readonly tokenRefreshed: boolean },
): AfterRecheck {
  if (answer.status === 'NOT AVAILABLE') return { next: 'not-available' };
  if (answer.status === 'AVAILABLE') {
    return answer.token && !ctx.tokenRefreshed
      ? { next: 'book-again', token: answer.token }
      : { next: 'fail' };
  }
  return { next: 'decide', answer };
}

/** Why a poll (confirmation or cancellation) stopped without an answer. */
export type AfterPollFailure =
  /** The deadline passed, in either shape: the contracted outcome follows (rule 8). */
  | { readonly next: 'deadline' }
  /** Our own scope was cancelled (a cancellation was asked for). */
  | { readonly next: 'cancelled' }
  /** Nothing proves a final state: shown to an operator, polled until the deadline, never closed. */
  | { readonly next: 'unreadable' };

export function afterPollFailure(facts: {
  readonly deadline: boolean;
  readonly cancelled: boolean;
}): AfterPollFailure {
  if (facts.deadline) return { next: 'deadline' };
  if (facts.cancelled) return { next: 'cancelled' };
  return { next: 'unreadable' };
}

/** Failed polls in a row, at the longest interval, before a booking shows as unreadable. */
export const UNREADABLE_AFTER_POLLS = 3;

/** How long reads may fail in a row before `STATUS_UNREADABLE`: shorter blips stay invisible. */
export function unreadableAfterMs(polling: Polling): number {
  return (
    UNREADABLE_AFTER_POLLS *
    (durationToMs(polling.maximumInterval) ?? durationToMs(DEFAULT_POLLING.maximumInterval)!)
  );
}

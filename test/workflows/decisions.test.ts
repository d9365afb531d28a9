/**
 * The booking's decisions as pure functions, without a server: the price decision, what a
 * failure means for the next step, the final outcome from a supplier status, and which failure
 * is a poll's deadline (both shapes the server produces).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  ActivityFailure,
  ApplicationFailure,
  RetryState,
  TimeoutFailure,
} from '@temporalio/common';
import { PollingSchema } from '../../src/shared/booking-contract';
import { supplierStatusKind } from '../../src/shared/supplier-status';
import {
  afterBookingFailure,
  afterPollFailure,
  afterRecheck,
  unreadableAfterMs,
} from '../../src/workflows/booking/failure-decision';
import { failureFacts, isDeadline } from '../../src/workflows/failure-facts';
import {
  approve,
  decidePrice,
  type PriceCheckAnswer,
} from '../../src/workflows/booking/price-decision';
import {
  needsCancelling,
  outcomeAfterCancellation,
  readStatus,
} from '../../src/workflows/booking/supplier-outcome';

const EUR = (net: string) => ({ net, currency: 'EUR' });
const answer = (
  status: PriceCheckAnswer['status'],
  net?: string,
  token: string | null = 'tok',
): PriceCheckAnswer => ({ status, price: net ? EUR(net) : null, token });

describe('decidePrice (rule 2)', () => {
  it('books an available option with its token and price', () => {
    assert.deepEqual(decidePrice(answer('AVAILABLE', '100.00'), {}), {
      kind: 'book',
      token: 'tok',
      price: EUR('100.00'),
    });
  });

  it('ends not-available, and refuses an answer without a token', () => {
    assert.equal(decidePrice(answer('NOT AVAILABLE', undefined, null), {}).kind, 'not-available');
    assert.equal(decidePrice(answer('AVAILABLE', '1.00', null), {}).kind, 'invalid');
  });

  it('books a price increase within maxIncreasePercent and a decrease; asks beyond it', () => {
    const expected = EUR('100.00');
    assert.equal(
      decidePrice(answer('PRICE CHANGE', '110.00'), { expected, maxIncreasePercent: 10 }).kind,
      'book',
    );
    assert.equal(decidePrice(answer('PRICE CHANGE', '90.00'), { expected }).kind, 'book');
    const v = decidePrice(answer('PRICE CHANGE', '110.01'), { expected, maxIncreasePercent: 10 });
    assert.equal(v.kind, 'ask');
    assert.equal(v.kind === 'ask' && v.increasePercent, 10.01);
  });

  it('asks when a change cannot be judged: no reference, another currency', () => {
    assert.equal(decidePrice(answer('PRICE CHANGE', '90.00'), {}).kind, 'ask');
    assert.equal(
      decidePrice(answer('PRICE CHANGE', '90.00'), {
        expected: { net: '100.00', currency: 'USD' },
        maxIncreasePercent: 50,
      }).kind,
      'ask',
    );
  });

  it('judges a later change against what a person approved, not the first expectation', () => {
    const approved = approve(answer('PRICE CHANGE', '130.00'), undefined);
    const ctx = { expected: EUR('100.00'), maxIncreasePercent: 5, approved };
    assert.equal(decidePrice(answer('PRICE CHANGE', '132.00'), ctx).kind, 'book');
    assert.equal(decidePrice(answer('PRICE CHANGE', '140.00'), ctx).kind, 'ask');
  });

  it('books a policy change only when the policy or an approval accepts it', () => {
    assert.equal(decidePrice(answer('POLICY CHANGE'), {}).kind, 'ask');
    assert.equal(decidePrice(answer('POLICY CHANGE'), { acceptPolicyChange: true }).kind, 'book');
    const approved = approve(answer('POLICY CHANGE'), undefined);
    assert.equal(decidePrice(answer('POLICY CHANGE'), { approved }).kind, 'book');
  });
});

describe('afterBookingFailure (rule 1)', () => {
  const ctx = { attempt: 1, maxAttempts: 5, baseDelayMs: 1000, cancelRequested: false };
  const facts = (code: string, retryable: boolean, ambiguous: boolean, retryAfterMs?: number) => ({
    code,
    retryable,
    ambiguous,
    ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
  });

  it('reconciles anything ambiguous, even when a cancellation was asked for', () => {
    for (const code of ['TIMEOUT', 'SUPPLIER_UNAVAILABLE', 'CONNECTION_LOST', 'CONTRACT']) {
      assert.deepEqual(afterBookingFailure(facts(code, true, true), ctx), { next: 'reconcile' });
      assert.deepEqual(
        afterBookingFailure(facts(code, true, true), { ...ctx, cancelRequested: true }),
        { next: 'reconcile' },
      );
    }
  });

  it('a proven refusal during a cancellation is a cancellation (a 422 too)', () => {
    assert.deepEqual(
      afterBookingFailure(facts('VALIDATION', false, false), { ...ctx, cancelRequested: true }),
      { next: 'cancelled' },
    );
  });

  it('re-checks the price after a 422', () => {
    assert.deepEqual(afterBookingFailure(facts('VALIDATION', false, false), ctx), {
      next: 'recheck-price',
    });
  });

  it('re-sends on proof the request never arrived, with Retry-After or doubling pauses, a bounded number of times', () => {
    const f = facts('CONNECTION_FAILED_BEFORE_SEND', true, false);
    assert.deepEqual(afterBookingFailure(f, { ...ctx, attempt: 3 }), {
      next: 'resend',
      delayMs: 4000,
    });
    assert.deepEqual(afterBookingFailure(facts('RATE_LIMITED', true, false, 7000), ctx), {
      next: 'resend',
      delayMs: 7000,
    });
    assert.deepEqual(afterBookingFailure(f, { ...ctx, attempt: 5 }), { next: 'fail' });
  });

  it('fails fast on credentials (rule 5)', () => {
    assert.deepEqual(afterBookingFailure(facts('AUTH_INVALID', false, false), ctx), {
      next: 'fail',
    });
  });
});

describe('afterRecheck', () => {
  it('books again once with a fresh token, decides again on a change, ends when sold out', () => {
    assert.deepEqual(afterRecheck(answer('AVAILABLE', '1.00', 'new'), { tokenRefreshed: false }), {
      next: 'book-again',
      token: 'new',
    });
    assert.deepEqual(afterRecheck(answer('AVAILABLE', '1.00', 'new'), { tokenRefreshed: true }), {
      next: 'fail',
    });
    const changed = answer('PRICE CHANGE', '120.00');
    assert.deepEqual(afterRecheck(changed, { tokenRefreshed: false }), {
      next: 'decide',
      answer: changed,
    });
    assert.deepEqual(
      afterRecheck(answer('NOT AVAILABLE', undefined, null), { tokenRefreshed: false }),
      {
        next: 'not-available',
      },
    );
  });
});

describe('afterPollFailure and unreadableAfterMs (rule 3)', () => {
  it('a deadline is a deadline, a cancellation ends the poll, anything else keeps the booking open', () => {
    assert.deepEqual(afterPollFailure({ deadline: true, cancelled: false }), { next: 'deadline' });
    assert.deepEqual(afterPollFailure({ deadline: false, cancelled: true }), { next: 'cancelled' });
    assert.deepEqual(afterPollFailure({ deadline: false, cancelled: false }), {
      next: 'unreadable',
    });
  });

  it('shows an unreadable booking after three polls at the longest interval (15 min by default)', () => {
    assert.equal(unreadableAfterMs(PollingSchema.parse({})), 15 * 60_000);
    assert.equal(unreadableAfterMs(PollingSchema.parse({ maximumInterval: '200ms' })), 600);
  });
});

describe('isDeadline: both shapes of a passed scheduleToCloseTimeout', () => {
  const pending = ApplicationFailure.create({ type: 'CANCELLATION_PENDING', message: 'pending' });

  it('the deadline fired during an attempt or a backoff (TimeoutFailure cause)', () => {
    const err = new ActivityFailure(
      'activity timed out',
      'awaitCancellation',
      '1',
      RetryState.NON_RETRYABLE_FAILURE,
      'id',
      new TimeoutFailure('timeout', undefined, 'SCHEDULE_TO_CLOSE'),
    );
    assert.equal(isDeadline(err), true);
  });

  it('the next retry would start after the deadline (retryState TIMEOUT, the last failure as cause)', () => {
    const err = new ActivityFailure(
      'activity failed',
      'awaitCancellation',
      '1',
      RetryState.TIMEOUT,
      'id',
      pending,
    );
    assert.equal(isDeadline(err), true);
    assert.equal(failureFacts(err).code, 'CANCELLATION_PENDING');
  });

  it('a non-retryable failure is not a deadline', () => {
    const err = new ActivityFailure(
      'activity failed',
      'awaitCancellation',
      '1',
      RetryState.NON_RETRYABLE_FAILURE,
      'id',
      pending,
    );
    assert.equal(isDeadline(err), false);
    assert.equal(isDeadline(pending), false);
  });
});

describe('supplier status → outcome', () => {
  it('reads final, pending and unknown statuses', () => {
    assert.deepEqual(readStatus('CONFIRMED'), { kind: 'final', outcome: 'CONFIRMED' });
    assert.equal(readStatus('NOT_CONFIRMED').kind, 'final');
    assert.equal(readStatus('CANCELLED').kind, 'final');
    for (const s of ['PROCESSING', 'WAITING_CONFIRMATION', 'PENDING'])
      assert.deepEqual(readStatus(s), { kind: 'pending' });
    assert.deepEqual(readStatus('ON_HOLD'), { kind: 'unknown', status: 'ON_HOLD' });
    assert.equal(supplierStatusKind('ON_HOLD'), 'unknown');
  });

  it('needs a cancellation unless the booking is already cancelled or not confirmed', () => {
    assert.equal(needsCancelling('CONFIRMED'), true);
    assert.equal(needsCancelling('PENDING'), true);
    assert.equal(needsCancelling('CANCELLED'), false);
    assert.equal(needsCancelling('NOT_CONFIRMED'), false);
  });

  it('after a cancellation: cancelled or gone is CANCELLED; unconfirmed keeps the last status', () => {
    assert.equal(outcomeAfterCancellation('CANCELLED', 'CONFIRMED'), 'CANCELLED');
    assert.equal(outcomeAfterCancellation('NOT_FOUND', 'PENDING'), 'CANCELLED');
    assert.equal(outcomeAfterCancellation('STILL_ACTIVE', 'CONFIRMED'), 'CONFIRMED');
    assert.equal(outcomeAfterCancellation('STILL_ACTIVE', 'PENDING'), 'NOT_CONFIRMED');
  });
});

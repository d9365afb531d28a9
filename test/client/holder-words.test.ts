/**
 * The order state's holder in the glossary's words (`booking`, `guard`): states that earlier
 * versions wrote (`bookRoom`, `guardBooking`: their workers' answers during a rolling deploy, the
 * results of orders they closed) are read as today's by the client.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { inTodaysWords } from '../../src/client/earlier-versions';
import type { OrderState } from '../../src/shared/guard-contract';

const state = (holder: string) =>
  ({ orderId: 'o-1', phase: 'CONFIRMED', holder, open: true }) as unknown as OrderState;

describe("the order state's holder", () => {
  it("reads an earlier version's names as today's", () => {
    assert.equal(inTodaysWords(state('bookRoom')).holder, 'booking');
    assert.equal(inTodaysWords(state('guardBooking')).holder, 'guard');
  });

  it("leaves today's names and every other field as they are", () => {
    const today = state('guard');
    assert.equal(inTodaysWords(today), today);
    assert.deepEqual(inTodaysWords(state('bookRoom')), { ...state('bookRoom'), holder: 'booking' });
    assert.equal(inTodaysWords(undefined), undefined);
  });
});

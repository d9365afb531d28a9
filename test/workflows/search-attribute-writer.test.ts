/** What a merged search attribute write keeps: the changed values, the last write of a key. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SearchAttributeUpdatePair } from '@temporalio/common';
import { changedOnly, sameValue } from '../../src/workflows/search-attribute-writer';
import {
  BookingPhaseKey,
  CheckInDateKey,
  OrderIdKey,
  SupplierBookingIdKey,
} from '../../src/shared/search-attributes';

type Current = Record<string, SearchAttributeUpdatePair['value']>;
const from = (current: Current) => (u: SearchAttributeUpdatePair) => current[u.key.name];

describe('merged search attribute writes', () => {
  it('drops values the run already has (the starter set them), keeps the changed ones', () => {
    const current = { OrderId: 'o-1', BookingPhase: 'PRICE_CHECK' };
    const kept = changedOnly(
      [
        { key: OrderIdKey, value: 'o-1' },
        { key: BookingPhaseKey, value: 'PRICE_CHECK' },
        { key: SupplierBookingIdKey, value: 7 },
      ],
      from(current),
    );
    assert.deepEqual(
      kept.map((u) => u.key.name),
      ['SupplierBookingId'],
    );
  });

  it('keeps the last write of a key, and drops it when the step went back to the value it had', () => {
    const current = { BookingPhase: 'PRICE_CHECK' };
    const last = changedOnly(
      [
        { key: BookingPhaseKey, value: 'BOOKING' },
        { key: BookingPhaseKey, value: 'CONFIRMED' },
      ],
      from(current),
    );
    assert.deepEqual(last, [{ key: BookingPhaseKey, value: 'CONFIRMED' }]);
    const back = changedOnly(
      [
        { key: BookingPhaseKey, value: 'AWAITING_APPROVAL' },
        { key: BookingPhaseKey, value: 'PRICE_CHECK' },
      ],
      from(current),
    );
    assert.deepEqual(back, []);
  });

  it('compares dates by instant and lists by element', () => {
    const day = '2027-03-10T00:00:00Z';
    assert.ok(sameValue(new Date(day), new Date(day)));
    assert.ok(!sameValue(new Date(day), new Date('2027-03-11T00:00:00Z')));
    assert.ok(sameValue(['a', 'b'], ['a', 'b']));
    assert.ok(!sameValue(['a', 'b'], ['b', 'a']));
    assert.ok(!sameValue(undefined, 'x'));
    const kept = changedOnly([{ key: CheckInDateKey, value: new Date(day) }], () => new Date(day));
    assert.deepEqual(kept, []);
  });
});

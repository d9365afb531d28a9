/**
 * The guard's decisions (src/workflows/guard/guard-decisions.ts), pure: deadlines, stay instants,
 * reconfirmation points, whether a cancellation may run, what a read means.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { truthOf } from '../../src/shared/order-truth';
import {
  autoCancelTime,
  cancellationTerms,
  decideCancellation,
  nextWake,
  reconfirmationTimes,
  reconfirmationVerdict,
  stayInstants,
} from '../../src/workflows/guard/guard-decisions';
import { parseInstant } from '../../src/shared/dates';

const H = 3_600_000;
const at = (s: string) => Date.parse(s);

describe('guard decisions', () => {
  it('reads instants with an offset and dates as the start of their day, and nothing else', () => {
    assert.equal(parseInstant('2027-03-08T12:00:00Z'), at('2027-03-08T12:00:00Z'));
    assert.equal(parseInstant('2027-03-08T14:00:00+02:00'), at('2027-03-08T12:00:00Z'));
    assert.equal(parseInstant('2027-03-08'), at('2027-03-08T00:00:00Z'));
    for (const bad of [null, undefined, 42, '', 'soon', '2027-03-08T12:00:00', '08/03/2027'])
      assert.equal(parseInstant(bad), undefined, String(bad));
  });

  it("takes the earliest of the supplier's penalty_date and the order's cancel_penalties", () => {
    assert.deepEqual(
      cancellationTerms({
        supplierPenaltyDate: '2027-03-08T12:00:00Z',
        refundable: true,
        orderDeadline: '2027-03-07T12:00:00Z',
      }),
      { refundable: true, freeCancellationUntil: '2027-03-07T12:00:00.000Z', source: 'order' },
    );
    assert.deepEqual(
      cancellationTerms({ supplierPenaltyDate: '2027-03-08T12:00:00Z', refundable: true }),
      { refundable: true, freeCancellationUntil: '2027-03-08T12:00:00.000Z', source: 'supplier' },
    );
    // Non-refundable: no free cancellation, whatever the order said.
    assert.deepEqual(
      cancellationTerms({ refundable: false, orderDeadline: '2027-03-07T12:00:00Z' }),
      { refundable: false },
    );
    // A penalty_date without a cancel policy is not trusted; unknown stays unknown.
    assert.deepEqual(cancellationTerms({ supplierPenaltyDate: 'x', refundable: true }), {
      refundable: true,
    });
  });

  it('places the stay at the given instants, else at the UTC bounds of its dates', () => {
    assert.deepEqual(stayInstants({ checkIn: '2027-03-10', checkOut: '2027-03-12' }), {
      checkInAt: at('2027-03-10T00:00:00Z'),
      checkOutAt: at('2027-03-13T00:00:00Z'),
    });
    assert.deepEqual(
      stayInstants({
        checkIn: '2027-03-10',
        checkOut: '2027-03-12',
        checkInAt: '2027-03-10T15:00:00+01:00',
        checkOutAt: '2027-03-12T11:00:00+01:00',
      }),
      { checkInAt: at('2027-03-10T14:00:00Z'), checkOutAt: at('2027-03-12T10:00:00Z') },
    );
    assert.deepEqual(stayInstants({}), {});
  });

  it('reconfirms at the configured points before check-in, earliest first', () => {
    const checkIn = at('2027-03-10T00:00:00Z');
    assert.deepEqual(reconfirmationTimes(checkIn, ['24h', '72h', '1d']), [
      checkIn - 72 * H,
      checkIn - 24 * H,
    ]);
    assert.deepEqual(reconfirmationTimes(undefined, ['72h']), []);
  });

  it('runs autoCancelBeforePenalty its margin before the deadline, and never without one', () => {
    const terms = { freeCancellationUntil: '2027-03-08T12:00:00.000Z', refundable: true };
    assert.equal(autoCancelTime(terms, '6h'), at('2027-03-08T06:00:00Z'));
    assert.equal(autoCancelTime({ refundable: true }, '6h'), undefined);
  });

  describe('a cancellation', () => {
    const base = {
      orderId: 'o-1',
      phase: 'CONFIRMED' as const,
      terms: { freeCancellationUntil: '2027-03-08T12:00:00.000Z', refundable: true },
      checkInAt: at('2027-03-10T00:00:00Z'),
      acceptPenalty: false,
    };

    it('runs free before the deadline', () => {
      assert.deepEqual(decideCancellation({ ...base, now: at('2027-03-08T11:59:59Z') }), {
        kind: 'cancel',
        penalty: false,
      });
    });

    it('is refused after the deadline naming it, and runs with acceptPenalty', () => {
      const now = at('2027-03-08T12:00:00Z');
      const refused = decideCancellation({ ...base, now });
      assert.equal(refused.kind, 'refuse');
      assert.ok(refused.kind === 'refuse' && refused.code === 'PENALTY');
      assert.match(
        refused.kind === 'refuse' ? refused.message : '',
        /free cancellation ended at 2027-03-08T12:00:00.000Z.*acceptPenalty: true \(CLI --accept-penalty\)/,
      );
      assert.deepEqual(decideCancellation({ ...base, now, acceptPenalty: true }), {
        kind: 'cancel',
        penalty: true,
      });
    });

    it('needs acceptPenalty when the rate is non-refundable or the deadline unknown', () => {
      const now = at('2027-03-01T00:00:00Z');
      for (const terms of [{ refundable: false }, { refundable: true }, {}]) {
        const d = decideCancellation({ ...base, terms, now });
        assert.ok(d.kind === 'refuse' && d.code === 'PENALTY', JSON.stringify(terms));
      }
    });

    it('is refused once check-in has passed, even with acceptPenalty', () => {
      const d = decideCancellation({
        ...base,
        now: at('2027-03-10T00:00:00Z'),
        acceptPenalty: true,
      });
      assert.ok(d.kind === 'refuse' && d.code === 'CHECK_IN_PASSED');
    });

    it('is harmless twice, and refused when the supplier cancelled or the stay is over', () => {
      const now = at('2027-03-01T00:00:00Z');
      for (const phase of ['CANCELLED', 'CANCELLING'] as const)
        assert.deepEqual(decideCancellation({ ...base, phase, now }), { kind: 'already' });
      for (const phase of ['CANCELLED_BY_SUPPLIER', 'CHECKED_OUT'] as const) {
        const d = decideCancellation({ ...base, phase, now, acceptPenalty: true });
        assert.ok(d.kind === 'refuse' && d.code === 'ENDED', phase);
      }
      // A cancellation the supplier did not confirm may be tried again.
      assert.equal(
        decideCancellation({ ...base, phase: 'CANCELLATION_PENDING', now }).kind,
        'cancel',
      );
    });
  });

  it('reads CANCELLED as ours only when we asked, anything but CONFIRMED as a flag', () => {
    const status = (s: string) => ({ kind: 'status', status: s }) as const;
    assert.deepEqual(reconfirmationVerdict(status('CONFIRMED'), false, 1), { kind: 'confirmed' });
    assert.deepEqual(reconfirmationVerdict(status('CANCELLED'), false, 1), {
      kind: 'cancelled-by-supplier',
    });
    assert.deepEqual(reconfirmationVerdict(status('CANCELLED'), true, 1), {
      kind: 'cancelled-by-us',
    });
    const flagOf = (v: ReturnType<typeof reconfirmationVerdict>) =>
      v.kind === 'flag' ? v.reason : v.kind;
    assert.equal(flagOf(reconfirmationVerdict(status('PENDING'), false, 1)), 'NOT_CONFIRMED');
    assert.equal(flagOf(reconfirmationVerdict({ kind: 'not-found' }, false, 1)), 'NOT_FOUND');
    assert.equal(
      flagOf(reconfirmationVerdict({ kind: 'unreadable', code: 'TIMEOUT', message: '' }, false, 1)),
      'UNREADABLE',
    );
  });

  it('wakes for the earliest of reconfirmation, automatic cancellation and check-out', () => {
    assert.deepEqual(nextWake({ reconfirmAt: [5, 9], autoCancelAt: 7, checkOutAt: 20 }), {
      at: 5,
      what: 'reconfirm',
    });
    assert.deepEqual(nextWake({ reconfirmAt: [7], autoCancelAt: 7, checkOutAt: 20 }), {
      at: 7,
      what: 'auto-cancel',
    });
    assert.deepEqual(nextWake({ reconfirmAt: [], checkOutAt: 20 }), { at: 20, what: 'check-out' });
    assert.equal(nextWake({ reconfirmAt: [] }), undefined);
  });

  it("names the order's truth for every phase", () => {
    assert.equal(truthOf('AWAITING_CONFIRMATION', true), 'PENDING');
    assert.equal(truthOf('CONFIRMED', true), 'CONFIRMED');
    assert.equal(truthOf('CANCELLING', true), 'CANCELLATION_PENDING');
    assert.equal(truthOf('CANCELLED_BY_SUPPLIER', false), 'CANCELLED_BY_SUPPLIER');
    assert.equal(truthOf('CHECKED_OUT', false), 'STAY_COMPLETED');
    assert.equal(truthOf('NOT_AVAILABLE', false), 'NOT_AVAILABLE');
  });
});

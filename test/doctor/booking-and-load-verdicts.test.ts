/**
 * Verdicts on the test booking's steps, on latency and rate limits, and the report's exit code,
 * without a server.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  bookCancelVerdict,
  bookCreateVerdict,
  bookPriceCheckVerdict,
  bookRetrieveVerdict,
  customFieldVerdict,
  stayTermsVerdict,
} from '../../src/doctor/booking-verdicts';
import { doctorExitCode, fail, inCheckOrder, ok, warn } from '../../src/doctor/check-result';
import {
  latencyVerdict,
  percentile,
  policyPerSecond,
  rateLimitVerdict,
} from '../../src/doctor/load-verdicts';
import { probe } from '../../src/doctor/run-doctor';
import { HotelApiError } from '../../src/hotel-api/errors';
import type { RetrieveResponse } from '../../src/hotel-api/retrieve';

const lost = new HotelApiError({
  code: 'CONNECTION_LOST',
  endpoint: '/booking',
  method: 'POST',
  message: 'socket hang up',
});

const retrieved = (over: Partial<RetrieveResponse> = {}): RetrieveResponse => ({
  booking_id: 7,
  status: 'CONFIRMED',
  check_in: '2027-05-10',
  check_out: '2027-05-12',
  cancel_policy: true,
  penalty_date: '2027-05-08T12:00:00Z',
  rooms: [],
  ...over,
});

describe('test booking steps', () => {
  it('a price check without a booking_id gives nothing to book', () => {
    const v = bookPriceCheckVerdict({
      ok: true,
      value: { status: 'NOT AVAILABLE', price: null, booking_id: null },
    });
    assert.equal(v.result.verdict, 'warn');
    assert.equal(v.token, undefined);
    const given = bookPriceCheckVerdict({
      ok: true,
      value: { status: 'AVAILABLE', price: null, booking_id: 'tok' },
    });
    assert.equal(given.token, 'tok');
  });

  it('a lost booking answer fails and says a booking may exist under the order id', () => {
    const r = bookCreateVerdict({ outcome: { ok: false, error: lost }, orderId: 'doctor-x' });
    assert.equal(r.verdict, 'fail');
    assert.match(r.evidence, /may exist .* order doctor-x/);
  });

  it('retrieve must show a status the workflows know', () => {
    const known = bookRetrieveVerdict({ outcome: { ok: true, value: retrieved() }, bookingId: 7 });
    assert.equal(known.verdict, 'ok');
    const odd = bookRetrieveVerdict({
      outcome: { ok: true, value: retrieved({ status: 'BOOKED' }) },
      bookingId: 7,
    });
    assert.equal(odd.verdict, 'fail');
  });

  it('the order id must come back in its custom field', () => {
    const sent = { field: 'custom_field_10', sent: 'doctor-x' };
    assert.equal(
      customFieldVerdict({ ...sent, retrieved: { custom_field_10: 'doctor-x' } }).verdict,
      'ok',
    );
    const dropped = customFieldVerdict({ ...sent, retrieved: null });
    assert.equal(dropped.verdict, 'fail');
    assert.match(dropped.evidence, /custom_fields = null/);
  });

  it('stay terms the guard cannot read fail; readable ones are ok', () => {
    assert.equal(stayTermsVerdict({ retrieved: retrieved(), checkin: '2027-05-10' }).verdict, 'ok');
    const european = stayTermsVerdict({
      retrieved: retrieved({ check_in: '10/05/2027', penalty_date: '08/05/2027 12:00' }),
    });
    assert.equal(european.verdict, 'fail');
    assert.match(european.evidence, /check_in "10\/05\/2027"/);
    assert.match(european.evidence, /penalty_date "08\/05\/2027 12:00" unreadable/);
  });

  it('stay terms on other days than searched warn', () => {
    const r = stayTermsVerdict({ retrieved: retrieved(), checkin: '2027-05-11' });
    assert.equal(r.verdict, 'warn');
  });

  it('a cancellation is ok at 204, or after a 202 once retrieve shows CANCELLED', () => {
    const now = bookCancelVerdict({
      bookingId: 7,
      answer: { ok: true, value: { outcome: 'CANCELLED' } },
      polled: [],
    });
    assert.deepEqual([now.result.verdict, now.cancelled], ['ok', true]);
    const pending = { outcome: 'PENDING', status: 'OK', message: null } as const;
    const followed = bookCancelVerdict({
      bookingId: 7,
      answer: { ok: true, value: pending },
      polled: ['CONFIRMED', 'CANCELLED'],
    });
    assert.deepEqual([followed.result.verdict, followed.cancelled], ['ok', true]);
    assert.match(followed.result.evidence, /202 .* CONFIRMED → CANCELLED/);
    const never = bookCancelVerdict({
      bookingId: 7,
      answer: { ok: true, value: pending },
      polled: ['CONFIRMED', 'CONFIRMED'],
    });
    assert.deepEqual([never.result.verdict, never.cancelled], ['fail', false]);
    assert.match(never.result.evidence, /booking 7 not seen CANCELLED/);
  });
});

describe('latency and rate limits', () => {
  const endpoint = (durationsMs: number[], timeouts = 0) => ({
    endpoint: 'GET /x',
    durationsMs,
    timeouts,
    timeoutMs: 1_000,
    timeoutVariable: 'HOTEL_API_READ_TIMEOUT_MS',
  });

  it('percentiles are nearest-rank', () => {
    assert.equal(percentile([5, 1, 3, 2, 4], 50), 3);
    assert.equal(percentile([5, 1, 3, 2, 4], 95), 5);
    assert.ok(Number.isNaN(percentile([], 50)));
  });

  it('is ok well within the timeout, warns past half of it, fails past it or on a timeout', () => {
    assert.equal(latencyVerdict([endpoint([10, 20, 30])]).verdict, 'ok');
    const close = latencyVerdict([endpoint([600, 610, 620])]);
    assert.equal(close.verdict, 'warn');
    assert.match(close.evidence, /GET \/x p50 610 ms, p95 620 ms over 3 call\(s\)/);
    assert.equal(latencyVerdict([endpoint([1_200])]).verdict, 'fail');
    assert.equal(latencyVerdict([endpoint([10], 1)]).verdict, 'fail');
  });

  it('policies are read as calls per second', () => {
    assert.equal(policyPerSecond('10;w=1'), 10);
    assert.equal(policyPerSecond('"default";q=100;w=60')?.toFixed(2), '1.67');
    assert.equal(policyPerSecond('lots'), undefined);
  });

  it('no header is ok; a limit below our cap warns with the value to set', () => {
    assert.equal(
      rateLimitVerdict({ headers: [{}], maxCallsPerSecond: 0, rateLimited: 0 }).verdict,
      'ok',
    );
    const r = rateLimitVerdict({
      headers: [{ 'ratelimit-policy': '5;w=1' }],
      maxCallsPerSecond: 20,
      rateLimited: 0,
    });
    assert.equal(r.verdict, 'warn');
    assert.ok(r.verdict === 'warn' && /at most 5/.test(r.breaks ?? ''));
    const under = rateLimitVerdict({
      headers: [{ 'ratelimit-policy': '5;w=1' }],
      maxCallsPerSecond: 4,
      rateLimited: 0,
    });
    assert.equal(under.verdict, 'ok');
  });

  it('429s met during the run warn', () => {
    assert.equal(
      rateLimitVerdict({ headers: [], maxCallsPerSecond: 0, rateLimited: 2 }).verdict,
      'warn',
    );
  });
});

describe('the report', () => {
  it('exits 0 with warnings, 1 with a fail, 2 when it stopped', () => {
    const warned = [ok('reachable', 'x'), warn('clock', 'y')];
    assert.equal(doctorExitCode({ checks: warned }), 0);
    assert.equal(doctorExitCode({ checks: [...warned, fail('latency', 'z', 'w')] }), 1);
    for (const kind of ['unreachable', 'unauthenticated'] as const) {
      assert.equal(doctorExitCode({ checks: [], stop: { kind, check: 'reachable' } }), 2);
    }
  });

  it('lists checks in the documented order', () => {
    const sorted = inCheckOrder([ok('latency', 'a'), ok('reachable', 'b'), ok('book-cancel', 'c')]);
    assert.deepEqual(
      sorted.map((c) => c.name),
      ['reachable', 'latency', 'book-cancel'],
    );
  });

  it('a raw probe that gets no answer fails its own check, and the run goes on', async () => {
    const [r] = await probe('array-encoding', () =>
      Promise.reject(new DOMException('The operation was aborted due to timeout', 'TimeoutError')),
    );
    assert.equal(r?.name, 'array-encoding');
    assert.equal(r?.verdict, 'fail');
    assert.match(r?.evidence ?? '', /no answer: TimeoutError/);
    assert.deepEqual(await probe('redirects', () => Promise.resolve(ok('redirects', 'x'))), [
      ok('redirects', 'x'),
    ]);
  });
});

/**
 * Hard rule 5: 401 and 403 fail fast. Each affected supplier call is attempted exactly once and
 * the outcome names the cause. Sequential: the tests change the simulator's company accounts.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import {
  COMPANY,
  bookingInput,
  eventually,
  startBookingStack,
  type BookingStack,
} from '../helpers/booking-stack';

describe('credentials errors fail fast', () => {
  let s: BookingStack;
  before(async () => {
    s = await startBookingStack('credentials');
  });
  beforeEach(() => {
    s.sim.upsertCompany({ key: COMPANY.key, secret: COMPANY.secret, active: true });
    s.sim.reset();
  });
  after(async () => {
    await s?.close();
  });

  const priceChecks = () => s.sim.requests().byEndpoint['price-check']?.total ?? 0;
  const bookingCalls = () => s.sim.requests().byEndpoint['booking']?.total ?? 0;

  it('a revoked key (401) at the price check is attempted once and ends FAILED with AUTH_INVALID', async () => {
    s.sim.revokeCompany(COMPANY.key);
    const input = bookingInput('instant');
    await s.bookings.startBooking(input);
    const r = await s.bookings.result(input.orderId);
    assert.equal(r.outcome, 'FAILED');
    assert.equal(r.error?.code, 'AUTH_INVALID');
    assert.match(r.reason ?? '', /AUTH_INVALID/);
    assert.equal(priceChecks(), 1, 'one attempt, no retry loop');
    assert.equal(s.sim.requests().authFailures.total, 1);
  });

  it('an inactive account (403) is attempted once and ends FAILED with ACCOUNT_INACTIVE', async () => {
    s.sim.upsertCompany({ key: COMPANY.key, active: false });
    const input = bookingInput('instant');
    await s.bookings.startBooking(input);
    const r = await s.bookings.result(input.orderId);
    assert.equal(r.outcome, 'FAILED');
    assert.equal(r.error?.code, 'ACCOUNT_INACTIVE');
    assert.equal(priceChecks(), 1);
  });

  it('a key revoked before the booking call sends the booking once, books nothing and says why', async () => {
    const input = bookingInput('price-up', { param: 50 });
    await s.bookings.startBooking(input);
    await eventually(
      async () => (await s.bookings.state(input.orderId)).phase === 'AWAITING_APPROVAL',
    );
    s.sim.revokeCompany(COMPANY.key);
    await s.bookings.approvePriceChange(input.orderId, true);
    const r = await s.bookings.result(input.orderId);
    assert.equal(r.outcome, 'FAILED');
    assert.equal(r.error?.code, 'AUTH_INVALID');
    assert.equal(bookingCalls(), 1, 'POST /booking sent exactly once');
    assert.equal(s.sim.bookings({ customFields: { custom_field_10: input.orderId } }).length, 0);
  });
});

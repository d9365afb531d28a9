import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { scenarioOptionId } from '../../tools/simulator';
import type { TestSim } from './helpers';
import {
  OTHER,
  book,
  bookScenario,
  bookingBody,
  cancel,
  manualClock,
  priceCheck,
  retrieve,
  startSim,
} from './helpers';

const INVALID_TOKEN = { detail: 'Invalid or expired option_id' };

describe('Booking, retrieve and cancel', () => {
  const clock = manualClock(Date.UTC(2026, 4, 1, 9, 30, 0));
  let t: TestSim;
  before(async () => {
    t = await startSim({ now: clock.now, tokenTtlMs: 60_000 });
  });
  after(() => t.close());
  const opts = () => ({ signedAt: clock.now() });

  it('books only with a price-check token, not with the option id itself', async () => {
    const optionId = scenarioOptionId('instant');
    const r = await book(t, optionId, bookingBody(), opts());
    assert.deepEqual([r.status, r.body], [422, INVALID_TOKEN]);
    const unknown = await book(t, 'bk_999_deadbeef', bookingBody(), opts());
    assert.deepEqual([unknown.status, unknown.body], [422, INVALID_TOKEN]);
  });

  it('expires price-check tokens after tokenTtlMs', async () => {
    const check = await priceCheck(t, scenarioOptionId('instant'), opts());
    clock.advance(59_000);
    const inTime = await book(t, check.body.booking_id, bookingBody(), opts());
    assert.equal(inTime.status, 201);
    clock.advance(1_000);
    const late = await book(t, check.body.booking_id, bookingBody(), opts());
    assert.deepEqual([late.status, late.body], [422, INVALID_TOKEN]);
  });

  it("does not accept another company's token", async () => {
    const check = await priceCheck(t, scenarioOptionId('instant'), opts());
    const r = await book(t, check.body.booking_id, bookingBody(), { as: OTHER, ...opts() });
    assert.deepEqual([r.status, r.body], [422, INVALID_TOKEN]);
  });

  it('is not idempotent: the same token books twice, with increasing integer ids', async () => {
    t.sim.reset();
    const check = await priceCheck(t, scenarioOptionId('instant'), opts());
    const first = await book(t, check.body.booking_id, bookingBody(), opts());
    const second = await book(t, check.body.booking_id, bookingBody(), opts());
    assert.equal(first.status, 201);
    assert.equal(second.status, 201);
    assert.ok(Number.isInteger(first.body.booking_id));
    assert.ok(second.body.booking_id > first.body.booking_id);
    const seen = t.sim.bookings();
    assert.equal(seen.length, 2);
    assert.equal(seen[0]?.token, check.body.booking_id);
    assert.equal(seen[1]?.token, check.body.booking_id);
  });

  it('requires exactly one room_detail entry per room of the option', async () => {
    const optionId = scenarioOptionId('instant', { rooms: 2 });
    const check = await priceCheck(t, optionId, opts());
    for (const rooms of [1, 3]) {
      const r = await book(t, check.body.booking_id, bookingBody(rooms), opts());
      assert.equal(r.status, 422, `${rooms} rooms`);
      assert.equal(typeof r.body.detail, 'string');
      assert.match(r.body.detail, /exactly 2 entries/);
    }
    const ok = await book(t, check.body.booking_id, bookingBody(2), opts());
    assert.equal(ok.status, 201);
  });

  it('retrieves the full record: contact, dates, price, rooms, custom fields and creation time', async () => {
    const optionId = scenarioOptionId('instant', {
      checkin: '2026-09-10',
      checkout: '2026-09-14',
      occupancy: [
        { adults: 2, children: [] },
        { adults: 1, children: [4, 9] },
      ],
      propertyId: 2003,
    });
    const check = await priceCheck(t, optionId, opts());
    const body = bookingBody(2, {
      custom_fields: { custom_field_3: 'PO-77', custom_field_10: 'ord-123' },
    });
    const created = await book(t, check.body.booking_id, body, opts());
    const id = created.body.booking_id as number;
    const r = await retrieve(t, id, opts());
    assert.equal(r.status, 200);
    const rec = r.body;
    assert.equal(rec.booking_id, id);
    assert.equal(rec.status, 'CONFIRMED');
    assert.equal(rec.guest_contact_number, '+39 3331234567');
    assert.equal(rec.email, 'ada@example.com');
    assert.equal(rec.check_in, '2026-09-10');
    assert.equal(rec.check_out, '2026-09-14');
    assert.equal(rec.cancel_policy, true);
    assert.equal(rec.penalty_date, '2026-09-08T12:00:00Z');
    assert.equal(rec.package, false);
    assert.equal(rec.created_at, new Date(clock.now()).toISOString());
    assert.deepEqual(rec.custom_fields, { custom_field_3: 'PO-77', custom_field_10: 'ord-123' });
    assert.equal(rec.price.currency, 'EUR');
    assert.equal(rec.price.payment_status, 'PAID');
    assert.match(rec.price.total_amount, /^\d+\.\d{2}$/);
    assert.equal(rec.rooms.length, 2);
    assert.deepEqual(
      rec.rooms.map((room: Record<string, unknown>) => [
        room.lead_name,
        room.lead_last_name,
        room.special_requests,
        room.number_of_adults,
        room.child_ages,
      ]),
      [
        ['Ada1', 'Lovelace', 'late arrival', 2, []],
        ['Ada2', 'Lovelace', '', 1, [4, 9]],
      ],
    );
    for (const room of rec.rooms) {
      assert.ok(Number.isInteger(room.room_id));
      assert.equal(room.room_name, 'Classic Room [scenario: instant]');
      assert.equal(typeof room.bed_type, 'string');
      assert.deepEqual(room.treatments, [{ id: 'BB', name: 'Bed and breakfast' }]);
    }
  });

  it('keeps a null email as an empty string and a single custom field name as given', async () => {
    const b = await bookScenario(
      t,
      'instant',
      {},
      bookingBody(1, { email: null, custom_fields: 'custom_field_4' }),
      opts(),
    );
    const rec = (await retrieve(t, b.reply.body.booking_id, opts())).body;
    assert.equal(rec.email, '');
    assert.equal(rec.custom_fields, 'custom_field_4');
  });

  it('answers 404 with status, message and detail for a booking that does not exist', async () => {
    const r = await retrieve(t, 424242, opts());
    const message = 'Booking with id 424242 could not be found';
    assert.deepEqual([r.status, r.body], [404, { status: 'NOT_FOUND', message, detail: message }]);
  });

  it('keeps bookings private to their company: another company gets 404 on retrieve and not-found on cancel', async () => {
    const b = await bookScenario(t, 'instant', {}, bookingBody(), opts());
    const id = b.reply.body.booking_id as number;
    const r = await retrieve(t, id, { as: OTHER, ...opts() });
    assert.equal(r.status, 404);
    assert.equal(r.body.message, `Booking with id ${id} could not be found`);
    const c = await cancel(t, id, { as: OTHER, ...opts() });
    assert.deepEqual(
      [c.status, c.body],
      [202, { status: 'NOT AVAILABLE', message: `Booking with id ${id} could not be found` }],
    );
    assert.equal(
      (await retrieve(t, id, opts())).body.status,
      'CONFIRMED',
      'the owner still has it',
    );
  });

  it('answers a cancel of an unknown booking with 202 NOT AVAILABLE and of a cancelled one with 202 OK', async () => {
    const unknown = await cancel(t, 424242, opts());
    assert.deepEqual(
      [unknown.status, unknown.body],
      [202, { status: 'NOT AVAILABLE', message: 'Booking with id 424242 could not be found' }],
    );
    const b = await bookScenario(t, 'instant', {}, bookingBody(), opts());
    const id = b.reply.body.booking_id as number;
    assert.equal((await cancel(t, id, opts())).status, 204);
    const twice = await cancel(t, id, opts());
    assert.deepEqual(
      [twice.status, twice.body],
      [202, { status: 'OK', message: `Booking ${id} is already cancelled` }],
    );
  });

  it('refuses booking_id values that are not integers and finds nothing for huge ones', async () => {
    assert.equal((await retrieve(t, 'one', opts())).status, 422);
    assert.equal((await retrieve(t, '99999999999999999999999', opts())).status, 404);
    assert.equal((await cancel(t, '-5', opts())).status, 202);
  });
});

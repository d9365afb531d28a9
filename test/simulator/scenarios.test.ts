import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { request } from 'undici';
import { sign } from '../../src/hotel-api/signing';
import { SCENARIOS, SCENARIO_NAMES, scenarioOptionId } from '../../tools/simulator';
import type { TestSim } from './helpers';
import {
  ACME,
  availabilityQuery,
  book,
  bookScenario,
  bookingBody,
  cancel,
  priceCheck,
  retrieve,
  startSim,
  statuses,
} from './helpers';

describe('Scenarios', () => {
  let t: TestSim;
  before(async () => {
    t = await startSim();
  });
  after(() => t.close());

  it('lists every scenario once, with a description and how to select it', () => {
    assert.deepEqual(
      SCENARIOS.map((s) => s.name),
      [...SCENARIO_NAMES],
    );
    assert.equal(SCENARIO_NAMES.length, 16);
    for (const s of SCENARIOS) {
      assert.ok(s.description.length > 20, s.name);
      assert.ok(s.selectedBy.includes(`[scenario: ${s.name}]`), s.name);
      assert.ok(s.selectedBy.includes(`scenarioOptionId('${s.name}'`), s.name);
    }
  });

  it('instant: AVAILABLE, booked CONFIRMED at once, cancelled with 204', async () => {
    const check = await priceCheck(t, scenarioOptionId('instant'));
    assert.equal(check.body.status, 'AVAILABLE');
    const created = await book(t, check.body.booking_id);
    assert.equal(created.status, 201);
    assert.equal(created.body.status, 'CONFIRMED');
    assert.ok(Number.isInteger(created.body.booking_id));
    assert.deepEqual(await statuses(t, created.body.booking_id, 2), ['CONFIRMED', 'CONFIRMED']);
    const c = await cancel(t, created.body.booking_id);
    assert.equal(c.status, 204);
    assert.equal(c.text, '');
    assert.equal((await retrieve(t, created.body.booking_id)).body.status, 'CANCELLED');
  });

  it('an ordinary room from availability behaves like instant', async () => {
    const rooms = (await t.get(availabilityQuery([1002]))).body.properties[0].rooms;
    const check = await priceCheck(t, rooms[1].id);
    const created = await book(t, check.body.booking_id);
    assert.deepEqual([created.status, created.body.status], [201, 'CONFIRMED']);
  });

  it('confirm-after-polls: PROCESSING, then WAITING_CONFIRMATION, then CONFIRMED on the N-th retrieve', async () => {
    const three = await bookScenario(t, 'confirm-after-polls');
    assert.equal(three.reply.status, 201);
    assert.equal(three.reply.body.status, 'PROCESSING');
    assert.deepEqual(await statuses(t, three.reply.body.booking_id, 4), [
      'PROCESSING',
      'WAITING_CONFIRMATION',
      'CONFIRMED',
      'CONFIRMED',
    ]);
    const five = await bookScenario(t, 'confirm-after-polls', { param: 5 });
    assert.deepEqual(await statuses(t, five.reply.body.booking_id, 5), [
      'PROCESSING',
      'PROCESSING',
      'WAITING_CONFIRMATION',
      'WAITING_CONFIRMATION',
      'CONFIRMED',
    ]);
  });

  it('pending-long: PENDING forever by default, CONFIRMED after N retrieves with a parameter', async () => {
    const forever = await bookScenario(t, 'pending-long');
    assert.equal(forever.reply.body.status, 'PENDING');
    const seen = await statuses(t, forever.reply.body.booking_id, 25);
    assert.deepEqual(new Set(seen), new Set(['PENDING']));
    const two = await bookScenario(t, 'pending-long', { param: 2 });
    assert.equal(two.reply.body.status, 'PENDING');
    assert.deepEqual(await statuses(t, two.reply.body.booking_id, 3), [
      'PENDING',
      'PENDING',
      'CONFIRMED',
    ]);
  });

  it('not-confirmed: PROCESSING, then NOT_CONFIRMED from the N-th retrieve on', async () => {
    const b = await bookScenario(t, 'not-confirmed');
    assert.equal(b.reply.body.status, 'PROCESSING');
    assert.deepEqual(await statuses(t, b.reply.body.booking_id, 3), [
      'PROCESSING',
      'NOT_CONFIRMED',
      'NOT_CONFIRMED',
    ]);
    const four = await bookScenario(t, 'not-confirmed', { param: 4 });
    assert.deepEqual(await statuses(t, four.reply.body.booking_id, 4), [
      'PROCESSING',
      'PROCESSING',
      'PROCESSING',
      'NOT_CONFIRMED',
    ]);
  });

  it('price-up and price-down: PRICE CHANGE by the percentage, then booked CONFIRMED at the new price', async () => {
    const base = async (optionId: string) => {
      // The same option as an ordinary instant room costs the base price.
      const instant = optionId.replace(/^opt_price-(up|down)_\d+_/, 'opt_instant_0_');
      const q = await priceCheck(t, instant);
      assert.equal(q.body.status, 'AVAILABLE');
      const created = await book(t, q.body.booking_id);
      return Number((await retrieve(t, created.body.booking_id)).body.price.total_amount);
    };
    for (const [scenario, param, factor] of [
      ['price-up', undefined, 1.1],
      ['price-up', 25, 1.25],
      ['price-down', undefined, 0.9],
      ['price-down', 30, 0.7],
    ] as const) {
      const optionId = scenarioOptionId(scenario, param === undefined ? {} : { param });
      const net = await base(optionId);
      const check = await priceCheck(t, optionId);
      assert.equal(check.body.status, 'PRICE CHANGE', `${scenario} ${param}`);
      assert.equal(
        Number(check.body.price.net),
        Math.round(net * factor * 100) / 100,
        `${scenario} ${param}`,
      );
      assert.equal(check.body.price.currency, 'EUR');
      assert.match(check.body.booking_id, /^bk_/);
      const created = await book(t, check.body.booking_id);
      assert.deepEqual([created.status, created.body.status], [201, 'CONFIRMED']);
      const record = (await retrieve(t, created.body.booking_id)).body;
      assert.equal(record.price.total_amount, check.body.price.net);
    }
  });

  it('policy-change: POLICY CHANGE with the unchanged price returned, then CONFIRMED', async () => {
    const optionId = scenarioOptionId('policy-change', { tag: null, checkin: '2026-08-01' });
    const plain = (
      await t.get(availabilityQuery([1001], ['2'], '2026-08-01', '2026-08-03'))
    ).body.properties[0].rooms.find((r: { id: string }) => r.id === optionId);
    const check = await priceCheck(t, optionId);
    assert.equal(check.body.status, 'POLICY CHANGE');
    assert.deepEqual(check.body.price, plain.price);
    const created = await book(t, check.body.booking_id);
    assert.equal(created.body.status, 'CONFIRMED');
  });

  it('not-available: NOT AVAILABLE with price and booking_id null', async () => {
    const check = await priceCheck(t, scenarioOptionId('not-available'));
    assert.deepEqual(check.body, { status: 'NOT AVAILABLE', price: null, booking_id: null });
  });

  it('sold-out: AVAILABLE, then the booking is refused with 422 and nothing is created, then NOT AVAILABLE', async () => {
    t.sim.reset();
    const optionId = scenarioOptionId('sold-out');
    const first = await priceCheck(t, optionId);
    const second = await priceCheck(t, optionId);
    assert.equal(first.body.status, 'AVAILABLE');
    const refused = await book(t, first.body.booking_id);
    assert.equal(refused.status, 422);
    assert.deepEqual(refused.body, { detail: 'Room is no longer available' });
    assert.deepEqual(t.sim.bookings(), []);
    assert.deepEqual((await priceCheck(t, optionId)).body, {
      status: 'NOT AVAILABLE',
      price: null,
      booking_id: null,
    });
    const again = await book(t, second.body.booking_id);
    assert.deepEqual([again.status, again.body], [422, { detail: 'Room is no longer available' }]);
    assert.deepEqual(t.sim.bookings(), []);
    // Another sold-out option is unaffected: the state belongs to the exact option id.
    assert.equal((await priceCheck(t, scenarioOptionId('sold-out'))).body.status, 'AVAILABLE');
  });

  it('price-check-5xx: 503 for the first N price checks of the option, then AVAILABLE', async () => {
    const optionId = scenarioOptionId('price-check-5xx');
    const codes = [];
    for (let i = 0; i < 4; i++) codes.push((await priceCheck(t, optionId)).status);
    assert.deepEqual(codes, [503, 503, 200, 200]);
    const once = scenarioOptionId('price-check-5xx', { param: 1 });
    const r1 = await priceCheck(t, once);
    assert.deepEqual([r1.status, r1.body], [503, { detail: 'Service Unavailable' }]);
    const r2 = await priceCheck(t, once);
    assert.equal(r2.body.status, 'AVAILABLE');
    const created = await book(t, r2.body.booking_id);
    assert.equal(created.body.status, 'CONFIRMED');
  });

  it('booking-5xx: the booking answers 500 and creates nothing', async () => {
    t.sim.reset();
    const b = await bookScenario(t, 'booking-5xx');
    assert.equal(b.reply.status, 500);
    assert.deepEqual(b.reply.body, { detail: 'Internal Server Error' });
    const retry = await book(t, b.token);
    assert.equal(retry.status, 500);
    assert.deepEqual(t.sim.bookings(), []);
  });

  it('booking-lost: the booking is committed, then the connection is destroyed before any answer', async () => {
    t.sim.reset();
    const optionId = scenarioOptionId('booking-lost');
    const check = await priceCheck(t, optionId);
    const failure = await request(`${t.url}/booking?option_id=${check.body.booking_id}`, {
      method: 'POST',
      headers: { authorization: sign(ACME, Date.now()), 'content-type': 'application/json' },
      body: JSON.stringify(bookingBody()),
    }).then(
      () => undefined,
      (err: unknown) => err,
    );
    assert.ok(failure instanceof Error, 'the booking call fails without an answer');
    const [stored] = t.sim.bookings();
    assert.ok(stored);
    assert.equal(stored.optionId, optionId);
    assert.equal(stored.answer, 'lost');
    const record = await retrieve(t, stored.bookingId);
    assert.deepEqual([record.status, record.body.status], [200, 'CONFIRMED']);
    assert.equal(t.sim.requests().byEndpoint.booking?.byStatus.lost, 1);
  });

  it('booking-slow: the booking is committed at once and the 201 arrives after the delay', async () => {
    t.sim.reset();
    const optionId = scenarioOptionId('booking-slow', { param: 400 });
    const check = await priceCheck(t, optionId);
    const pending = book(t, check.body.booking_id);
    await new Promise((r) => setTimeout(r, 150));
    const [stored] = t.sim.bookings();
    assert.ok(stored, 'committed before the answer');
    assert.equal(stored.answer, 'delayed');
    const reply = await pending;
    assert.ok(reply.elapsedMs >= 380, `answered after ${reply.elapsedMs} ms`);
    assert.deepEqual(reply.body, { status: 'CONFIRMED', booking_id: stored.bookingId });
  });

  it('supplier-cancels: CONFIRMED, then CANCELLED from the N-th retrieve, and a cancel finds it already cancelled', async () => {
    const b = await bookScenario(t, 'supplier-cancels');
    assert.equal(b.reply.body.status, 'CONFIRMED');
    const id = b.reply.body.booking_id as number;
    assert.deepEqual(await statuses(t, id, 3), ['CONFIRMED', 'CANCELLED', 'CANCELLED']);
    const c = await cancel(t, id);
    assert.deepEqual(
      [c.status, c.body],
      [202, { status: 'OK', message: `Booking ${id} is already cancelled` }],
    );
  });

  it('cancel-202-resolves: cancel answers 202 OK with a null message, CANCELLED on the N-th retrieve after it', async () => {
    const b = await bookScenario(t, 'cancel-202-resolves');
    const id = b.reply.body.booking_id as number;
    assert.deepEqual(
      await statuses(t, id, 2),
      ['CONFIRMED', 'CONFIRMED'],
      'retrieves before the cancel do not count',
    );
    const c = await cancel(t, id);
    assert.deepEqual([c.status, c.body], [202, { status: 'OK', message: null }]);
    assert.equal((await retrieve(t, id)).body.status, 'CONFIRMED');
    const again = await cancel(t, id);
    assert.deepEqual(
      [again.status, again.body],
      [202, { status: 'OK', message: null }],
      'still unknown',
    );
    assert.equal((await retrieve(t, id)).body.status, 'CANCELLED');
    const last = await cancel(t, id);
    assert.deepEqual(last.body, { status: 'OK', message: `Booking ${id} is already cancelled` });

    const three = await bookScenario(t, 'cancel-202-resolves', { param: 3 });
    const id3 = three.reply.body.booking_id as number;
    await cancel(t, id3);
    assert.deepEqual(await statuses(t, id3, 3), ['CONFIRMED', 'CONFIRMED', 'CANCELLED']);
  });

  it('cancel-202-never: cancel answers 202 forever and the booking stays CONFIRMED', async () => {
    const b = await bookScenario(t, 'cancel-202-never');
    const id = b.reply.body.booking_id as number;
    for (let i = 0; i < 4; i++) {
      const c = await cancel(t, id);
      assert.deepEqual([c.status, c.body], [202, { status: 'OK', message: null }]);
      assert.equal((await retrieve(t, id)).body.status, 'CONFIRMED');
    }
  });

  it('answers 204 and reads CANCELLED for a cancel of any other scenario, also while still pending', async () => {
    for (const scenario of [
      'confirm-after-polls',
      'pending-long',
      'price-up',
      'booking-slow',
    ] as const) {
      const b = await bookScenario(t, scenario, scenario === 'booking-slow' ? { param: 1 } : {});
      const id = b.reply.body.booking_id as number;
      const c = await cancel(t, id);
      assert.equal(c.status, 204, scenario);
      assert.deepEqual(
        await statuses(t, id, 4),
        ['CANCELLED', 'CANCELLED', 'CANCELLED', 'CANCELLED'],
        scenario,
      );
    }
  });
});

/**
 * The supplier surface of the hostile-input campaign (tools/fuzz/supplier.ts): each defect it
 * found, as a test named for its input — the simulator's hostile mode over real HTTP, the product's
 * hotel API client as the worker builds it, and a real Temporal where an order is involved.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { BookRoomResult } from '../../src/client';
import { HotelApiClient } from '../../src/hotel-api';
import {
  isHotelApiError,
  MAX_RETRY_AFTER_MS,
  type HotelApiError,
} from '../../src/hotel-api/errors';
import { FUZZ_COMPANY, fuzzConfig, GUEST, leaked } from '../../tools/fuzz/supplier-checks';
import { buildSimulator, type HostileKind, type Simulator } from '../../tools/simulator';
import { scenarioOptionId } from '../../tools/simulator/scenarios';
import {
  bookingInput,
  eventually,
  startBookingStack,
  type BookingStack,
} from '../helpers/booking-stack';

const BODY = {
  room_detail: [{ lead_first_name: GUEST.firstName, lead_last_name: GUEST.lastName }],
  phone_number_prefix: '+39',
  phone_number: GUEST.phone,
  email: GUEST.email,
};

/** What a call gave: its value or its error. */
type Result = { value: unknown; variant: string } | { error: HotelApiError; variant: string };

describe('hostile supplier answers, through the hotel API client', () => {
  let sim: Simulator;
  let client: HotelApiClient;
  before(async () => {
    sim = buildSimulator({ companies: [FUZZ_COMPANY] });
    const { origin } = await sim.listen(0, '127.0.0.1');
    client = new HotelApiClient(fuzzConfig(origin).hotelApi);
  });
  after(async () => {
    await client.close();
    await sim.close();
  });

  const book = async () => {
    const pc = await client.priceCheck({ optionId: scenarioOptionId('instant') });
    return client.createBooking({ optionId: pc.booking_id!, body: BODY });
  };

  /** `call` with its answer spoiled by `kind` drawn from `seed`. */
  async function spoiled(
    endpoint: 'booking' | 'retrieve' | 'price-check',
    kind: HostileKind,
    seed: number,
    call: () => Promise<unknown>,
  ): Promise<Result> {
    sim.addHostileRule({ endpoint, kind, seed, times: 1 });
    try {
      const value = await call();
      return { value, variant: sim.hostileApplied().last.at(-1)!.variant };
    } catch (error) {
      assert.ok(isHotelApiError(error), `untyped: ${String(error)}`);
      return { error, variant: sim.hostileApplied().last.at(-1)!.variant };
    } finally {
      sim.addHostileRule(null);
    }
  }

  /** Every seed below `n` with a fresh booking call: its results and the variants they covered. */
  async function bookings(kind: HostileKind, n: number): Promise<Result[]> {
    const out: Result[] = [];
    for (let seed = 0; seed < n; seed++) {
      const pc = await client.priceCheck({ optionId: scenarioOptionId('instant') });
      out.push(
        await spoiled('booking', kind, seed, () =>
          client.createBooking({ optionId: pc.booking_id!, body: BODY }),
        ),
      );
    }
    return out;
  }

  it('booking × negative-id (booking_id -1, 0, -0): an ambiguous CONTRACT error, never a booking id', async () => {
    const results = await bookings('negative-id', 24);
    const variants = new Set(results.map((r) => r.variant));
    for (const v of ['booking_id = -1', 'booking_id = 0', 'booking_id = -0'])
      assert.ok(variants.has(v), `not covered: ${v}`);
    for (const r of results) {
      assert.ok('error' in r, `${r.variant}: taken as ${JSON.stringify('value' in r && r.value)}`);
      assert.equal(r.error.code, 'CONTRACT', r.variant);
      assert.equal(r.error.ambiguous, true);
    }
  });

  it('retrieve × changing-id (an answer about another booking): a CONTRACT error', async () => {
    const { booking_id: id } = await book();
    for (let seed = 0; seed < 5; seed++) {
      const r = await spoiled('retrieve', 'changing-id', seed, () =>
        client.retrieveBooking({ bookingId: id }),
      );
      assert.ok('error' in r, `${r.variant}: taken as booking ${id}`);
      assert.equal(r.error.code, 'CONTRACT');
      assert.match(r.error.message, new RegExp(`not booking ${id}`));
    }
  });

  it("retrieve × malformed-json (a bare word: the guest's name unquoted): not quoted in the error or its cause", async () => {
    const { booking_id: id } = await book();
    const variants = new Set<string>();
    for (let seed = 0; seed < 120; seed++) {
      const r = await spoiled('retrieve', 'malformed-json', seed, () =>
        client.retrieveBooking({ bookingId: id }),
      );
      variants.add(r.variant);
      if (!('error' in r)) continue; // a stray character inside a string is still JSON
      const said: string[] = [];
      for (let e: unknown = r.error; e instanceof Error; e = e.cause) said.push(e.message);
      assert.equal(
        leaked(said.join('\n')),
        undefined,
        `seed ${seed}, ${r.variant}: ${said.join(' / ')}`,
      );
    }
    assert.ok(variants.has('a bare word'));
  });

  it('echo-request (the header, the key, the signature, the guest): none of them in the error', async () => {
    const results = await bookings('echo-request', 40);
    const variants = new Set(results.map((r) => r.variant.replace(/^\d+ /, '')));
    for (const v of ['the header', 'the key', 'the signature', 'the body', 'a validation list'])
      assert.ok(variants.has(`echoing ${v}`), `not covered: ${v}`);
    for (const r of results) {
      assert.ok('error' in r);
      const text = [r.error.message, JSON.stringify(r.error.toJSON())].join('\n');
      assert.equal(leaked(text), undefined, `${r.variant}: ${r.error.message}`);
    }
  });

  it('retry-after (Retry-After 99999999999999999999, 86400000, year 9999): waited 5 minutes at most', async () => {
    const results = await bookings('retry-after', 40);
    const absurd = results.filter((r) => /99999|86400000|9999 /.test(r.variant));
    assert.ok(absurd.length >= 3, `absurd values covered: ${absurd.length}`);
    for (const r of results) {
      assert.ok('error' in r);
      const after = r.error.retryAfterMs;
      if (after === undefined) continue;
      assert.ok(
        Number.isSafeInteger(after) && after >= 0 && after <= 3_600_000,
        `${r.variant}: ${after}`,
      );
    }
  });
});

describe('hostile booking answers, through whole orders', () => {
  let s: BookingStack;
  before(async () => {
    s = await startBookingStack('fuzz-supplier');
  });
  after(async () => {
    await s.close();
  });

  /** The order's decision; an ambiguous call reconciled by the order id its booking carries. */
  async function decided(orderId: string): Promise<BookRoomResult> {
    const result = s.bookings.result(orderId);
    let reconciled = false;
    for (;;) {
      const done = await Promise.race([result, new Promise((r) => setTimeout(r, 100))]);
      if (done) return done as BookRoomResult;
      const st = await s.bookings.state(orderId).catch(() => undefined);
      if (st?.phase === 'NEEDS_RECONCILIATION' && !reconciled) {
        reconciled = true;
        const held = s.sim.bookings({ customFields: { custom_field_10: orderId } })[0];
        await s.bookings.resolveReconciliation(
          orderId,
          held ? { bookingId: held.bookingId } : { noBooking: true },
        );
      }
    }
  }

  it('an order whose booking answer names booking -1: decided on the booking the supplier holds', async () => {
    const input = bookingInput('instant');
    s.sim.addHostileRule({
      endpoint: 'booking',
      kind: 'negative-id',
      seed: 0,
      when: input.orderId,
    });
    await s.bookings.startBooking(input);
    const r = await decided(input.orderId);
    const held = s.sim.bookings({ customFields: { custom_field_10: input.orderId } });
    assert.equal(held.length, 1);
    assert.equal(r.bookingId, held[0]!.bookingId);
    await s.bookings.handle(input.orderId).terminate();
  });

  it('an order whose booking is answered 429 with Retry-After 99999999999999999999: sent again within the cap', async () => {
    const input = bookingInput('instant');
    s.sim.addHostileRule({
      endpoint: 'booking',
      kind: 'retry-after',
      seed: 32,
      when: input.orderId,
    });
    await s.bookings.startBooking(input);
    const handle = s.bookings.handle(input.orderId);
    const timer = await eventually(async () => {
      const events = (await handle.fetchHistory()).events ?? [];
      return events.find((e) => e.timerStartedEventAttributes)?.timerStartedEventAttributes;
    });
    const applied = s.sim.hostileApplied().last.find((a) => a.kind === 'retry-after');
    assert.equal(applied?.variant, 'Retry-After "99999999999999999999"');
    assert.equal(applied?.status, 429);
    const seconds = Number(timer?.startToFireTimeout?.seconds ?? Infinity);
    assert.ok(seconds <= MAX_RETRY_AFTER_MS / 1000, `the second send waits ${seconds} s`);
    assert.equal(s.sim.bookings({ customFields: { custom_field_10: input.orderId } }).length, 0);
    await handle.terminate();
  });
});

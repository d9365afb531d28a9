import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SCENARIO_NAMES, parseOptionId, scenarioOptionId } from '../../tools/simulator';
import type { TestSim } from './helpers';
import { availabilityQuery, priceCheck, startSim } from './helpers';

interface Room {
  id: string;
  number_of_rooms: number;
  occupancy_of_rooms: { adults: number; children: number[] }[];
  room_name: string;
  status: string;
  refundable: boolean;
  cancel_penalties?: unknown;
  package: boolean;
  corporate: boolean;
  bed_groups: { id: string; description: string }[];
  price: Record<string, string>;
  treatments: { id: string; name: string }[];
}

describe('Availability', () => {
  let t: TestSim;
  before(async () => {
    t = await startSim();
  });
  after(() => t.close());

  it('offers two ordinary rooms and one room per scenario, named after the scenario', async () => {
    const r = await t.get(availabilityQuery([1001]));
    assert.equal(r.status, 200);
    assert.deepEqual(r.body.warnings, []);
    const [property] = r.body.properties;
    assert.equal(property.property_id, '1001');
    assert.equal(property.status, 'AVAILABLE');
    const rooms = property.rooms as Room[];
    assert.equal(rooms.length, 2 + SCENARIO_NAMES.length);
    const ordinary = rooms.filter((room) => !room.room_name.includes('[scenario:'));
    assert.equal(ordinary.length, 2);
    for (const room of ordinary) assert.equal(parseOptionId(room.id)?.scenario, 'instant');
    for (const name of SCENARIO_NAMES) {
      const room = rooms.find((x) => x.room_name.endsWith(` [scenario: ${name}]`));
      assert.ok(room, name);
      assert.equal(parseOptionId(room.id)?.scenario, name);
    }
    assert.equal(new Set(rooms.map((x) => x.id)).size, rooms.length, 'room ids are unique');
  });

  it('gives every room the fields of the seed, with cancel_penalties only on refundable rooms', async () => {
    const r = await t.get(availabilityQuery([1001, 2001], ['2', '2-5,7']));
    for (const property of r.body.properties) {
      for (const room of property.rooms as Room[]) {
        assert.equal(typeof room.id, 'string');
        assert.equal(room.number_of_rooms, 2);
        assert.deepEqual(room.occupancy_of_rooms, [
          { adults: 2, children: [] },
          { adults: 2, children: [5, 7] },
        ]);
        assert.equal(room.status, 'AVAILABLE');
        assert.equal(typeof room.refundable, 'boolean');
        assert.equal(room.package, false);
        assert.equal(room.corporate, false);
        assert.ok(room.bed_groups.length > 0);
        for (const k of ['without_tax', 'taxes', 'sales_taxes', 'net', 'currency']) {
          assert.equal(typeof room.price[k], 'string', k);
        }
        assert.match(room.price.net ?? '', /^\d+\.\d{2}$/);
        const cents = (s: string | undefined) => Math.round(Number(s) * 100);
        assert.equal(
          cents(room.price.without_tax) + cents(room.price.taxes),
          cents(room.price.net),
        );
        assert.equal(room.treatments.length, 1);
        if (room.refundable)
          assert.match(String(room.cancel_penalties), /^\d{4}-\d{2}-\d{2}T12:00:00Z$/);
        else assert.equal('cancel_penalties' in room, false);
      }
    }
  });

  it('writes self-describing option ids: scenario, parameter, property, dates, occupancy and room', async () => {
    const r = await t.get(availabilityQuery([1001], ['2', '1-4'], '2026-07-10', '2026-07-13'));
    const room = (r.body.properties[0].rooms as Room[]).find((x) =>
      x.room_name.includes('confirm-after-polls'),
    );
    assert.equal(room?.id, 'opt_confirm-after-polls_3_p1001_2026-07-10_2026-07-13_a2.a1c4_x');
    assert.deepEqual(parseOptionId(room?.id ?? ''), {
      scenario: 'confirm-after-polls',
      param: 3,
      propertyId: 1001,
      checkin: '2026-07-10',
      checkout: '2026-07-13',
      occupancy: [
        { adults: 2, children: [] },
        { adults: 1, children: [4] },
      ],
      room: 'x',
    });
    const pending = (r.body.properties[0].rooms as Room[]).find((x) =>
      x.room_name.includes('pending-long'),
    );
    assert.match(pending?.id ?? '', /^opt_pending-long_inf_/);
  });

  it('prices deterministically: the same search costs the same, longer stays and more guests cost more', async () => {
    const net = async (q: string) => Number((await t.get(q)).body.properties[0].rooms[0].price.net);
    const base = await net(availabilityQuery([1001], ['2'], '2026-06-01', '2026-06-03'));
    assert.equal(await net(availabilityQuery([1001], ['2'], '2026-06-01', '2026-06-03')), base);
    assert.ok((await net(availabilityQuery([1001], ['2'], '2026-06-01', '2026-06-05'))) > base);
    assert.ok((await net(availabilityQuery([1001], ['3-4'], '2026-06-01', '2026-06-03'))) > base);
  });

  it('leaves out the scenario rooms when scenarioRooms is off and uses scenarioParams for the listed rooms', async () => {
    const plain = await startSim({ scenarioRooms: false });
    const tuned = await startSim({
      scenarioParams: { 'confirm-after-polls': 7, 'booking-slow': 10 },
    });
    try {
      const rooms = (await plain.get(availabilityQuery([1001]))).body.properties[0].rooms as Room[];
      assert.deepEqual(
        rooms.map((x) => x.room_name),
        ['Standard Double Room', 'Superior Double Room'],
      );
      const tunedRooms = (await tuned.get(availabilityQuery([1001]))).body.properties[0]
        .rooms as Room[];
      const param = (name: string) =>
        parseOptionId(tunedRooms.find((x) => x.room_name.endsWith(`[scenario: ${name}]`))?.id ?? '')
          ?.param;
      assert.equal(param('confirm-after-polls'), 7);
      assert.equal(param('booking-slow'), 10);
      assert.equal(param('not-confirmed'), 2);
    } finally {
      await plain.close();
      await tuned.close();
    }
  });

  it('reports requested properties that do not exist or are inactive under warnings, once each', async () => {
    const r = await t.get(availabilityQuery([424242, 1001, 1001, 424242]));
    assert.deepEqual(r.body.warnings, ['424242']);
    assert.equal(r.body.properties.length, 1);
  });
});

describe('Price check', () => {
  let t: TestSim;
  before(async () => {
    t = await startSim();
  });
  after(() => t.close());

  it('answers AVAILABLE with a null price and a fresh booking token on every call', async () => {
    const rooms = (await t.get(availabilityQuery([1001]))).body.properties[0].rooms as Room[];
    const id = rooms[0]?.id ?? '';
    const first = await priceCheck(t, id);
    const second = await priceCheck(t, id);
    for (const r of [first, second]) {
      assert.equal(r.status, 200);
      assert.equal(r.body.status, 'AVAILABLE');
      assert.equal(r.body.price, null);
      assert.match(r.body.booking_id, /^bk_\d+_[0-9a-f]{8}$/);
    }
    assert.notEqual(first.body.booking_id, second.body.booking_id);
  });

  it('accepts an option id built by scenarioOptionId without a prior availability call', async () => {
    const r = await priceCheck(t, scenarioOptionId('instant', { propertyId: 3002, rooms: 2 }));
    assert.equal(r.status, 200);
    assert.equal(r.body.status, 'AVAILABLE');
  });

  it('answers 422 {"detail":"Invalid option_id"} for an option id it could not have issued', async () => {
    for (const id of [
      '',
      'abc',
      'opt_nope_0_p1001_2026-06-01_2026-06-03_a2_x',
      'opt_instant_0_p1001_2026-06-03_2026-06-01_a2_x',
      'opt_instant_0_p1001_2026-06-01_2026-06-03_a0_x',
    ]) {
      const r = await priceCheck(t, id);
      assert.equal(r.status, 422, id);
      assert.deepEqual(r.body, { detail: 'Invalid option_id' }, id);
    }
  });

  it('answers NOT AVAILABLE for an option of an unknown or inactive property', async () => {
    for (const propertyId of [1008, 777777]) {
      const r = await priceCheck(t, scenarioOptionId('instant', { propertyId }));
      assert.deepEqual(r.body, { status: 'NOT AVAILABLE', price: null, booking_id: null });
    }
  });
});

describe('scenarioOptionId', () => {
  it('builds a fresh tagged id per call, or a stable id with tag null', () => {
    const a = scenarioOptionId('sold-out', { checkin: '2026-06-01' });
    const b = scenarioOptionId('sold-out', { checkin: '2026-06-01' });
    assert.notEqual(a, b);
    assert.match(a, /^opt_sold-out_0_p1001_2026-06-01_2026-06-03_a2_x_[a-z0-9]+$/);
    const stable = scenarioOptionId('price-up', {
      checkin: '2026-06-01',
      tag: null,
      param: 25,
      rooms: 2,
    });
    assert.equal(stable, 'opt_price-up_25_p1001_2026-06-01_2026-06-03_a2.a2_x');
    assert.equal(
      scenarioOptionId('price-up', { checkin: '2026-06-01', tag: null, param: 25, rooms: 2 }),
      stable,
    );
  });

  it('uses each scenario default parameter and writes forever as inf', () => {
    const param = (s: (typeof SCENARIO_NAMES)[number]) => parseOptionId(scenarioOptionId(s))?.param;
    assert.equal(param('confirm-after-polls'), 3);
    assert.equal(param('pending-long'), Infinity);
    assert.equal(param('not-confirmed'), 2);
    assert.equal(param('price-up'), 10);
    assert.equal(param('price-check-5xx'), 2);
    assert.equal(param('booking-slow'), 3000);
    assert.equal(param('supplier-cancels'), 2);
    assert.equal(param('cancel-202-resolves'), 2);
    assert.match(scenarioOptionId('pending-long'), /^opt_pending-long_inf_/);
  });

  it('refuses parameters and occupancies the simulator would reject', () => {
    assert.throws(() => scenarioOptionId('price-down', { param: 95 }), RangeError);
    assert.throws(() => scenarioOptionId('instant', { param: -1 }), RangeError);
    assert.throws(() => scenarioOptionId('instant', { rooms: 9 }), RangeError);
    assert.throws(
      () => scenarioOptionId('instant', { occupancy: [{ adults: 2, children: [18] }] }),
      RangeError,
    );
    assert.throws(() => scenarioOptionId('nope' as 'instant'), RangeError);
  });
});

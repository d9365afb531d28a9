import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { explain, json, startCliStack, type CliStack } from './cli-process';

const day = (offset: number) =>
  new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

interface SearchJson {
  properties: {
    propertyId: number;
    name: string | null;
    rooms: {
      optionId: string;
      roomName: string;
      board: string[];
      refundable: boolean;
      price: { net: string; currency: string };
    }[];
  }[];
  warnings: string[];
}

describe('the catalogue commands (search, content, static) against the simulator', () => {
  let s: CliStack;
  const checkin = day(30);
  const checkout = day(32);
  before(async () => {
    s = await startCliStack('cli-catalogue');
  });
  after(async () => {
    await s.stack.stop();
  });

  it('search joins availability with property names, as a table and as JSON', async () => {
    const args = [
      'search',
      '--property',
      '1001,1002',
      '--checkin',
      checkin,
      '--checkout',
      checkout,
      '--occupancy',
      '2',
    ];
    const [human, machine] = await Promise.all([s.run(...args), s.run('--json', ...args)]);

    assert.equal(human.code, 0, explain(human));
    assert.match(human.stdout, /room option\(s\) at 2 property\(ies\)/);
    assert.match(human.stdout, /1001 Residenza Il Giardino/);
    assert.match(human.stdout, /Classic Room \[scenario: instant\]/);
    assert.match(human.stdout, /Bed and breakfast/);
    assert.match(human.stdout, /\d+\.\d\d EUR/);
    assert.match(human.stdout, /│ (yes|no) +│ opt_instant_/, 'refundable and option id columns');

    assert.equal(machine.code, 0, explain(machine));
    const result = json<SearchJson>(machine);
    assert.deepEqual(
      result.properties.map((p) => p.propertyId),
      [1001, 1002],
    );
    const first = result.properties[0]!;
    assert.equal(first.name, 'Residenza Il Giardino');
    assert.ok(first.rooms.length > 2);
    const room = first.rooms.find((r) => r.roomName === 'Classic Room [scenario: instant]');
    assert.ok(room, 'the scenario room is listed');
    assert.deepEqual(room.board, ['Bed and breakfast']);
    assert.equal(typeof room.refundable, 'boolean');
    assert.equal(room.price.currency, 'EUR');
    assert.match(room.optionId, /^opt_instant_/);
  });

  it('search with a checkout before the checkin is exit 2 naming the field, and sends nothing', async () => {
    const before = s.stack.simulator!.requests().byEndpoint.availability?.total ?? 0;
    const [run, bad] = await Promise.all([
      s.run('search', '--property', '1001', '--checkin', checkout, '--checkout', checkin),
      s.run('search', '--property', 'abc', '--checkin', checkin, '--checkout', checkout),
    ]);
    assert.equal(run.code, 2, explain(run));
    assert.match(run.stderr, /checkout: must be after checkin/);
    assert.equal(bad.code, 2, explain(bad));
    assert.match(bad.stderr, /--property: "abc" is not a property id/);
    assert.equal(s.stack.simulator!.requests().byEndpoint.availability?.total ?? 0, before);
  });

  it("content list pages a country's properties and content show describes one", async () => {
    const [list, listJson, show, showJson, missing] = await Promise.all([
      s.run('content', 'list', '--country', 'IT', '--page', '2'),
      s.run('--json', 'content', 'list', '--country', 'IT'),
      s.run('content', 'show', '1001'),
      s.run('content', 'show', '1001', '--json'),
      s.run('content', 'show', '999999'),
    ]);
    assert.equal(list.code, 0, explain(list));
    assert.match(list.stdout, /Page 2 of \d+ \(\d+ properties in IT\)/);
    assert.match(list.stdout, /│ Id +│ Name +│ City +│ Stars +│ Category/);

    assert.equal(listJson.code, 0, explain(listJson));
    const page = json<{
      page: number;
      pages: number;
      total: number;
      properties: { id: number; name: string }[];
    }>(listJson);
    assert.equal(page.page, 1);
    assert.ok(page.total > 0 && page.pages === Math.ceil(page.total / 200));
    assert.equal(page.properties[0]?.name, 'Residenza Il Giardino');

    assert.equal(show.code, 0, explain(show));
    assert.match(show.stdout, /│ Name +│ Residenza Il Giardino/);
    assert.match(show.stdout, /│ Country +│ Italy \(IT\)/);
    assert.equal(showJson.code, 0, explain(showJson));
    assert.equal(json<{ id: number }>(showJson).id, 1001);

    assert.equal(missing.code, 1, explain(missing));
    assert.match(missing.stderr, /Not found at the supplier/);
  });

  it('static prints every reference list', async () => {
    const [human, machine] = await Promise.all([
      s.run('static', '--language', 'en'),
      s.run('--json', 'static'),
    ]);
    assert.equal(human.code, 0, explain(human));
    for (const title of [
      'Categories',
      'Boards (treatments)',
      'Room amenities',
      'Property amenities',
      'Hotel attributes',
    ]) {
      assert.ok(human.stdout.includes(title), `${title} is printed`);
    }
    assert.match(human.stdout, /│ 1 +│ Hotel/);
    assert.equal(machine.code, 0, explain(machine));
    const lists = json<{
      categories: { id: string; name: string }[];
      treatment_categories: unknown[];
    }>(machine);
    assert.ok(lists.categories.some((c) => c.name === 'Hotel'));
    assert.ok(lists.treatment_categories.length > 0);
  });
});

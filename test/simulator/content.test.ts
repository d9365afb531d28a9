import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { INITIALLY_INACTIVE_PROPERTY_IDS, PAGE_SIZE } from '../../tools/simulator';
import type { TestSim } from './helpers';
import { availabilityQuery, startSim } from './helpers';

const DESCRIPTION_KEYS = [
  'amenities',
  'attractions',
  'business_amenities',
  'dining',
  'headline',
  'location',
  'renovations',
  'rooms',
];
const REFERENCE_LISTS = [
  'categories',
  'treatment_categories',
  'room_amenities',
  'property_amenities',
  'hotel_attributes',
];

const isNullOr = (v: unknown, type: string) => v === null || typeof v === type;

describe('Content', () => {
  let t: TestSim;
  before(async () => {
    t = await startSim();
  });
  after(() => t.close());

  it('pages the Italian list 200 at a time over at least three pages, with total the number of properties', async () => {
    const pages = [];
    for (let page = 1; page <= 4; page++) {
      const r = await t.get(`/properties/content/?country_code=IT&page=${page}`);
      assert.equal(r.status, 200);
      pages.push(r.body);
    }
    const total = pages[0].total as number;
    assert.ok(total >= 450, `IT total ${total}`);
    assert.equal(PAGE_SIZE, 200);
    assert.deepEqual(
      pages.map((p) => p.properties.length),
      [200, 200, total - 400, 0],
    );
    assert.deepEqual(
      pages.map((p) => [p.total, p.page]),
      [
        [total, 1],
        [total, 2],
        [total, 3],
        [total, 4],
      ],
    );
    const ids = pages.flatMap((p) => p.properties.map((x: { id: number }) => x.id));
    assert.equal(new Set(ids).size, total);
  });

  it('gives list items an id, a name, a city, a country code and stars', async () => {
    const r = await t.get('/properties/content/?country_code=IT');
    for (const item of r.body.properties) {
      assert.equal(typeof item.id, 'number');
      assert.equal(typeof item.name, 'string');
      assert.equal(typeof item.city, 'string');
      assert.equal(item.country.code, 'IT');
      assert.ok(isNullOr(item.stars, 'number'));
    }
    assert.ok(
      r.body.properties.some((p: { stars: unknown }) => p.stars === null),
      'some properties have no stars',
    );
  });

  it('lists France, Spain and the United Kingdom with fewer properties, and nothing for an unknown country', async () => {
    for (const cc of ['FR', 'ES', 'GB']) {
      const r = await t.get(`/properties/content/?country_code=${cc}`);
      assert.equal(r.status, 200);
      assert.ok(r.body.total > 0 && r.body.total < 200, `${cc} total ${r.body.total}`);
      assert.equal(r.body.properties.length, r.body.total);
      assert.ok(
        r.body.properties.every((p: { country: { code: string } }) => p.country.code === cc),
      );
    }
    const zz = await t.get('/properties/content/?country_code=ZZ');
    assert.deepEqual([zz.status, zz.body.total, zz.body.properties], [200, 0, []]);
  });

  it('speaks English by default and Italian on request', async () => {
    const en = await t.get('/properties/content/?country_code=IT');
    const it_ = await t.get('/properties/content/?country_code=IT&language_code=it');
    const cities = (r: typeof en) =>
      new Set(r.body.properties.map((p: { city: string }) => p.city));
    assert.ok(cities(en).has('Rome') && !cities(en).has('Roma'));
    assert.ok(cities(it_).has('Roma') && !cities(it_).has('Rome'));
    assert.equal(en.body.properties[0].country.name, 'Italy');
    assert.equal(it_.body.properties[0].country.name, 'Italia');
  });

  it('returns the full detail record with descriptions, images, themes, attributes, amenities and rooms', async () => {
    const r = await t.get('/properties/content/1001');
    assert.equal(r.status, 200);
    const d = r.body;
    assert.equal(d.id, 1001);
    for (const k of ['name']) assert.equal(typeof d[k], 'string');
    for (const k of [
      'pic',
      'city',
      'address',
      'state_code',
      'state_name',
      'zipcode',
      'category',
      'phone_nr',
    ]) {
      assert.ok(isNullOr(d[k], 'string'), k);
    }
    assert.ok(isNullOr(d.stars, 'number'));
    assert.equal(typeof d.coordinates.latitude, 'number');
    assert.equal(typeof d.coordinates.longitude, 'number');
    assert.match(d.country.code, /^[A-Z]{2}$/);
    assert.equal(typeof d.country.name, 'string');
    for (const k of [
      'guest_rating_overall',
      'guest_rating_cleanliness',
      'guest_rating_service',
      'guest_rating_comfort',
      'guest_rating_condition',
      'guest_rating_location',
      'guest_rating_neighborhood',
      'guest_rating_amenities',
    ]) {
      assert.ok(isNullOr(d[k], 'number'), k);
    }
    assert.ok(d.guest_rating_count === null || Number.isInteger(d.guest_rating_count));
    assert.deepEqual(Object.keys(d.descriptions).sort(), DESCRIPTION_KEYS);
    for (const v of Object.values(d.descriptions)) assert.ok(isNullOr(v, 'string'));
    assert.ok(
      d.images.length >= 3 && d.images.every((i: { url: string }) => i.url.startsWith('https://')),
    );
    assert.ok(d.themes.length >= 1);
    assert.ok(d.attributes.length >= 5);
    for (const a of d.attributes) {
      assert.ok(Number.isInteger(a.id));
      assert.equal(typeof a.name, 'string');
      assert.ok(a.value === null || Number.isInteger(a.value));
    }
    assert.ok(
      d.amenities.every(
        (a: { id: string; name: string }) => typeof a.id === 'string' && typeof a.name === 'string',
      ),
    );
    assert.ok(d.rooms.length >= 2);
  });

  it('translates the detail record into Italian', async () => {
    const en = (await t.get('/properties/content/1001?language_code=en')).body;
    const it_ = (await t.get('/properties/content/1001?language_code=it')).body;
    assert.equal(en.id, it_.id);
    assert.equal(en.name, it_.name);
    assert.notEqual(en.descriptions.location, it_.descriptions.location);
    assert.match(it_.descriptions.location, /si trova/);
    assert.notEqual(en.attributes[0].name, it_.attributes[0].name);
  });

  it('hides inactive properties: 404 on detail, absent from the list, a warning in availability', async () => {
    assert.ok(INITIALLY_INACTIVE_PROPERTY_IDS.length >= 3);
    const inactive = INITIALLY_INACTIVE_PROPERTY_IDS[0];
    assert.ok(inactive !== undefined);
    const detail = await t.get(`/properties/content/${inactive}`);
    assert.equal(detail.status, 404);
    assert.deepEqual(detail.body, { detail: 'Property not found or inactive' });
    const unknown = await t.get('/properties/content/999999');
    assert.deepEqual(
      [unknown.status, unknown.body],
      [404, { detail: 'Property not found or inactive' }],
    );
    const listed = [];
    for (let page = 1; page <= 3; page++) {
      const r = await t.get(`/properties/content/?country_code=IT&page=${page}`);
      listed.push(...r.body.properties.map((p: { id: number }) => p.id));
    }
    assert.ok(!listed.includes(inactive));
    const avail = await t.get(availabilityQuery([1001, inactive, 999999]));
    assert.deepEqual(avail.body.warnings, [String(inactive), '999999']);
    assert.deepEqual(
      avail.body.properties.map((p: { property_id: string }) => p.property_id),
      ['1001'],
    );
  });

  it('lets a test deactivate and reactivate a property at runtime, so a content sync sees it go and come back', async () => {
    const before = (await t.get('/properties/content/?country_code=FR')).body;
    const victim = before.properties[3].id as number;
    assert.equal(t.sim.deactivateProperty(victim), true);
    const after = (await t.get('/properties/content/?country_code=FR')).body;
    assert.equal(after.total, before.total - 1);
    assert.ok(!after.properties.some((p: { id: number }) => p.id === victim));
    assert.equal((await t.get(`/properties/content/${victim}`)).status, 404);
    assert.deepEqual((await t.get(availabilityQuery([victim]))).body.warnings, [String(victim)]);
    assert.equal(t.sim.setPropertyActive(victim, true), true);
    assert.equal((await t.get('/properties/content/?country_code=FR')).body.total, before.total);
    assert.equal((await t.get(`/properties/content/${victim}`)).status, 200);
    assert.equal(t.sim.deactivateProperty(123456789), false);
  });

  it('serves the five reference lists in English and Italian with the same ids', async () => {
    const en = (await t.get('/static_content_reference_list?language=en')).body;
    const it_ = (await t.get('/static_content_reference_list?language=it')).body;
    assert.deepEqual(Object.keys(en).sort(), [...REFERENCE_LISTS].sort());
    for (const list of REFERENCE_LISTS) {
      assert.ok(en[list].length >= 3, list);
      for (const item of [...en[list], ...it_[list]]) {
        assert.equal(typeof item.id, 'string');
        assert.equal(typeof item.name, 'string');
      }
      assert.deepEqual(
        en[list].map((i: { id: string }) => i.id),
        it_[list].map((i: { id: string }) => i.id),
      );
    }
    const name = (body: typeof en, id: string) =>
      body.treatment_categories.find((i: { id: string }) => i.id === id).name;
    assert.equal(name(en, 'HB'), 'Half board');
    assert.equal(name(it_, 'HB'), 'Mezza pensione');
  });

  it('generates the same catalogue in every simulator, whatever the seed', async () => {
    const other = await startSim({ seed: 999 });
    try {
      for (const path of [
        '/properties/content/?country_code=ES',
        '/properties/content/3005?language_code=it',
      ]) {
        assert.equal((await other.get(path)).text, (await t.get(path)).text, path);
      }
    } finally {
      await other.close();
    }
  });
});

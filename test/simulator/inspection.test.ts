import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { request } from 'undici';
import { scenarioOptionId } from '../../tools/simulator';
import type { TestSim } from './helpers';
import { ACME, OTHER, bookScenario, bookingBody, priceCheck, startSim } from './helpers';

const REF = '/static_content_reference_list?language=en';

describe('Inspection and control', () => {
  let t: TestSim;
  const control = (path: string, json?: unknown) =>
    t.call('POST', path, json === undefined ? { as: null } : { as: null, json });
  before(async () => {
    t = await startSim();
  });
  after(() => t.close());

  it('is absent (404) unless inspection is on', async () => {
    const off = await startSim({ inspection: false });
    try {
      for (const path of ['/__sim/bookings', '/__sim/requests', '/__sim/reset']) {
        const r = await off.call(path.endsWith('reset') ? 'POST' : 'GET', path, { as: null });
        assert.deepEqual([r.status, r.body], [404, { detail: 'Not Found' }], path);
      }
    } finally {
      await off.close();
    }
  });

  it('lists every booking with company, token, option, scenario, custom fields, status and creation time', async () => {
    await control('/__sim/reset');
    const mine = await bookScenario(t, 'confirm-after-polls', { param: 4 });
    await bookScenario(
      t,
      'instant',
      { propertyId: 4002 },
      bookingBody(1, { custom_fields: { custom_field_10: 'ord-theirs' } }),
      { as: OTHER },
    );
    const r = await t.get('/__sim/bookings', { as: null });
    assert.equal(r.status, 200);
    assert.equal(r.body.bookings.length, 2);
    const [a, b] = r.body.bookings;
    assert.equal(a.bookingId, mine.reply.body.booking_id);
    assert.equal(a.companyKey, ACME.key);
    assert.equal(a.token, mine.token);
    assert.equal(a.optionId, mine.optionId);
    assert.equal(a.scenario, 'confirm-after-polls');
    assert.equal(a.param, 4);
    assert.equal(a.propertyId, 1001);
    assert.equal(a.status, 'PROCESSING');
    assert.deepEqual(a.customFields, { custom_field_1: 'order-1', custom_field_10: 'ord-42' });
    assert.ok(Math.abs(Date.parse(a.createdAt) - Date.now()) < 5_000);
    assert.equal(a.answer, 'sent');
    assert.equal(b.companyKey, OTHER.key);
    assert.equal(b.propertyId, 4002);
    assert.deepEqual(t.sim.inspect().bookings, r.body.bookings);
  });

  it('filters bookings by company, status and custom field', async () => {
    const byField = await t.get('/__sim/bookings?custom_field_10=ord-theirs', { as: null });
    assert.deepEqual(
      byField.body.bookings.map((b: { companyKey: string }) => b.companyKey),
      [OTHER.key],
    );
    const byCompany = await t.get(`/__sim/bookings?companyKey=${ACME.key}&status=PROCESSING`, {
      as: null,
    });
    assert.equal(byCompany.body.bookings.length, 1);
    assert.deepEqual(t.sim.bookings({ customFields: { custom_field_10: 'nobody' } }), []);
  });

  it('counts requests per endpoint and status, and authentication failures', async () => {
    await control('/__sim/reset');
    await t.get(REF);
    await t.get(REF);
    await t.get('/static_content_reference_list');
    await t.get(REF, { as: null });
    await t.get(REF, { authorization: 'nonsense' });
    await t.get('/unknown');
    await t.call('DELETE', REF);
    await t.get('/__sim/requests', { as: null });
    const r = await t.get('/__sim/requests', { as: null });
    assert.deepEqual(r.body, {
      total: 7,
      byEndpoint: {
        'reference-list': { total: 5, byStatus: { '200': 2, '422': 2, '401': 1 } },
        'not-found': { total: 1, byStatus: { '404': 1 } },
        'method-not-allowed': { total: 1, byStatus: { '405': 1 } },
      },
      byStatus: { '200': 2, '422': 2, '401': 1, '404': 1, '405': 1 },
      byCompany: { [ACME.key]: { total: 3, byEndpoint: { 'reference-list': 3 } } },
      authFailures: { total: 2, byReason: { missing: 1, malformed: 1 } },
      injectedErrors: 0,
      rateLimited: 0,
      internalErrors: 0,
    });
    assert.deepEqual(t.sim.inspect().requests, r.body);
  });

  it('resets bookings, counters, faults, companies, properties and per-option state', async () => {
    await bookScenario(t, 'instant');
    const soldOut = scenarioOptionId('sold-out');
    await bookScenario(t, 'sold-out').catch(() => undefined);
    t.sim.setFaults({ latency: { fixedMs: 5 } });
    t.sim.revokeCompany(OTHER.key);
    t.sim.deactivateProperty(1001);
    const r = await control('/__sim/reset');
    assert.deepEqual([r.status, r.body], [200, { ok: true }]);
    assert.deepEqual(t.sim.bookings(), []);
    assert.equal(t.sim.requests().total, 0);
    assert.deepEqual(t.sim.faults(), {});
    assert.ok(t.sim.companies().some((c) => c.key === OTHER.key));
    assert.equal((await t.get('/properties/content/1001')).status, 200);
    assert.equal((await priceCheck(t, soldOut)).body.status, 'AVAILABLE');
  });

  it('sets and clears faults over HTTP, and refuses invalid ones with 400', async () => {
    const set = await control('/__sim/faults', {
      errorRate: { availability: 0.25 },
      latency: { minMs: 1, maxMs: 2 },
    });
    assert.deepEqual(
      [set.status, set.body],
      [200, { faults: { errorRate: { availability: 0.25 }, latency: { minMs: 1, maxMs: 2 } } }],
    );
    assert.deepEqual((await t.get('/__sim/faults', { as: null })).body, set.body);
    const limited = await control('/__sim/faults', {
      rateLimit: { perSecond: 1 },
      errorRate: null,
      latency: null,
    });
    assert.deepEqual(limited.body, { faults: { rateLimit: { perSecond: 1 } } });
    assert.equal((await t.get(REF)).status, 200);
    assert.equal((await t.get(REF)).status, 429);
    await control('/__sim/faults', { rateLimit: null });
    for (const bad of [
      { errorRate: { booking: 3 } },
      { latency: { fixedMs: 'x' } },
      { nope: 1 },
      [],
    ]) {
      const r = await control('/__sim/faults', bad);
      assert.equal(r.status, 400, JSON.stringify(bad));
      assert.equal(typeof r.body.detail, 'string');
    }
    const notJson = await t.call('POST', '/__sim/faults', {
      as: null,
      body: '{',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(notJson.status, 400);
  });

  it('adds, deactivates, rotates and revokes companies over HTTP', async () => {
    const newCo = { key: 'new-co', secret: 'new-co-secret' };
    assert.equal((await t.get(REF, { as: newCo })).status, 401);
    const added = await control('/__sim/companies', { ...newCo, active: true });
    assert.equal(added.status, 200);
    assert.ok(
      added.body.companies.some(
        (c: { key: string; active: boolean }) => c.key === 'new-co' && c.active,
      ),
    );
    assert.ok(!JSON.stringify(added.body).includes('new-co-secret'), 'secrets never leave');
    assert.equal((await t.get(REF, { as: newCo })).status, 200);
    await control('/__sim/companies', { key: 'new-co', active: false });
    assert.equal((await t.get(REF, { as: newCo })).status, 403);
    await control('/__sim/companies', { key: 'new-co', active: true, secret: 'rotated' });
    assert.equal((await t.get(REF, { as: newCo })).status, 401);
    assert.equal((await t.get(REF, { as: { key: 'new-co', secret: 'rotated' } })).status, 200);
    const revoked = await control('/__sim/companies', { key: 'new-co', revoke: true });
    assert.ok(!revoked.body.companies.some((c: { key: string }) => c.key === 'new-co'));
    assert.equal((await t.get(REF, { as: { key: 'new-co', secret: 'rotated' } })).status, 401);
    assert.equal((await control('/__sim/companies', { key: 'new-co', revoke: true })).status, 404);
    assert.equal(
      (await control('/__sim/companies', { key: 'ghost' })).status,
      400,
      'a new company needs a secret',
    );
    assert.equal((await control('/__sim/companies', { secret: 'x' })).status, 400);
  });

  it('deactivates and reactivates a property over HTTP', async () => {
    const off = await control('/__sim/properties/2002/deactivate');
    assert.deepEqual([off.status, off.body], [200, { id: 2002, active: false }]);
    assert.equal((await t.get('/properties/content/2002')).status, 404);
    const state = await t.get('/__sim/state', { as: null });
    assert.ok(state.body.inactiveProperties.includes(2002));
    const on = await control('/__sim/properties/2002/activate');
    assert.deepEqual(on.body, { id: 2002, active: true });
    assert.equal((await t.get('/properties/content/2002')).status, 200);
    assert.equal((await control('/__sim/properties/99999999/deactivate')).status, 404);
    assert.equal((await t.get('/__sim/properties/2002/deactivate', { as: null })).status, 405);
  });

  it('skews the server clock over HTTP: the Date header follows and the 5-minute window moves with it', async () => {
    const skew = await control('/__sim/clock', { skewMs: 10 * 60_000 });
    assert.equal(skew.status, 200);
    assert.equal(skew.body.skewMs, 600_000);
    const r = await t.get(REF);
    assert.equal(r.status, 401, 'a client on the real clock is now 10 minutes behind');
    const serverNow = Date.parse(String(r.headers.date));
    assert.ok(Math.abs(serverNow - (Date.now() + 600_000)) < 5_000);
    assert.equal((await t.get(REF, { signedAt: Date.now() + 600_000 })).status, 200);
    await control('/__sim/clock', { skewMs: 0 });
    assert.equal((await t.get(REF)).status, 200);
  });

  it('answers unknown control routes with 404 and needs no signature', async () => {
    assert.equal((await t.get('/__sim/nope', { as: null })).status, 404);
    const res = await request(`${t.origin}/__sim/requests`);
    assert.equal(res.statusCode, 200);
    await res.body.dump();
  });
});

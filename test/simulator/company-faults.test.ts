import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { request } from 'undici';
import { sign } from '../../src/hotel-api/signing';
import { buildSimulator } from '../../tools/simulator';
import type { Reply, TestSim } from './helpers';
import {
  ACME,
  DORMANT,
  OTHER,
  availabilityQuery,
  bookScenario,
  manualClock,
  startSim,
  withSim,
} from './helpers';

const REF = '/static_content_reference_list?language=en';

/** Polls `check` every 10 ms until it holds (fails after 5 s). */
async function until(what: string, check: () => boolean): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!check()) {
    if (Date.now() > deadline) assert.fail(`still not: ${what}`);
    await delay(10);
  }
}

/** A request left running, and whether it has ended yet. */
function pending(reply: Promise<Reply>) {
  const state: { settled: boolean; outcome: Promise<Reply | Error> } = {
    settled: false,
    outcome: reply.then(
      (r) => r,
      (err: unknown) => (err instanceof Error ? err : new Error(String(err))),
    ),
  };
  void state.outcome.then(() => (state.settled = true));
  return state;
}

describe('Requests by company', () => {
  it('counts each authenticated company by endpoint, and nobody else, until reset', async () => {
    await withSim({ errorRate: { availability: 1 } }, async (t) => {
      await t.get(REF);
      await t.get(REF);
      assert.equal((await t.get(availabilityQuery([1001]))).status, 503, 'injected, still counted');
      await t.get(REF, { as: OTHER });
      await t.get('/static_content_reference_list', { as: OTHER }); // 422 after authentication
      await t.get(REF, { as: null }); // no header
      await t.get(REF, { as: DORMANT }); // 403
      await t.get(REF, { as: { key: ACME.key, secret: 'wrong' } }); // 401
      await t.get(REF, { as: ACME, signedAt: Date.now() - 10 * 60_000 }); // expired
      await t.get('/nowhere');
      const expected = {
        [ACME.key]: { total: 3, byEndpoint: { 'reference-list': 2, availability: 1 } },
        [OTHER.key]: { total: 2, byEndpoint: { 'reference-list': 2 } },
      };
      const stats = t.sim.requests();
      assert.deepEqual(stats.byCompany, expected);
      assert.equal(stats.total, 10);
      const http = await t.get('/__sim/requests', { as: null });
      assert.deepEqual(http.body.byCompany, expected);
      assert.deepEqual(t.sim.inspect().requests.byCompany, expected);
      await t.call('POST', '/__sim/reset', { as: null });
      assert.deepEqual(t.sim.requests().byCompany, {});
    });
  });
});

describe('Faults per company', () => {
  it('hangs one company while another is answered at once; clearing the fault releases it', async () => {
    await withSim({}, async (t) => {
      const set = await t.call('POST', '/__sim/company-faults', {
        as: null,
        json: { key: ACME.key, hang: true },
      });
      assert.deepEqual(
        [set.status, set.body],
        [200, { companyFaults: { [ACME.key]: { hang: true } }, hanging: {} }],
      );
      const hung = pending(t.get(REF));
      await until('ACME hangs', () => t.sim.hangingRequests()[ACME.key] === 1);

      const other = await t.get(REF, { as: OTHER });
      assert.equal(other.status, 200);
      assert.ok(other.elapsedMs < 500, `OTHER answered in ${other.elapsedMs} ms`);
      await delay(200);
      assert.equal(hung.settled, false, 'ACME is still waiting');
      const listed = await t.get('/__sim/company-faults', { as: null });
      assert.deepEqual(listed.body.hanging, { [ACME.key]: 1 });

      const cleared = await t.call('POST', '/__sim/company-faults', {
        as: null,
        json: { key: ACME.key, clear: true },
      });
      assert.deepEqual(cleared.body, { companyFaults: {}, hanging: {} });
      const outcome = await hung.outcome;
      assert.ok(outcome instanceof Error, 'released unanswered: the connection is destroyed');
      const stats = t.sim.requests();
      assert.equal(stats.byStatus.lost, 1);
      assert.deepEqual(stats.byCompany[ACME.key], {
        total: 1,
        byEndpoint: { 'reference-list': 1 },
      });
      assert.equal((await t.get(REF)).status, 200, 'ACME is answered again');
    });
  });

  it('releases hung requests when the simulator closes, processing none of them', async () => {
    const t = await startSim({ companyFaults: { [ACME.key]: { hang: true } } });
    let closed = false;
    try {
      assert.deepEqual(t.sim.companyFaults(), { [ACME.key]: { hang: true } });
      const check = pending(t.get('/price-check?option_id=opt_instant'));
      const booking = pending(
        t.call('POST', '/booking?option_id=tok', { json: { room_detail: [] } }),
      );
      await until('two hang', () => t.sim.hangingRequests()[ACME.key] === 2);
      const { reply } = await bookScenario(t, 'instant', {}, undefined, { as: OTHER });
      assert.equal(reply.status, 201, 'OTHER books meanwhile');
      const started = performance.now();
      await t.close();
      closed = true;
      for (const r of [check, booking]) assert.ok((await r.outcome) instanceof Error);
      assert.ok(performance.now() - started < 2_000);
      assert.deepEqual(
        t.sim.bookings().map((b) => b.companyKey),
        [OTHER.key],
        'a hung booking is never made',
      );
      assert.deepEqual(t.sim.hangingRequests(), {});
    } finally {
      if (!closed) await t.close();
    }
  });

  it('ends a hung request the client gives up on, and keeps built hangs across a reset', async () => {
    await withSim({ companyFaults: { [OTHER.key]: { hang: true } } }, async (t) => {
      const controller = new AbortController();
      const given = pending(
        request(`${t.url}${REF}`, {
          headers: { authorization: sign(OTHER, Date.now()) },
          signal: controller.signal,
        }).then(() => assert.fail('answered')),
      );
      await until('OTHER hangs', () => t.sim.hangingRequests()[OTHER.key] === 1);
      controller.abort();
      assert.ok((await given.outcome) instanceof Error);
      await until('its hang ended', () => t.sim.hangingRequests()[OTHER.key] === undefined);
      assert.equal(t.sim.requests().byStatus.lost, 1);

      const theirs = pending(t.get(REF, { as: OTHER }));
      t.sim.setCompanyFaults(ACME.key, { hang: true });
      const mine = pending(t.get(REF));
      await until('both hang', () => Object.keys(t.sim.hangingRequests()).length === 2);
      t.sim.reset();
      assert.ok((await mine.outcome) instanceof Error, 'a runtime hang is reset away');
      assert.deepEqual(t.sim.companyFaults(), { [OTHER.key]: { hang: true } });
      assert.deepEqual(t.sim.hangingRequests(), { [OTHER.key]: 1 }, 'a built hang stays');
      assert.equal(theirs.settled, false);
    });
  });

  it('answers 503 at one company’s error rate only, over the global one', async () => {
    await withSim({ errorRate: { 'reference-list': 1 } }, async (t) => {
      t.sim.setCompanyFaults(OTHER.key, { errorRate: {} });
      t.sim.setCompanyFaults(ACME.key, { errorRate: { availability: 1 } });
      assert.equal((await t.get(REF, { as: OTHER })).status, 200, 'OTHER is spared');
      assert.equal((await t.get(availabilityQuery([1001]), { as: OTHER })).status, 200);
      assert.equal((await t.get(REF)).status, 200, "ACME's own rates replace the global ones");
      const failed = await t.get(availabilityQuery([1001]));
      assert.deepEqual([failed.status, failed.body], [503, { detail: 'Service Unavailable' }]);
      assert.equal((await t.get(REF, { as: DORMANT })).status, 503, 'the rest: global');
      assert.equal(t.sim.requests().injectedErrors, 2);
      t.sim.setCompanyFaults(ACME.key, { errorRate: null });
      assert.equal((await t.get(REF)).status, 503, 'back to the global rate');
    });
  });

  it('adds latency to one company only', async () => {
    await withSim({}, async (t) => {
      t.sim.setCompanyFaults(ACME.key, { latency: { fixedMs: 300 } });
      const slow = await t.get(REF);
      const quick = await t.get(REF, { as: OTHER });
      assert.ok(slow.elapsedMs >= 290, `ACME ${slow.elapsedMs} ms`);
      assert.ok(quick.elapsedMs < 200, `OTHER ${quick.elapsedMs} ms`);
    });
  });

  it('rate-limits one company at its own rate, the others at the global one or none', async () => {
    const clock = manualClock();
    const codes = async (t: TestSim, as: typeof ACME | typeof OTHER, n: number) => {
      const out = [];
      for (let i = 0; i < n; i++)
        out.push((await t.get(REF, { as, signedAt: clock.now() })).status);
      return out;
    };
    await withSim(
      { now: clock.now, companyFaults: { [ACME.key]: { rateLimit: { perSecond: 1 } } } },
      async (t) => {
        assert.deepEqual(await codes(t, ACME, 3), [200, 429, 429]);
        assert.deepEqual(await codes(t, OTHER, 10), Array(10).fill(200), 'no global limit');
        assert.equal(t.sim.requests().rateLimited, 2);
        assert.deepEqual(t.sim.requests().byCompany[ACME.key]?.total, 3, '429s count');
        t.sim.setFaults({ rateLimit: { perSecond: 3 } });
        assert.deepEqual(await codes(t, OTHER, 4), [200, 200, 200, 429]);
        assert.deepEqual(await codes(t, ACME, 2), [429, 429], 'ACME keeps its own');
        t.sim.setCompanyFaults(ACME.key, { rateLimit: { perSecond: 5 } });
        assert.deepEqual(await codes(t, ACME, 6), [200, 200, 200, 200, 200, 429], 'a new bucket');
        assert.deepEqual(await codes(t, OTHER, 1), [429], 'OTHER untouched');
        clock.advance(1_000);
        assert.deepEqual(await codes(t, ACME, 6), [200, 200, 200, 200, 200, 429]);
        assert.deepEqual(await codes(t, OTHER, 4), [200, 200, 200, 429]);
        t.sim.setCompanyFaults(ACME.key, null);
        assert.deepEqual(await codes(t, ACME, 4), [200, 200, 200, 429], 'back to the global');
      },
    );
  });

  it('sets, lists and clears company faults over HTTP and refuses bad changes', async () => {
    await withSim({}, async (t) => {
      const post = (json: unknown) => t.call('POST', '/__sim/company-faults', { as: null, json });
      const set = await post({
        key: ACME.key,
        latency: { fixedMs: 1 },
        errorRate: { booking: 0.5 },
        rateLimit: { perSecond: 100, burst: 10 },
      });
      const acme = {
        latency: { fixedMs: 1 },
        errorRate: { booking: 0.5 },
        rateLimit: { perSecond: 100, burst: 10 },
      };
      assert.deepEqual(set.body, { companyFaults: { [ACME.key]: acme }, hanging: {} });
      const patched = await post({ key: ACME.key, latency: null, hang: false });
      assert.deepEqual(patched.body.companyFaults[ACME.key], {
        errorRate: { booking: 0.5 },
        rateLimit: { perSecond: 100, burst: 10 },
      });
      assert.deepEqual(t.sim.companyFaults(), patched.body.companyFaults);
      const state = await t.get('/__sim/state', { as: null });
      assert.deepEqual(state.body.companyFaults, patched.body.companyFaults);
      assert.deepEqual(state.body.faults, {}, 'the global faults are untouched');

      const unknown = await post({ key: 'ghost', hang: true });
      assert.deepEqual([unknown.status, unknown.body], [404, { detail: 'No company ghost' }]);
      for (const bad of [
        { hang: true },
        { key: ACME.key, hang: 'yes' },
        { key: ACME.key, errorRate: { booking: 2 } },
        { key: ACME.key, clear: true, hang: true },
        { key: ACME.key, nope: 1 },
        [],
      ]) {
        const r = await post(bad);
        assert.equal(r.status, 400, JSON.stringify(bad));
        assert.equal(typeof r.body.detail, 'string');
      }
      assert.equal((await t.call('DELETE', '/__sim/company-faults', { as: null })).status, 405);
      assert.deepEqual((await post({ key: ACME.key, clear: true })).body.companyFaults, {});
      assert.equal((await post({ key: 'ghost', clear: true })).status, 200, 'clearing is fine');
    });
  });

  it('refuses company faults of unknown companies or invalid ones when building', () => {
    const companies = [ACME];
    assert.throws(
      () => buildSimulator({ companies, companyFaults: { ghost: { hang: true } } }),
      /companyFaults names no company: ghost/,
    );
    assert.throws(
      () => buildSimulator({ companies, companyFaults: { [ACME.key]: { errorRate: { '*': 2 } } } }),
      RangeError,
    );
    assert.throws(
      () => buildSimulator({ companies, companyFaults: { [ACME.key]: { hang: 1 } } as never }),
      RangeError,
    );
    const sim = buildSimulator({
      companies,
      companyFaults: { [ACME.key]: { hang: false, latency: { fixedMs: 2 } } },
    });
    assert.deepEqual(sim.companyFaults(), { [ACME.key]: { latency: { fixedMs: 2 } } });
    assert.throws(() => sim.setCompanyFaults('ghost', { hang: true }), RangeError);
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildSimulator } from '../../tools/simulator';
import { createPrng } from '../../tools/simulator/prng';
import { sampleLatency } from '../../tools/simulator/faults';
import { OTHER, availabilityQuery, manualClock, withSim } from './helpers';

const REF = '/static_content_reference_list?language=en';

describe('Faults', () => {
  it('adds a fixed latency to every API request', async () => {
    await withSim({ latency: { fixedMs: 150 } }, async (t) => {
      const r = await t.get(REF);
      assert.equal(r.status, 200);
      assert.ok(r.elapsedMs >= 145, `${r.elapsedMs} ms`);
    });
  });

  it('draws latency from a uniform range or a normal distribution, from the seed', async () => {
    await withSim({ latency: { minMs: 40, maxMs: 80 } }, async (t) => {
      for (let i = 0; i < 5; i++) {
        const r = await t.get(REF);
        assert.ok(r.elapsedMs >= 38 && r.elapsedMs < 400, `${r.elapsedMs} ms`);
      }
    });
    const draw = (seed: number) => {
      const prng = createPrng(seed);
      return Array.from({ length: 2000 }, () => sampleLatency({ meanMs: 100, stddevMs: 20 }, prng));
    };
    const samples = draw(7);
    const mean = samples.reduce((a, b) => a + b, 0) / samples.length;
    const sd = Math.sqrt(samples.reduce((a, b) => a + (b - mean) ** 2, 0) / samples.length);
    assert.ok(Math.abs(mean - 100) < 3, `mean ${mean}`);
    assert.ok(Math.abs(sd - 20) < 2, `sd ${sd}`);
    assert.ok(samples.every((s) => s >= 0));
    assert.deepEqual(draw(7), samples, 'same seed, same draws');
    assert.notDeepEqual(draw(8), samples);
  });

  it('answers 503 before anything else at the configured error rate, per endpoint', async () => {
    await withSim({ errorRate: { 'price-check': 1 } }, async (t) => {
      const unsigned = await t.get('/price-check?option_id=x', { as: null });
      assert.deepEqual([unsigned.status, unsigned.body], [503, { detail: 'Service Unavailable' }]);
      assert.equal((await t.get(REF)).status, 200, 'other endpoints are unaffected');
      assert.equal(t.sim.requests().injectedErrors, 1);
    });
    await withSim({ errorRate: { '*': 1, 'reference-list': 0 } }, async (t) => {
      assert.equal((await t.get(REF)).status, 200);
      assert.equal((await t.get(availabilityQuery([1001]))).status, 503);
    });
  });

  it('injects the same errors for the same seed and different ones for another seed', async () => {
    const run = (seed: number) =>
      withSim({ seed, errorRate: { 'reference-list': 0.5 } }, async (t) => {
        const codes = [];
        for (let i = 0; i < 40; i++) codes.push((await t.get(REF)).status);
        return codes;
      });
    const a = await run(11);
    assert.deepEqual(await run(11), a);
    assert.notDeepEqual(await run(12), a);
    const failures = a.filter((c) => c === 503).length;
    assert.ok(failures > 5 && failures < 35, `${failures} of 40 failed`);
  });

  it('limits each company to its rate with 429 and Retry-After', async () => {
    const clock = manualClock();
    await withSim({ now: clock.now, rateLimit: { perSecond: 3 } }, async (t) => {
      const codes = [];
      for (let i = 0; i < 4; i++) codes.push((await t.get(REF, { signedAt: clock.now() })).status);
      assert.deepEqual(codes, [200, 200, 200, 429]);
      const limited = await t.get(REF, { signedAt: clock.now() });
      assert.deepEqual(limited.body, { detail: 'Too Many Requests' });
      assert.equal(limited.headers['retry-after'], '1');
      assert.equal(
        (await t.get(REF, { as: OTHER, signedAt: clock.now() })).status,
        200,
        'per company',
      );
      clock.advance(1_000);
      assert.equal((await t.get(REF, { signedAt: clock.now() })).status, 200, 'refilled');
      assert.equal(t.sim.requests().rateLimited, 2);
    });
  });

  it('changes latency, error rates and the rate limit at runtime, and clears them with null', async () => {
    await withSim({}, async (t) => {
      t.sim.setFaults({ errorRate: { 'reference-list': 1 } });
      assert.equal((await t.get(REF)).status, 503);
      t.sim.setFaults({ latency: { fixedMs: 120 } });
      assert.deepEqual(t.sim.faults(), {
        errorRate: { 'reference-list': 1 },
        latency: { fixedMs: 120 },
      });
      t.sim.setFaults({ errorRate: null });
      const slow = await t.get(REF);
      assert.equal(slow.status, 200);
      assert.ok(slow.elapsedMs >= 115, `${slow.elapsedMs} ms`);
      t.sim.setFaults({ latency: null, rateLimit: { perSecond: 1, burst: 1 } });
      assert.equal((await t.get(REF)).status, 200);
      assert.equal((await t.get(REF)).status, 429);
      t.sim.setFaults({ rateLimit: null });
      assert.equal((await t.get(REF)).status, 200);
      assert.deepEqual(t.sim.faults(), {});
    });
  });

  it('rejects invalid options and unknown option keys when building', () => {
    assert.throws(() => buildSimulator({ errorRate: { booking: 2 } }), RangeError);
    assert.throws(() => buildSimulator({ latency: { fixedMs: -1 } }), RangeError);
    assert.throws(() => buildSimulator({ latency: { minMs: 50, maxMs: 10 } }), RangeError);
    assert.throws(() => buildSimulator({ rateLimit: { perSecond: 0 } }), RangeError);
    assert.throws(
      () => buildSimulator({ companies: [{ key: 'a,b', secret: 's', active: true }] }),
      RangeError,
    );
    assert.throws(() => buildSimulator({ latncy: { fixedMs: 1 } } as never), /latncy/);
    assert.throws(() => buildSimulator({ scenarioParams: { 'price-down': 95 } }), /price-down/);
    assert.throws(
      () => buildSimulator({ scenarioParams: { 'confirm-after-polls': 1.5 } }),
      RangeError,
    );
  });
});

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { sign } from '../../src/hotel-api/signing';
import { HOSTILE_KINDS, type HostileRule } from '../../tools/simulator';
import { createPrng, hashString } from '../../tools/simulator/prng';
import { scenarioOptionId } from '../../tools/simulator/scenarios';
import type { TestSim } from './helpers';
import { ACME, bookScenario, priceCheck, withSim } from './helpers';

const REF = '/static_content_reference_list?language=en';

/** A seed whose first draw among `n` choices is `index` (hostile.ts draws its status first). */
function seedDrawing(index: number, n: number): number {
  for (let seed = 0; ; seed++)
    if (createPrng(hashString(`${seed}:0`)).int(n) === index) return seed;
}

interface Raw {
  readonly bytes: number;
  readonly end: 'complete' | 'broken' | 'cut by the test';
  readonly text: string;
}

/** A raw signed GET (the reference list by default): what arrived within `ms`, and how it ended. */
function rawGet(t: TestSim, ms: number, path = REF): Promise<Raw> {
  return new Promise((resolve) => {
    let bytes = 0;
    const kept: Buffer[] = [];
    const done = (end: Raw['end']) => resolve({ bytes, end, text: Buffer.concat(kept).toString() });
    const headers = { authorization: sign(ACME, Date.now()) };
    const req = request(new URL(`${t.url}${path}`), { headers }, (res) => {
      res.on('data', (c: Buffer) => {
        bytes += c.length;
        if (bytes < 1_000_000) kept.push(c);
      });
      res.on('end', () => done('complete'));
      res.on('error', () => done('broken'));
    });
    req.on('error', () => done('broken'));
    setTimeout(() => {
      req.destroy();
      done('cut by the test');
    }, ms);
    req.end();
  });
}

describe('Hostile mode', () => {
  it('spoils only its endpoint, its count of answers, and requests holding its text', async () => {
    const instant = scenarioOptionId('instant');
    const rule: HostileRule = {
      kind: 'truncated-json',
      endpoint: 'price-check',
      times: 1,
      when: 'opt_instant',
    };
    await withSim({ hostile: [rule] }, async (t) => {
      assert.equal((await t.get(REF)).status, 200, 'another endpoint');
      const other = await priceCheck(t, scenarioOptionId('price-up'));
      assert.equal(typeof other.body.booking_id, 'string', 'another option');
      const spoiled = await rawGet(t, 5_000, `/price-check?option_id=${instant}`);
      assert.equal(spoiled.end, 'complete');
      assert.throws(() => JSON.parse(spoiled.text) as unknown);
      assert.equal(typeof (await priceCheck(t, instant)).body.booking_id, 'string', 'used up');
      assert.deepEqual(t.sim.hostileRules(), []);
      const [applied] = t.sim.hostileApplied().last;
      assert.deepEqual(
        [applied?.kind, applied?.endpoint, applied?.status, applied?.processed],
        ['truncated-json', 'price-check', 200, true],
      );
    });
  });

  it('draws every choice from its seed: the same rule spoils the same way', async () => {
    const texts = async (seed: number) =>
      withSim({}, async (t) => {
        const out: string[] = [];
        for (const kind of ['truncated-json', 'malformed-json', 'missing-field'] as const) {
          t.sim.addHostileRule({ kind, seed, times: 1 });
          out.push((await rawGet(t, 5_000)).text);
        }
        return out;
      });
    const once = await texts(5);
    assert.deepEqual(await texts(5), once);
    assert.notDeepEqual(await texts(6), once);
  });

  it('is switched on and off over HTTP, and refuses a rule it does not know with 400', async () => {
    await withSim({}, async (t) => {
      const rule = { kind: 'html-error', endpoint: 'reference-list', seed: 3 };
      const added = await t.call('POST', '/__sim/hostile', { json: rule });
      assert.deepEqual(added.body, { rules: [rule] });
      assert.equal((await t.get(REF)).headers['content-type'], 'text/html');
      const listed = await t.get('/__sim/hostile');
      assert.equal(listed.body.applied.total, 1);
      assert.equal(listed.body.applied.last[0].kind, 'html-error');
      const bad = await t.call('POST', '/__sim/hostile', { json: { kind: 'polite' } });
      assert.equal(bad.status, 400);
      const cleared = await t.call('POST', '/__sim/hostile', { json: { clear: true } });
      assert.deepEqual(cleared.body, { rules: [] });
      assert.equal((await t.get(REF)).status, 200);
    });
  });

  it('answers a refusal before the booking is made; any other spoiled booking is made', async () => {
    // echo-request draws its status among 400, 401, 403, 409, 422, 500, 502: 422 and 500.
    const refusal = seedDrawing(4, 7);
    const failure = seedDrawing(5, 7);
    await withSim({}, async (t) => {
      t.sim.addHostileRule({ kind: 'echo-request', endpoint: 'booking', seed: refusal, times: 1 });
      assert.equal((await bookScenario(t, 'instant')).reply.status, 422);
      assert.equal(t.sim.bookings().length, 0);
      t.sim.addHostileRule({ kind: 'echo-request', endpoint: 'booking', seed: failure, times: 1 });
      assert.equal((await bookScenario(t, 'instant')).reply.status, 500);
      assert.equal(t.sim.bookings().length, 1);
      const applied = t.sim.hostileApplied().last.map((a) => [a.status, a.processed]);
      assert.deepEqual(applied, [
        [422, false],
        [500, true],
      ]);
    });
  });

  it('streams a body over 10 MiB without holding it, trickles a byte a second, resets mid-answer', async () => {
    await withSim({}, async (t) => {
      t.sim.addHostileRule({ kind: 'huge-body', endpoint: 'reference-list', times: 1 });
      const huge = await rawGet(t, 10_000);
      assert.equal(huge.end, 'complete');
      assert.ok(huge.bytes > 10 * 1024 * 1024, `${huge.bytes} bytes`);
      t.sim.addHostileRule({ kind: 'trickle', endpoint: 'reference-list', times: 1 });
      const slow = await rawGet(t, 2_500);
      assert.equal(slow.end, 'cut by the test');
      assert.ok(slow.bytes <= 3, `${slow.bytes} bytes in 2.5 s`);
      for (let seed = 0; seed < 6; seed++) {
        t.sim.addHostileRule({
          kind: 'reset-mid-body',
          endpoint: 'reference-list',
          seed,
          times: 1,
        });
        const cut = await rawGet(t, 5_000);
        const { variant } = t.sim.hostileApplied().last.at(-1)!;
        assert.ok(cut.end === 'broken' || variant.includes('close-delimited'), variant);
      }
    });
  });

  it('keeps the rules it was built with across a reset, and forgets the ones added', async () => {
    await withSim({ hostile: [{ kind: 'error-body', endpoint: 'retrieve' }] }, async (t) => {
      t.sim.addHostileRule({ kind: 'trickle' });
      t.sim.reset();
      assert.deepEqual(t.sim.hostileRules(), [{ kind: 'error-body', endpoint: 'retrieve' }]);
      assert.equal((await t.get(REF)).status, 200);
    });
  });

  it('is documented kind by kind in docs/simulator.md', () => {
    const doc = readFileSync(join(__dirname, '..', '..', 'docs', 'simulator.md'), 'utf8');
    const section = doc.slice(doc.indexOf('## Hostile mode'));
    const listed = [...section.matchAll(/^\| `([a-z-]+)` \|/gm)].map((m) => m[1]);
    assert.deepEqual(listed, [...HOSTILE_KINDS]);
  });
});

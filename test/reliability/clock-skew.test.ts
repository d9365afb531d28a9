/**
 * Clock skew against the supplier's 5-minute signature window. At the client
 * level (HotelApiClient with a shifted `now`) and at the workflow level (the simulator's clock
 * shifted, the worker subprocess with HOTEL_API_CLOCK_CORRECTION on or off): ±299 s works, ±301 s
 * is reported as CLOCK_SKEW, corrected when correction is on, and never retried blindly.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { formatCounts, waitForSettled } from '../../tools/chaos/audit';
import { mixInput, orderIdFor } from '../../tools/chaos/booking-mix';
import { startChaosStack, type ChaosStack } from '../../tools/chaos/chaos-stack';
import { HotelApiClient, HotelApiError } from '../../src/hotel-api';
import { buildSimulator, scenarioOptionId, type Simulator } from '../../tools/simulator';
import { COMPANY, hotelApiConfig } from '../helpers/booking-stack';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A price check that the supplier must refuse, signed just after a second starts. The signature
 * carries whole seconds and the supplier compares them with its own whole seconds when the
 * request arrives, so a clock 301 s ahead looks 300 s ahead (inside the window) once the request
 * takes the rest of the second to get there: that can happen on a loaded machine. An acceptance
 * is tolerated only when the call took that long; the next attempt must then be refused.
 */
async function refused(api: HotelApiClient): Promise<HotelApiError> {
  for (let attempt = 1; attempt <= 3; attempt++) {
    await sleep(1000 - (Date.now() % 1000));
    const started = Date.now();
    try {
      await api.priceCheck({ optionId: scenarioOptionId('instant') });
    } catch (err) {
      assert.ok(err instanceof HotelApiError, String(err));
      return err;
    }
    const took = Date.now() - started;
    const slack = 1000 - (started % 1000);
    assert.ok(
      took >= slack,
      `accepted in ${took} ms: only a delay of ${slack} ms or more explains it`,
    );
  }
  assert.fail('accepted three times: the skewed clock was not refused');
}

const workDir = () => mkdtempSync(join(process.env.TEST_WORK_DIR ?? tmpdir(), 'skew-'));

describe('clock skew at the client level', { concurrency: true }, () => {
  let sim: Simulator;
  let origin: string;
  before(async () => {
    sim = buildSimulator({ companies: [{ ...COMPANY, active: true }], inspection: true });
    origin = (await sim.listen(0, '127.0.0.1')).origin;
  });
  after(async () => {
    await sim?.close();
  });

  const client = (offsetS: number, clockCorrection: boolean) =>
    new HotelApiClient(hotelApiConfig(origin, { clockCorrection }), {
      now: () => Date.now() + offsetS * 1000,
    });

  for (const offsetS of [299, -299]) {
    it(`a worker clock ${offsetS > 0 ? '+' : ''}${offsetS} s off is inside the window: the call succeeds`, async () => {
      const api = client(offsetS, false);
      try {
        await sleep(1000 - (Date.now() % 1000)); // see refused(): whole seconds are compared
        const r = await api.priceCheck({ optionId: scenarioOptionId('instant') });
        assert.equal(r.status, 'AVAILABLE');
      } finally {
        await api.close();
      }
    });
  }

  for (const offsetS of [301, -301]) {
    it(`a worker clock ${offsetS > 0 ? '+' : ''}${offsetS} s off fails CLOCK_SKEW, not retryable without correction`, async () => {
      const api = client(offsetS, false);
      try {
        for (let attempt = 1; attempt <= 2; attempt++) {
          const err = await refused(api);
          assert.equal(err.code, 'CLOCK_SKEW', `attempt ${attempt}`);
          assert.equal(err.retryable, false, 'retrying cannot help without correction');
          assert.equal(err.ambiguous, false, 'a 401 proves nothing was processed');
          assert.ok(
            Math.abs((err.clockOffsetMs ?? 0) + offsetS * 1000) < 2_000,
            `offset ${err.clockOffsetMs} ms measured`,
          );
        }
      } finally {
        await api.close();
      }
    });

    it(`a worker clock ${offsetS > 0 ? '+' : ''}${offsetS} s off fails CLOCK_SKEW once, then is corrected`, async () => {
      const api = client(offsetS, true);
      try {
        const err = await refused(api);
        assert.equal(err.code, 'CLOCK_SKEW');
        assert.equal(err.retryable, true, 'the next attempt signs with the supplier clock');
        const r = await api.priceCheck({ optionId: scenarioOptionId('instant') });
        assert.equal(r.status, 'AVAILABLE');
      } finally {
        await api.close();
      }
    });
  }
});

describe('clock skew at the workflow level', { concurrency: true }, () => {
  const stacks: ChaosStack[] = [];
  after(async () => {
    await Promise.all(stacks.map((s) => s.close()));
  });

  async function bookWithSkew(s: ChaosStack, skewS: number, tag: string) {
    s.sim.setClockSkew(skewS * 1000);
    const before = s.sim.requests();
    const input = mixInput(
      { scenario: 'instant', weight: 1, expect: 'CONFIRMED' },
      orderIdFor(`skew-${tag}-${Date.now().toString(36)}`, Math.abs(skewS)),
    );
    await s.bookings.startBooking(input);
    const statuses = await waitForSettled(s.client, [input.orderId], { timeoutMs: 40_000 });
    const st = statuses.get(input.orderId);
    assert.equal(st?.kind, 'final');
    const after = s.sim.requests();
    const priceChecks =
      (after.byEndpoint['price-check']?.total ?? 0) -
      (before.byEndpoint['price-check']?.total ?? 0);
    // Refusals of this booking's price checks only: the guards of orders confirmed earlier in
    // this stack read their bookings too, and the skew refuses those reads as well.
    const refused =
      (after.byEndpoint['price-check']?.byStatus['401'] ?? 0) -
      (before.byEndpoint['price-check']?.byStatus['401'] ?? 0);
    return { result: st.kind === 'final' ? st.result : undefined, priceChecks, refused };
  }

  it('with HOTEL_API_CLOCK_CORRECTION on, a supplier clock ±301 s off still confirms', async () => {
    const s = await startChaosStack({
      name: 'skew-on',
      workDir: workDir(),
      workerEnv: { HOTEL_API_CLOCK_CORRECTION: 'true' },
    });
    stacks.push(s);
    const figures: string[] = [];
    for (const skew of [301, -301]) {
      const r = await bookWithSkew(s, skew, 'on');
      figures.push(
        `${skew} s: ${r.result?.outcome} (price checks ${r.priceChecks}, refused ${r.refused})`,
      );
      assert.equal(r.result?.outcome, 'CONFIRMED', r.result?.reason);
      assert.ok(r.priceChecks <= 2, `price check sent ${r.priceChecks} times`);
      assert.ok(r.refused <= 1, 'one refused call, then the corrected clock');
    }
    console.log(`clock correction on: ${figures.join('; ')}`);
  });

  it('with HOTEL_API_CLOCK_CORRECTION off, ±299 s confirms and ±301 s ends FAILED naming CLOCK_SKEW after one price check', async () => {
    const s = await startChaosStack({
      name: 'skew-off',
      workDir: workDir(),
      workerEnv: { HOTEL_API_CLOCK_CORRECTION: 'false' },
    });
    stacks.push(s);
    const figures: Record<string, number> = {};
    for (const skew of [299, -299]) {
      const r = await bookWithSkew(s, skew, 'off');
      assert.equal(r.result?.outcome, 'CONFIRMED', r.result?.reason);
      assert.equal(r.refused, 0);
      figures[`${skew}s:CONFIRMED`] = r.priceChecks;
    }
    for (const skew of [301, -301]) {
      const r = await bookWithSkew(s, skew, 'off');
      assert.equal(r.result?.outcome, 'FAILED');
      assert.equal(r.result?.error?.code, 'CLOCK_SKEW', r.result?.reason);
      assert.match(r.result?.reason ?? '', /CLOCK_SKEW/);
      assert.equal(r.priceChecks, 1, 'attempted once: no blind retries');
      assert.equal(r.refused, 1);
      figures[`${skew}s:${r.result?.outcome}/${r.result?.error?.code}`] = r.priceChecks;
    }
    console.log(`clock correction off, price checks per booking: ${formatCounts(figures)}`);
  });
});

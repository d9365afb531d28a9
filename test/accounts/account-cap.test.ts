/**
 * An account's rate cap holds across the fleet: three worker processes (`npm run worker`, as
 * deployed), each with the account in SUPPLIER_ACCOUNTS and its `maxCallsPerSecond`; the
 * simulator counts that account's calls (its company's) as they arrive. The cap is the account's
 * task queue's activity rate, which the Temporal server enforces for every worker together, with
 * one partition per queue (tools/temporal-server/dev-server.ts): over any T seconds at most
 * cap·T + cap + 1 (the limiter's one-second burst), as test/ops/rate-limit.test.ts measures for
 * the default account's cap.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { bookingInput } from '../helpers/booking-stack';
import {
  OPS_COMPANY,
  startOpsStack,
  startWorkerProcess,
  type OpsStack,
  type WorkerProcess,
} from '../ops/worker-process';

const CAPPED = { key: 'capped-key', secret: 'capped-secret-0123456789' } as const;
const CAP_PER_SECOND = 5;
const WORKERS = 3;
const BOOKINGS = 40;
/** The server's limiter lets a second's worth through at once, and one more. */
const BURST = CAP_PER_SECOND + 1;
/** A window at the supplier may hold what the server dispatched over one more second. */
const DELIVERY_SPREAD_S = 1;
const SAMPLE_MS = 50;

describe("an account's rate cap, across the fleet", () => {
  let stack: OpsStack | undefined;
  const workers: WorkerProcess[] = [];
  after(async () => {
    for (const w of workers) w.kill();
    await stack?.close();
  });

  it(`three workers together call the account at no more than its ${CAP_PER_SECOND}/s (+5 %) beyond the server's burst, and the default account not at all`, async () => {
    stack = await startOpsStack('account-cap', {
      simulator: {
        companies: [
          { ...OPS_COMPANY, active: true },
          { ...CAPPED, active: true },
        ],
      },
    });
    const s = stack;
    const accounts = JSON.stringify([
      { id: 'capped', baseUrl: s.simUrl, ...CAPPED, maxCallsPerSecond: CAP_PER_SECOND },
    ]);
    for (let i = 0; i < WORKERS; i++) {
      workers.push(
        await startWorkerProcess({
          taskQueue: s.taskQueue,
          env: { ...s.workerEnv, SUPPLIER_ACCOUNTS: accounts },
        }),
      );
    }
    await Promise.all(workers.map((w) => w.waitReady()));

    const calls = () => s.sim.requests().byCompany[CAPPED.key]?.total ?? 0;
    const samples: { at: number; calls: number }[] = [];
    const sampler = setInterval(
      () => samples.push({ at: performance.now(), calls: calls() }),
      SAMPLE_MS,
    );
    const inputs = Array.from({ length: BOOKINGS }, () =>
      bookingInput('instant', { supplier: 'capped' }),
    );
    try {
      const started = await Promise.all(inputs.map((i) => s.bookings.startBooking(i)));
      const results = await Promise.all(started.map((b) => s.bookings.result(b)));
      for (const r of results) assert.equal(r.outcome, 'CONFIRMED', r.reason);
    } finally {
      clearInterval(sampler);
    }
    samples.push({ at: performance.now(), calls: calls() });

    const total = calls();
    assert.ok(total >= BOOKINGS * 2, `${total} calls (a price check and a booking each)`);
    assert.equal(s.sim.requests().byCompany[OPS_COMPANY.key]?.total ?? 0, 0, 'none to default');

    // Any window of T seconds: the server's bound, give or take the delivery spread.
    for (const seconds of [1, 2, 4]) {
      let worst = 0;
      for (const end of samples) {
        const start = samples.findLast((x) => x.at <= end.at - seconds * 1000);
        if (start) worst = Math.max(worst, end.calls - start.calls);
      }
      assert.ok(
        worst <= CAP_PER_SECOND * (seconds + DELIVERY_SPREAD_S) + BURST,
        `${worst} calls in ${seconds} s at the supplier with ${WORKERS} workers (cap ${CAP_PER_SECOND}/s + burst ${BURST})`,
      );
    }
    // The whole run: beyond the one burst, the account's calls came at no more than its cap +5 %.
    const first = samples.find((x) => x.calls > 0)!;
    const idle = samples.findLast((x) => x.at < first.at) ?? first;
    const last = samples.at(-1)!;
    const seconds = (last.at - idle.at) / 1000;
    const steady = (total - BURST) / seconds;
    assert.ok(
      steady <= CAP_PER_SECOND * 1.05,
      `${total} calls in ${seconds.toFixed(1)} s: ${steady.toFixed(2)}/s beyond the burst`,
    );
    // A cap, not a stall.
    assert.ok(total / seconds >= CAP_PER_SECOND * 0.5, `${(total / seconds).toFixed(2)} calls/s`);
  });
});

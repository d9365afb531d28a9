/**
 * The fleet-wide supplier rate cap (SUPPLIER_MAX_CALLS_PER_SECOND → the task queue's activity
 * rate, enforced by the Temporal server) measured where it matters: at the supplier.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { tsToMs } from '@temporalio/common/lib/time';
import { bookingWorkflowId } from '../../src/shared/booking-values';
import { bookingInput } from '../helpers/booking-stack';
import {
  startOpsStack,
  startWorkerProcess,
  type OpsStack,
  type WorkerProcess,
} from './worker-process';

const CAP_PER_SECOND = 5;
/** A worker's own budget of local reads in the second test. */
const LOCAL_PER_SECOND = 2;
const BOOKINGS = 30;
/**
 * What the server lets through beyond the rate. The server's task-queue matcher
 * (`matching.useNewMatcher`, on for priorities) paces each partition with a GCRA limiter of
 * rate cap / partitions and a 1 s burst (service/matching/ratelimit_manager.go, matcher_data.go),
 * and the product's servers run one partition (tools/temporal-server/dev-server.ts,
 * deploy/temporal/dynamicconfig): over any T seconds the server dispatches at most
 * cap·T + cap·1 s + 1 activities, and no more.
 */
const BURST = CAP_PER_SECOND + 1;
/**
 * The supplier sees those calls a little later, each after its own delivery delay (the worker's
 * event loop, the socket, this process's event loop, where the simulator runs): a window of
 * T seconds at the supplier may hold what the server dispatched over T + 1 seconds.
 */
const DELIVERY_SPREAD_S = 1;
/**
 * The server's own times are its started events, recorded when history writes the start, a little
 * after the limiter let the task through: an interval of T seconds between two recorded starts
 * may hold what the limiter let through over T + this (one token at the cap). At the exact bound,
 * without it, 61 activities recorded in just under 11 s failed "the server started 61 activities in
 * 11.0 s" (the bound, 5 · T + 6, is 61 only at T = 11 s) on a fresh-clone run.
 */
const RECORDING_JITTER_S = 1 / CAP_PER_SECOND;
/** How often the simulator's request count is sampled, ms. */
const SAMPLE_MS = 50;

describe('supplier rate cap', () => {
  let stack: OpsStack | undefined;
  let worker: WorkerProcess | undefined;
  after(async () => {
    worker?.kill();
    await stack?.close();
  });

  it(`the rate cap holds: ${BOOKINGS} bookings reach the supplier at no more than ${CAP_PER_SECOND} calls/s, give or take the server's burst`, async () => {
    stack = await startOpsStack('rate-limit');
    const { scheduledPriceChecks } = await bookAtTheCap(stack, undefined);
    assert.equal(scheduledPriceChecks, BOOKINGS, 'with a cap and no local budget, all scheduled');
  });

  it(`with a local budget of ${LOCAL_PER_SECOND}/s per worker: at most the cap plus that, and reads over the budget go under the cap`, async () => {
    const own = await startOpsStack('rate-limit-local');
    try {
      const { scheduledPriceChecks } = await bookAtTheCap(own, LOCAL_PER_SECOND);
      // All at once: the budget's burst and rate take some, the rest go under the cap.
      assert.ok(scheduledPriceChecks < BOOKINGS, 'some price checks were made locally');
      assert.ok(scheduledPriceChecks > 0, 'the ones over the budget were scheduled');
    } finally {
      await own.close();
    }
  });

  /**
   * Books {@link BOOKINGS} orders at once through a worker process with the cap (and `local`
   * reads per second of its own), and checks the supplier and the server saw no more than the
   * cap's bound plus the local budget's.
   */
  async function bookAtTheCap(s: OpsStack, local: number | undefined) {
    worker?.kill();
    worker = await startWorkerProcess({
      taskQueue: s.taskQueue,
      env: {
        ...s.workerEnv,
        SUPPLIER_MAX_CALLS_PER_SECOND: String(CAP_PER_SECOND),
        ...(local !== undefined ? { SUPPLIER_LOCAL_CALLS_PER_SECOND: String(local) } : {}),
      },
    });
    await worker.waitReady();
    /** What the worker may add outside the cap over `seconds`: its budget, one second of burst. */
    const localBound = (seconds: number) => (local ?? 0) * (seconds + 1 + DELIVERY_SPREAD_S);

    const samples: { at: number; total: number; byEndpoint: Record<string, number> }[] = [];
    const sample = () => {
      const r = s.sim.requests();
      const byEndpoint = Object.fromEntries(
        Object.entries(r.byEndpoint).map(([endpoint, e]) => [endpoint, e.total]),
      );
      samples.push({ at: performance.now(), total: r.total, byEndpoint });
    };
    const sampler = setInterval(sample, SAMPLE_MS);
    const inputs = Array.from({ length: BOOKINGS }, () => bookingInput('instant'));
    try {
      await Promise.all(inputs.map((i) => s.bookings.startBooking(i)));
      const results = await Promise.all(inputs.map((i) => s.bookings.result(i.orderId)));
      assert.ok(results.every((r) => r.outcome === 'CONFIRMED'));
    } finally {
      clearInterval(sampler);
    }
    sample();

    const last = samples.at(-1)!;
    const calls = last.total;
    assert.ok(calls >= BOOKINGS * 2, `${calls} supplier calls (price check and booking each)`);

    // The most calls the supplier saw in any window of `seconds`, sliding by one sample, in all
    // and per endpoint (which names the culprit when the bound is broken).
    const worstWindow = (seconds: number, count: (x: (typeof samples)[number]) => number) => {
      let worst = 0;
      for (const end of samples) {
        const start = samples.findLast((x) => x.at <= end.at - seconds * 1000);
        if (start) worst = Math.max(worst, count(end) - count(start));
      }
      return worst;
    };
    // The server's own view, for the message: when it dispatched each activity (its started
    // event). A burst at the supplier with started times spread at the cap is this process's
    // event loop (the simulator runs here) handling queued requests late, not the server.
    const started: number[] = [];
    // The bookings, which guard their booking in the same workflow once it is confirmed.
    for (const workflowId of inputs.map((i) => bookingWorkflowId(i.orderId))) {
      const history = await s.temporal.client.workflow.getHandle(workflowId).fetchHistory();
      for (const e of history.events ?? []) {
        if (e.activityTaskStartedEventAttributes && e.eventTime) started.push(tsToMs(e.eventTime));
      }
    }
    started.sort((a, b) => a - b);
    const serverWorst = (seconds: number) => {
      let worst = 0;
      for (let i = 0, j = 0; j < started.length; j++) {
        while (started[j]! - started[i]! >= seconds * 1000) i++;
        worst = Math.max(worst, j - i + 1);
      }
      return worst;
    };
    const endpoints = Object.keys(last.byEndpoint);
    for (const seconds of [1, 2, 4]) {
      // The server's dispatches: exactly its limiter's bound.
      assert.ok(
        serverWorst(seconds) <= CAP_PER_SECOND * (seconds + RECORDING_JITTER_S) + BURST,
        `the server started ${serverWorst(seconds)} activities in ${seconds} s (cap ${CAP_PER_SECOND}/s + burst ${BURST}, recording jitter ${RECORDING_JITTER_S} s)`,
      );
      // What the supplier saw: the same bound, give or take the delivery spread.
      const worst = worstWindow(seconds, (x) => x.total);
      const perEndpoint = endpoints
        .map((e) => `${e} ${worstWindow(seconds, (x) => x.byEndpoint[e] ?? 0)}`)
        .join(', ');
      assert.ok(
        worst <= CAP_PER_SECOND * (seconds + DELIVERY_SPREAD_S) + BURST + localBound(seconds),
        `${worst} calls in ${seconds} s at the supplier (cap ${CAP_PER_SECOND}/s + burst ${BURST}, delivery spread ${DELIVERY_SPREAD_S} s); worst per endpoint: ${perEndpoint}; the server started at most ${serverWorst(seconds)} activities in ${seconds} s`,
      );
    }
    // Over the whole run, the same bounds: at the server from its first dispatch to its last…
    const serverSeconds = (started.at(-1)! - started[0]!) / 1000;
    assert.ok(
      started.length <= CAP_PER_SECOND * (serverSeconds + RECORDING_JITTER_S) + BURST,
      `the server started ${started.length} activities in ${serverSeconds.toFixed(3)} s`,
    );
    // …and at the supplier from the last sample before any call.
    const idle = samples.findLast((x) => x.total === 0) ?? samples[0]!;
    const seconds = (last.at - idle.at) / 1000;
    const mean = calls / seconds;
    assert.ok(
      calls <= CAP_PER_SECOND * (seconds + DELIVERY_SPREAD_S) + BURST + localBound(seconds),
      `${calls} calls in ${seconds.toFixed(1)} s at the supplier (mean ${mean.toFixed(2)}/s)`,
    );
    // …and the cap is a cap, not a stall: the work still flows at a good part of it.
    assert.ok(mean >= CAP_PER_SECOND * 0.4, `mean ${mean.toFixed(2)} calls/s`);
    // The server dispatched the scheduled calls; the rest were local reads.
    const scheduledPriceChecks = await scheduledOf(s, inputs, 'priceCheck');
    return { scheduledPriceChecks };
  }
});

/** How many activities of `type` the bookings scheduled. */
async function scheduledOf(s: OpsStack, inputs: readonly { orderId: string }[], type: string) {
  let n = 0;
  for (const i of inputs) {
    const history = await s.temporal.client.workflow
      .getHandle(bookingWorkflowId(i.orderId))
      .fetchHistory();
    for (const e of history.events ?? [])
      if (e.activityTaskScheduledEventAttributes?.activityType?.name === type) n++;
  }
  return n;
}

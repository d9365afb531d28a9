/**
 * An unknown count is never a zero. A real worker process counts bookings in a real Temporal
 * dev server's visibility; Prometheus (the Debian package's binary, with the production rules)
 * scrapes it once a second. While Temporal answers, the fleet-wide gauges read their real zeros;
 * once the server is gone, counting fails and those gauges must have no sample at all — a 0 would
 * tell the critical HotelCancellationStillActive "none" where the truth is "unknown" — and
 * HotelBookingCountsUnknown, which reads their absence, goes pending while the worker is up.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { METRIC_NAMES } from '../../src/observability/metrics';
import { startDevServer, type DevServer } from '../../tools/temporal-server/dev-server';
import { findPrometheus } from '../../tools/temporal-server/prometheus-binaries';
import {
  prometheusAlerts,
  startPrometheus,
  type RunningPrometheus,
} from '../../tools/temporal-server/prometheus-server';
import { eventually } from '../helpers/booking-stack';
import {
  startOpsStack,
  startWorkerProcess,
  type OpsStack,
  type WorkerProcess,
} from './worker-process';

/** The gauges counted from visibility, each one series per label set (unlabelled: one). */
const FLEET_GAUGES = [
  METRIC_NAMES.cancellationsUnconfirmed,
  METRIC_NAMES.reconfirmationFlags,
  METRIC_NAMES.orderEventsFailing,
  METRIC_NAMES.bookingsWaiting,
  METRIC_NAMES.bookingsWaitingOldest,
  METRIC_NAMES.bookingsByOutcome,
  METRIC_NAMES.cancellationsByOutcome,
];

/** The sample lines of `name` in a text exposition (`name 0`, `name{…} 3`). */
const samples = (exposition: string, name: string) =>
  exposition.split('\n').filter((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`));

async function query(url: string, promql: string): Promise<{ value: [number, string] }[]> {
  const res = await fetch(`${url}/api/v1/query?query=${encodeURIComponent(promql)}`);
  const body = (await res.json()) as { data: { result: { value: [number, string] }[] } };
  return body.data.result;
}

describe('fleet-wide counts when visibility cannot be counted', async () => {
  const binaries = await findPrometheus();
  if (!binaries.found) console.log(`# Prometheus part skipped: ${binaries.reason}`);

  let server: DevServer;
  let stack: OpsStack;
  let worker: WorkerProcess;
  let prometheus: RunningPrometheus | undefined;
  const dir = mkdtempSync(join(tmpdir(), 'hbo-unknown-counts-'));

  before(async () => {
    // A server of our own: the test stops it.
    server = await startDevServer({ headless: true });
    stack = await startOpsStack('unknown-counts', { temporalAddress: server.address });
    worker = await startWorkerProcess({ taskQueue: stack.taskQueue, env: stack.workerEnv });
    await worker.waitReady();
    if (binaries.found) {
      prometheus = await startPrometheus({
        binary: binaries.prometheus,
        dir,
        intervalSeconds: 1,
        jobs: { 'hotel-worker': [new URL(worker.metricsUrl).host] },
      });
    }
  });

  after(async () => {
    await prometheus?.close();
    worker?.kill();
    await worker?.exited;
    await stack?.close();
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  let whileDown = '';

  it('the gauges read real zeros while Temporal answers, and have no sample once it is gone', async () => {
    const up = await (await fetch(worker.metricsUrl)).text();
    for (const name of [
      METRIC_NAMES.cancellationsUnconfirmed,
      METRIC_NAMES.reconfirmationFlags,
      METRIC_NAMES.orderEventsFailing,
    ]) {
      assert.deepEqual(samples(up, name), [`${name} 0`], `${name}: counted, none`);
    }
    if (prometheus) {
      const p = prometheus;
      await eventually(
        async () => (await query(p.url, METRIC_NAMES.cancellationsUnconfirmed)).length === 1,
        20_000,
        'Prometheus to scrape the counted zero',
      );
    }

    await server.stop();
    // The worker lives on (it waits for Temporal) and answers its scrapes; counting fails.
    whileDown = await eventually(
      async () => {
        const text = await (await fetch(worker.metricsUrl)).text();
        return samples(text, METRIC_NAMES.bookingCountErrors).some((l) => !l.endsWith(' 0'))
          ? text
          : undefined;
      },
      30_000,
      'a scrape that reports its failed count',
    );
    assert.equal(worker.child.exitCode, null, 'the worker is still running');
    for (const name of FLEET_GAUGES) {
      assert.deepEqual(samples(whileDown, name), [], `${name}: unknown, so no sample`);
    }
    // Declared all the same: a reader sees the gauge exists and has no value now.
    assert.match(
      whileDown,
      new RegExp(`^# TYPE ${METRIC_NAMES.cancellationsUnconfirmed} gauge$`, 'm'),
    );
  });

  it(
    'Prometheus has no series for them, and HotelBookingCountsUnknown goes pending',
    { skip: binaries.found ? false : binaries.reason },
    async () => {
      assert.notEqual(whileDown, '', 'the first test stopped the server');
      const p = prometheus!;
      await eventually(
        async () =>
          (await prometheusAlerts(p.url)).some(
            (a) => a.labels.alertname === 'HotelBookingCountsUnknown' && a.state === 'pending',
          ),
        30_000,
        'HotelBookingCountsUnknown pending on /api/v1/alerts',
      );
      assert.deepEqual(await query(p.url, METRIC_NAMES.cancellationsUnconfirmed), []);
      assert.deepEqual(await query(p.url, `max(${METRIC_NAMES.cancellationsUnconfirmed}) > 0`), []);
      const upNow = await query(p.url, 'up{job="hotel-worker"}');
      assert.equal(upNow[0]?.value[1], '1', 'the worker answers its scrapes: not a dead worker');
    },
  );
});

/**
 * The alerts and the dashboard against the real thing: Prometheus (the Debian package's binary)
 * loads the production rule file unchanged and scrapes a real worker process and a Temporal dev
 * server's own metrics, once a second, while the simulator plays the conditions: a booking lost
 * in NEEDS_RECONCILIATION (the reconciliation rule's expression finds its age), a workflow type
 * the deploy lacks (HotelWorkflowTaskFailures goes pending), the supplier refusing our account
 * (HotelSupplierCredentialsRefused fires on Prometheus's API, and is quiet before), then the
 * worker's death (HotelWorkersDown goes pending). Every metric a dashboard
 * panel or an alert reads must then be one the worker exported after its bookings, one its code
 * declares, or a listed server or Prometheus series.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client, Connection } from '@temporalio/client';
import { BookingClient } from '../../src/client';
import { createWorkerMetrics } from '../../src/observability/metrics';
import { freeLoopbackPort } from '../../src/observability/ports';
import { startDevServer, type DevServer } from '../../tools/temporal-server/dev-server';
import { findPrometheus } from '../../tools/temporal-server/prometheus-binaries';
import {
  prometheusAlerts,
  startPrometheus,
  type RunningPrometheus,
} from '../../tools/temporal-server/prometheus-server';
import { bookingInput, eventually } from '../helpers/booking-stack';
import { testDataConverter } from '../helpers/temporal';
import {
  alertRules,
  dashboardExpressions,
  exposedMetricNames,
  promqlMetricNames,
} from './alert-files';
import {
  OPS_COMPANY,
  startOpsStack,
  startWorkerProcess,
  type OpsStack,
  type WorkerProcess,
} from './worker-process';

const ROOT = join(__dirname, '..', '..');
const DASHBOARD = join(ROOT, 'deploy', 'grafana', 'hotel-booking-fleet.json');

/**
 * The Temporal server's own series the dashboard reads (Temporal Server's `common/metrics`
 * definitions, served on `global.metrics.prometheus.listenAddress`: the cluster's server metrics
 * port, the dev server's `--metrics-port`, compose's `PROMETHEUS_ENDPOINT`). Checked below on a
 * real server's `/metrics`.
 */
const SERVER_METRICS = ['service_requests', 'service_latency_bucket', 'persistence_requests'];
/** Prometheus's own per-target series. */
const PROMETHEUS_SERIES = ['up'];

/** Names the worker's code declares: our registry with every optional source, and the counters
 * workflows create through the SDK's meter (exported with the SDK's `temporal_` prefix). */
function declaredWorkerMetrics(): Set<string> {
  const { registry } = createWorkerMetrics({
    defaultMetrics: false,
    orderEventsFailing: () => 0,
    bookingCounter: { get: () => Promise.reject(new Error('not counted here')) },
  });
  const names = new Set<string>();
  for (const m of registry.getMetricsAsArray()) {
    names.add(m.name);
    if (String(m.type) === 'histogram')
      for (const s of ['_bucket', '_sum', '_count']) names.add(m.name + s);
  }
  const dir = join(ROOT, 'src', 'workflows');
  for (const file of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    if (!file.endsWith('.ts')) continue;
    const text = readFileSync(join(dir, file), 'utf8');
    for (const m of text.matchAll(/metricMeter\.create\w+\(\s*'([a-z_]+)'/g)) {
      names.add(`temporal_${m[1]}`);
    }
  }
  return names;
}

async function query(url: string, promql: string): Promise<number | undefined> {
  const res = await fetch(`${url}/api/v1/query?query=${encodeURIComponent(promql)}`);
  const body = (await res.json()) as { data: { result: { value: [number, string] }[] } };
  const first = body.data.result[0];
  return first ? Number(first.value[1]) : undefined;
}

const stateOf = async (url: string, alertname: string) =>
  (await prometheusAlerts(url)).find((a) => a.labels.alertname === alertname)?.state;

describe('alerts end to end: Prometheus scraping a worker', async () => {
  const binaries = await findPrometheus();
  if (!binaries.found) console.log(`# skipping the end-to-end alert test: ${binaries.reason}`);
  const skip = binaries.found ? false : binaries.reason;

  let server: DevServer;
  let stack: OpsStack;
  let connection: Connection;
  let client: Client;
  let bookings: BookingClient;
  let worker: WorkerProcess;
  let prometheus: RunningPrometheus;
  let serverMetricsUrl: string;
  const dir = mkdtempSync(join(tmpdir(), 'hbo-prometheus-'));

  before(async () => {
    if (!binaries.found) return;
    // A server of our own, so that its metrics port is ours to scrape.
    const serverMetricsPort = await freeLoopbackPort();
    serverMetricsUrl = `http://127.0.0.1:${serverMetricsPort}/metrics`;
    server = await startDevServer({
      headless: true,
      extraArgs: ['--metrics-port', String(serverMetricsPort)],
    });
    stack = await startOpsStack('alerts-e2e', { temporalAddress: server.address });
    connection = await Connection.connect({ address: server.address });
    client = new Client({ connection, dataConverter: testDataConverter });
    bookings = new BookingClient({ client, taskQueue: stack.taskQueue });
    worker = await startWorkerProcess({
      taskQueue: stack.taskQueue,
      env: { ...stack.workerEnv, METRICS_VISIBILITY_REFRESH_MS: '2000' },
    });
    await worker.waitReady();
    prometheus = await startPrometheus({
      binary: binaries.prometheus,
      dir,
      intervalSeconds: 1,
      jobs: {
        'hotel-worker': [new URL(worker.metricsUrl).host],
        'temporal-server': [`127.0.0.1:${serverMetricsPort}`],
      },
    });
  });

  after(async () => {
    await prometheus?.close();
    worker?.kill();
    await worker?.exited;
    await connection?.close();
    await stack?.close();
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it(
    'a lost booking, failing workflow tasks, refused credentials and a dead worker raise their alerts',
    { skip },
    async () => {
      const started = Date.now();
      const ok = bookingInput('confirm-after-polls', { param: 1 });
      const lost = bookingInput('booking-lost');
      await Promise.all([bookings.startBooking(ok), bookings.startBooking(lost)]);
      assert.equal((await bookings.result(ok.orderId)).outcome, 'CONFIRMED');
      // Prometheus has scraped the worker's calls, and the credentials alert is quiet.
      await eventually(
        async () => ((await query(prometheus.url, 'sum(hotel_supplier_calls_total)')) ?? 0) >= 3,
        20_000,
        'Prometheus to scrape the supplier calls',
      );
      await new Promise((r) => setTimeout(r, 2_000)); // two more evaluations
      assert.equal(await stateOf(prometheus.url, 'HotelSupplierCredentialsRefused'), undefined);

      // The lost booking waits in NEEDS_RECONCILIATION: the production rule's expression, with
      // its 15-minute bound lowered to 0 (nothing else changed), finds it on Prometheus.
      const rule = alertRules().find((r) => r.alert === 'HotelBookingNeedsReconciliation')!;
      const bound = '> 15 * 60';
      assert.ok(rule.expr.includes(bound), rule.expr);
      const waited = await eventually(
        () => query(prometheus.url, rule.expr.replace(bound, '> 0')),
        20_000,
        'the oldest NEEDS_RECONCILIATION booking on Prometheus',
      );
      assert.ok(waited > 0 && waited < 120, `waited ${waited} s`);
      assert.equal(await stateOf(prometheus.url, 'HotelBookingNeedsReconciliation'), undefined);
      await bookings.handle(lost.orderId).terminate('the test is done with it');

      // A workflow type this deploy does not have: its workflow tasks fail and are retried, as a
      // non-determinism's are after a bad deploy.
      const stuck = await client.workflow.start('bookRoomFromAnotherDeploy', {
        taskQueue: stack.taskQueue,
        workflowId: `alerts-e2e-stuck-${Date.now()}`,
        args: [],
      });
      await eventually(
        async () => (await stateOf(prometheus.url, 'HotelWorkflowTaskFailures')) === 'pending',
        40_000,
        'HotelWorkflowTaskFailures pending on /api/v1/alerts',
      );
      await stuck.terminate('the test is done with it');

      // The supplier deactivates our account: every signed call is answered 403.
      const res = await fetch(`${stack.simUrl}/__sim/companies`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ key: OPS_COMPANY.key, active: false }),
      });
      assert.equal(res.status, 200);
      const refused = bookingInput('confirm-after-polls', { param: 1 });
      await bookings.startBooking(refused);
      assert.equal((await bookings.result(refused.orderId)).outcome, 'FAILED');
      const firing = await eventually(
        async () => (await stateOf(prometheus.url, 'HotelSupplierCredentialsRefused')) === 'firing',
        20_000,
        'HotelSupplierCredentialsRefused firing on /api/v1/alerts',
      );
      assert.ok(firing);
      console.log(
        `  credentials alert firing ${((Date.now() - started) / 1000).toFixed(1)} s after the first booking started`,
      );

      // The dashboard check below needs the worker's last exposition: taken before it dies.
      workerExposition = await (await fetch(worker.metricsUrl)).text();
      worker.child.kill('SIGTERM');
      await worker.exited;
      await eventually(
        async () => (await stateOf(prometheus.url, 'HotelWorkersDown')) === 'pending',
        20_000,
        'HotelWorkersDown pending once the worker is gone',
      );
    },
  );

  let workerExposition = '';

  it('every metric the dashboard and the alerts read exists', { skip }, async () => {
    assert.notEqual(workerExposition, '', 'the first test scraped the worker');
    const worker = exposedMetricNames(workerExposition);
    const server = exposedMetricNames(await (await fetch(serverMetricsUrl)).text());
    for (const name of SERVER_METRICS) assert.ok(server.has(name), `server exports ${name}`);
    const declared = declaredWorkerMetrics();
    const known = new Set([...worker, ...declared, ...SERVER_METRICS, ...PROMETHEUS_SERIES]);

    const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as unknown;
    const reads = [
      ...dashboardExpressions(dashboard),
      ...alertRules().map((r) => ({ panel: `alert ${r.alert}`, expr: r.expr })),
    ];
    assert.ok(reads.length > 20);
    const unknown = reads.flatMap(({ panel, expr }) =>
      [...promqlMetricNames(expr)].filter((n) => !known.has(n)).map((n) => `${panel}: ${n}`),
    );
    assert.deepEqual(unknown, [], 'metrics no worker or server exports');
    // The SDK's series were seen for real, not only accepted by prefix.
    for (const name of [
      'temporal_workflow_task_execution_failed',
      'temporal_num_pollers',
      'temporal_worker_task_slots_available',
      'temporal_activity_execution_failed',
      'temporal_workflow_task_execution_latency_bucket',
      'temporal_activity_execution_latency_bucket',
    ]) {
      assert.ok(worker.has(name), `the worker exported ${name}`);
    }
    // The labels the alerts group by and name in their summaries.
    const series = (name: string) =>
      workerExposition.split('\n').filter((l) => l.startsWith(`${name}{`));
    assert.ok(
      series('temporal_num_pollers').some(
        (l) => l.includes('poller_type="workflow_task"') && l.includes('task_queue="'),
      ),
      'temporal_num_pollers{poller_type="workflow_task", task_queue}',
    );
    assert.ok(
      series('temporal_workflow_task_execution_failed').some(
        (l) =>
          l.includes('workflow_type="bookRoomFromAnotherDeploy"') &&
          l.includes(`task_queue="${stack.taskQueue}"`) &&
          l.includes('namespace="default"'),
      ),
      series('temporal_workflow_task_execution_failed').join('\n'),
    );
  });
});

/**
 * The alerts and the dashboard against the real thing: Prometheus (the Debian package's binary)
 * loads the production rule file (rendered as `npm run cluster` renders it: runbook links made
 * absolute, nothing else changed) and scrapes a real worker process and a Temporal dev server's
 * own metrics, once a second, while the simulator plays the conditions: a booking lost in
 * NEEDS_RECONCILIATION (the reconciliation rule's expression finds its age), a workflow type the
 * deploy lacks (HotelWorkflowTaskFailures goes pending), the supplier refusing our account
 * (HotelSupplierCredentialsRefused fires on Prometheus's API, and is quiet before), then the
 * worker's death (HotelWorkersDown goes pending). Prometheus sends to a real Alertmanager (the
 * Debian package's, with the production routes, its waits shortened to a second), which must
 * deliver the firing alert — and its end — to the test's webhook receiver on the critical route,
 * with its absolute runbook link. Every metric a dashboard panel or an alert reads must then be
 * one the worker exported after its bookings, one its code declares, or a listed server or
 * Prometheus series.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client, Connection } from '@temporalio/client';
import { BookingClient } from '../../src/client';
import { SDK_SERIES, scrapedNames } from '../../src/observability/metric-series';
import { createWorkerMetrics } from '../../src/observability/metrics';
import { freeLoopbackPort } from '../../src/observability/ports';
import { startDevServer, type DevServer } from '../../tools/temporal-server/dev-server';
import { startAlertingStack, type AlertingStack } from '../../tools/alerting/alerting-stack';
import type { AlertmanagerNotification } from '../../tools/alerting/alert-receiver';
import { findAlertmanager, findPrometheus } from '../../tools/temporal-server/prometheus-binaries';
import {
  prometheusAlerts,
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
  for (const dir of [
    join(ROOT, 'src', 'workflows'),
    join(ROOT, 'src', 'order-events', 'workflows'),
  ]) {
    for (const file of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
      if (!file.endsWith('.ts')) continue;
      const text = readFileSync(join(dir, file), 'utf8');
      for (const m of text.matchAll(/metricMeter\.create\w+\(\s*'([a-z_]+)'/g)) {
        names.add(`temporal_${m[1]}`);
      }
    }
  }
  return names;
}

/** The text of docs/*.md and the README. */
function docsAndReadme(): string[] {
  const docs = join(ROOT, 'docs');
  return [
    readFileSync(join(ROOT, 'README.md'), 'utf8'),
    ...readdirSync(docs)
      .filter((f) => f.endsWith('.md'))
      .map((f) => readFileSync(join(docs, f), 'utf8')),
  ];
}

async function query(url: string, promql: string): Promise<number | undefined> {
  const res = await fetch(`${url}/api/v1/query?query=${encodeURIComponent(promql)}`);
  const body = (await res.json()) as { data: { result: { value: [number, string] }[] } };
  const first = body.data.result[0];
  return first ? Number(first.value[1]) : undefined;
}

const stateOf = async (url: string, alertname: string) =>
  (await prometheusAlerts(url)).find((a) => a.labels.alertname === alertname)?.state;

/** Where the rendered rules link their runbooks in this test. */
const RUNBOOKS = 'https://runbooks.example/hotel-booking-orchestrator/docs/runbooks.md';

/** A webhook receiver on port 0: every notification Alertmanager POSTs, with its path. */
async function startWebhookSink() {
  const received: { path: string; body: AlertmanagerNotification }[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (d: string) => (body += d));
    req.on('end', () => {
      received.push({ path: req.url ?? '', body: JSON.parse(body) as AlertmanagerNotification });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    received,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

describe('alerts end to end: Prometheus scraping a worker', async () => {
  const binaries = await findPrometheus();
  if (!binaries.found) console.log(`# skipping the end-to-end alert test: ${binaries.reason}`);
  const skip = binaries.found ? false : binaries.reason;
  const alertmanagerBinaries = binaries.found ? await findAlertmanager() : binaries;
  const skipDelivery = alertmanagerBinaries.found ? false : alertmanagerBinaries.reason;
  if (skipDelivery) console.log(`# skipping the alert delivery test: ${skipDelivery}`);

  let server: DevServer;
  let stack: OpsStack;
  let connection: Connection;
  let client: Client;
  let bookings: BookingClient;
  let worker: WorkerProcess;
  let prometheus: RunningPrometheus;
  let alerting: AlertingStack;
  let sink: Awaited<ReturnType<typeof startWebhookSink>>;
  let serverMetricsUrl: string;
  const dir = mkdtempSync(join(tmpdir(), 'hbo-prometheus-'));

  /** HotelSupplierCredentialsRefused as the receiver got it, in that state, with its route. */
  const credentialsAlerts = (status: 'firing' | 'resolved') =>
    sink.received.flatMap(({ path, body }) =>
      body.alerts
        .filter(
          (a) => a.labels.alertname === 'HotelSupplierCredentialsRefused' && a.status === status,
        )
        .map((alert) => ({ path, receiver: body.receiver, alert })),
    );
  const delivered = (status: 'firing' | 'resolved') => async () =>
    credentialsAlerts(status).length > 0 ? credentialsAlerts(status) : undefined;

  before(async () => {
    if (!binaries.found) return;
    // A server of our own, so that its metrics port is ours to scrape.
    const serverMetricsPort = await freeLoopbackPort();
    serverMetricsUrl = `http://127.0.0.1:${serverMetricsPort}/metrics`;
    server = await startDevServer({
      headless: true,
      metricsPort: serverMetricsPort,
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
    sink = await startWebhookSink();
    // What `npm run cluster` starts, with the test's receiver and a second for every wait.
    alerting = await startAlertingStack({
      dir,
      intervalSeconds: 1,
      jobs: {
        'hotel-worker': [new URL(worker.metricsUrl).host],
        'temporal-server': [`127.0.0.1:${serverMetricsPort}`],
      },
      settings: {
        criticalWebhookUrl: `${sink.origin}/critical`,
        warningWebhookUrl: `${sink.origin}/warning`,
        runbookBaseUrl: RUNBOOKS,
      },
      timings: { groupWait: '1s', groupInterval: '1s', repeatInterval: '1h' },
      install: true,
    });
    if ('skipped' in alerting.prometheus) throw new Error(alerting.prometheus.skipped);
    prometheus = alerting.prometheus;
  });

  after(async () => {
    await alerting?.close();
    await sink?.close();
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

      // The page goes out before the worker dies: its death ends the alert, and an alert that
      // ended before Alertmanager's first notification is never sent.
      if ('url' in alerting.alertmanager) {
        await eventually(delivered('firing'), 20_000, 'HotelSupplierCredentialsRefused delivered');
      }

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

  it(
    'the firing alert reaches a person: Alertmanager routes it by severity to its receiver, with its absolute runbook link, then says it ended',
    { skip: skip || skipDelivery },
    async () => {
      assert.ok('url' in alerting.alertmanager, 'Alertmanager runs');
      // Delivered in the test above, before the worker's death ended the alert.
      const [firing] = credentialsAlerts('firing');
      assert.equal(firing!.path, '/critical', 'on the critical route');
      assert.equal(firing!.receiver, 'critical');
      assert.equal(firing!.alert.labels.severity, 'critical');
      assert.equal(
        firing!.alert.annotations.summary,
        'Supplier account default: the supplier refused its credentials (401/403)',
      );
      const link = firing!.alert.annotations.runbook_url ?? '';
      assert.equal(link, `${RUNBOOKS}#hotelsuppliercredentialsrefused`);
      assert.equal(new URL(link).protocol, 'https:', 'an absolute link');
      assert.ok(firing, 'HotelSupplierCredentialsRefused delivered while it fired');
      const [resolved] = await eventually(
        delivered('resolved'),
        30_000,
        'the end of HotelSupplierCredentialsRefused delivered',
      );
      assert.equal(resolved!.path, '/critical');
      // Every notification went to the route of its severity.
      for (const { path, body } of sink.received) {
        assert.equal(path, `/${body.commonLabels.severity}`, JSON.stringify(body.commonLabels));
      }
    },
  );

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
    // docs/ and the README name only series that exist (ours by their exported names).
    const docNames = new Set(
      docsAndReadme().flatMap((text) =>
        [...text.matchAll(/\b(?:hotel|temporal)_[a-z_]+\b/g)].map((m) => m[0]),
      ),
    );
    // A histogram is named by its base name too (docs/operating.md's table does).
    const histograms = [...known].flatMap((n) => (n.endsWith('_bucket') ? [n.slice(0, -7)] : []));
    const undocumented = [...docNames].filter((n) => !known.has(n) && !histograms.includes(n));
    assert.deepEqual(undocumented, [], 'metrics the docs name that no worker or server exports');
    // The labels the alerts group by and name in their summaries.
    const series = (name: string) =>
      workerExposition.split('\n').filter((l) => l.startsWith(`${name}{`));
    // The SDK's series the product reads (src/observability/metric-series.ts) were seen for
    // real, not only accepted by prefix, with the labels the list gives them.
    for (const listed of SDK_SERIES) {
      for (const name of scrapedNames(listed)) {
        assert.ok(worker.has(name), `the worker exported ${name}`);
      }
      const [first] = scrapedNames(listed);
      assert.ok(
        series(first!).some((l) => listed.labels.every((label) => l.includes(`${label}="`))),
        `${listed.name}{${listed.labels.join(', ')}}: ${series(first!)[0] ?? 'no sample'}`,
      );
    }
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

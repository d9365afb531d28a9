/**
 * The alerts end to end: a real Prometheus (Debian's package) scrapes two real worker processes
 * while the simulator plays the conditions — a booking whose answer is lost (NEEDS_RECONCILIATION),
 * a worker whose secret the supplier refuses (401), a workflow task that keeps failing — and each
 * alert goes firing on Prometheus's own API. The rules are the production file with every `for`
 * shortened to 1 s, nothing else changed. The dashboard's queries name only metrics the workers
 * export (or Prometheus's own `up`).
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BookingClient } from '../../src/client';
import { bookingInput, eventually } from '../helpers/booking-stack';
import { findPrometheusTool } from '../helpers/prometheus';
import { uniqueTaskQueue } from '../helpers/temporal';
import {
  startOpsStack,
  startWorkerProcess,
  type OpsStack,
  type WorkerProcess,
} from './worker-process';

const ROOT = join(__dirname, '..', '..');
const prometheus = findPrometheusTool('prometheus');

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** The production rules with every `for:` shortened, and nothing else. */
function testRules(): string {
  const production = readFileSync(join(ROOT, 'deploy', 'prometheus', 'alerts.yml'), 'utf8');
  const shortened = production.replace(/^(\s+for: )\S+$/gm, '$11s');
  const strip = (t: string) => t.replace(/^\s+for: \S+$/gm, '');
  assert.equal(strip(shortened), strip(production));
  return shortened;
}

/** The metric names a PromQL expression reads (not functions, keywords, labels or durations). */
function metricNames(expr: string): string[] {
  const cleaned = expr
    .replace(/"[^"]*"/g, '""')
    .replace(/\{[^}]*\}/g, '')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, '')
    .replace(/\[[^\]]*\]/g, '');
  const keywords = new Set(['and', 'or', 'unless', 'offset', 'bool']);
  return [...cleaned.matchAll(/\b([a-zA-Z_:][a-zA-Z0-9_:]*)\b(?!\s*\()/g)]
    .map((m) => m[1]!)
    .filter((w) => !keywords.has(w));
}

describe('alerts on a real Prometheus scraping real workers', { skip: prometheus.skip }, () => {
  let stack: OpsStack;
  let good: WorkerProcess;
  let refused: WorkerProcess;
  let prom: ChildProcess | undefined;
  let promUrl = '';
  const work = mkdtempSync(join(tmpdir(), 'hbo-prometheus-'));
  const refusedQueue = uniqueTaskQueue('alerts-refused');
  let stuckWorkflowId = '';

  before(async () => {
    stack = await startOpsStack('alerts-e2e');
    [good, refused] = await Promise.all([
      startWorkerProcess({ taskQueue: stack.taskQueue, env: stack.workerEnv }),
      startWorkerProcess({
        taskQueue: refusedQueue,
        env: { ...stack.workerEnv, HOTEL_API_SECRET: 'a-secret-the-supplier-refuses-0123' },
      }),
    ]);
    await Promise.all([good.waitReady(), refused.waitReady()]);

    writeFileSync(join(work, 'alerts.yml'), testRules());
    const targets = [good, refused].map((w) => new URL(w.metricsUrl).host);
    writeFileSync(
      join(work, 'prometheus.yml'),
      [
        'global: { scrape_interval: 1s, evaluation_interval: 1s }',
        'rule_files: [alerts.yml]',
        'scrape_configs:',
        '  - job_name: hotel-booking-worker',
        `    static_configs: [{ targets: [${targets.map((t) => `'${t}'`).join(', ')}] }]`,
        '',
      ].join('\n'),
    );
    const port = await freePort();
    promUrl = `http://127.0.0.1:${port}`;
    prom = spawn(
      prometheus.path!,
      [
        `--config.file=${join(work, 'prometheus.yml')}`,
        `--storage.tsdb.path=${join(work, 'data')}`,
        `--web.listen-address=127.0.0.1:${port}`,
        '--log.level=warn',
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    prom.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    await eventually(
      async () => {
        if (prom?.exitCode !== null) throw new Error(`prometheus exited: ${stderr}`);
        return (await fetch(`${promUrl}/-/ready`)).ok;
      },
      30_000,
      'Prometheus to be ready',
    );
  });

  after(async () => {
    if (stuckWorkflowId) {
      await stack.temporal.client.workflow
        .getHandle(stuckWorkflowId)
        .terminate('test over')
        .catch(() => undefined);
    }
    prom?.kill('SIGTERM');
    for (const w of [good, refused]) {
      w?.child.kill('SIGTERM');
      await w?.exited;
    }
    await stack?.close();
    rmSync(work, { recursive: true, force: true });
  });

  async function firing(alert: string) {
    return eventually(
      async () => {
        const body = (await (await fetch(`${promUrl}/api/v1/alerts`)).json()) as {
          data: { alerts: { labels: { alertname: string }; state: string }[] };
        };
        return body.data.alerts.find((a) => a.labels.alertname === alert && a.state === 'firing');
      },
      90_000,
      `${alert} to fire`,
    );
  }

  it('a booking left in NEEDS_RECONCILIATION fires HotelBookingNeedsReconciliation', async () => {
    await stack.bookings.startBooking(bookingInput('booking-lost'));
    const alert = await firing('HotelBookingNeedsReconciliation');
    assert.ok(alert);
  });

  it('credentials the supplier refuses fire HotelSupplierCredentialsRefused', async () => {
    const bookings = new BookingClient({ client: stack.temporal.client, taskQueue: refusedQueue });
    const input = bookingInput('instant');
    await bookings.startBooking(input);
    const r = await bookings.result(input.orderId);
    assert.equal(r.outcome, 'FAILED');
    assert.ok(await firing('HotelSupplierCredentialsRefused'));
  });

  it('a workflow task that keeps failing fires HotelWorkflowTaskFailures', async () => {
    // A workflow type no worker has: every workflow task fails, as after a bad deploy.
    stuckWorkflowId = `alerts-unknown-type-${Date.now()}`;
    await stack.temporal.client.workflow.start('noSuchWorkflowType', {
      taskQueue: refusedQueue,
      workflowId: stuckWorkflowId,
      args: [],
    });
    assert.ok(await firing('HotelWorkflowTaskFailures'));
  });

  it('the dashboard and the alerts name only metrics the workers export', async () => {
    const exported = new Set<string>(['up']);
    for (const w of [good, refused]) {
      const text = await (await fetch(w.metricsUrl)).text();
      for (const m of text.matchAll(/^([a-z_][a-z0-9_]*)(?:\{| )/gm)) exported.add(m[1]!);
    }
    const dashboard = JSON.parse(
      readFileSync(join(ROOT, 'deploy', 'grafana', 'hotel-booking-fleet.json'), 'utf8'),
    ) as { panels: { title: string; targets: { expr: string }[] }[] };
    const rules = readFileSync(join(ROOT, 'deploy', 'prometheus', 'alerts.yml'), 'utf8');
    const exprs = [
      ...dashboard.panels.flatMap((p) => p.targets.map((t) => [`panel "${p.title}"`, t.expr])),
      ...[...rules.matchAll(/^\s+expr: (?:\|\n)?([\s\S]*?)\n\s+for:/gm)].map((m) => [
        'alert rule',
        m[1]!,
      ]),
    ];
    const unknown = exprs.flatMap(([where, expr]) =>
      metricNames(expr!)
        .filter((n) => !exported.has(n))
        .map((n) => `${where}: ${n}`),
    );
    assert.deepEqual(unknown, []);
  });
});

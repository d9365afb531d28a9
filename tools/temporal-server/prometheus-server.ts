/**
 * A Prometheus server (the binary found by prometheus-binaries.ts) with our alert rules, scraping
 * the given targets and sending its alerts to Alertmanager when given one: for `npm run cluster`
 * and the end-to-end alert tests. Its configuration is generated (JSON is YAML) so that intervals,
 * targets and rule files are the caller's.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { assertPortFree, freeLoopbackPort } from '../../src/observability/ports';

/** The production alert rules. */
export const ALERT_RULES_FILE = resolve(
  __dirname,
  '..',
  '..',
  'deploy',
  'prometheus',
  'alerts.yml',
);

export interface PrometheusOptions {
  /** The `prometheus` binary. */
  readonly binary: string;
  /** Where the configuration and the TSDB go (created). */
  readonly dir: string;
  /** Scrape jobs: job name → `host:port` targets (`/metrics`). */
  readonly jobs: Readonly<Record<string, readonly string[]>>;
  /**
   * Rule files to load. @default [ALERT_RULES_FILE], as written: its runbook links are then the
   * `${RUNBOOK_BASE_URL}` placeholder (tools/alerting renders them absolute).
   */
  readonly ruleFiles?: readonly string[];
  /** Alertmanagers (`host:port`) it sends its alerts to. @default none */
  readonly alertmanagers?: readonly string[];
  /** Scrape and rule evaluation interval, seconds. @default 15 */
  readonly intervalSeconds?: number;
  /** Port of its web UI and API on 127.0.0.1. @default a free one */
  readonly port?: number;
  /** The variable or flag that sets `port`, named when it is taken. @default 'PROMETHEUS_PORT' */
  readonly portSetting?: string;
}

export interface RunningPrometheus {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly child: ChildProcess;
  /** Everything it logged so far (its logs go to stderr). */
  output(): string;
  close(): Promise<void>;
}

/** The prometheus.yml for `options`, as JSON. */
export function prometheusConfig(options: PrometheusOptions): string {
  const interval = `${options.intervalSeconds ?? 15}s`;
  return JSON.stringify(
    {
      global: {
        scrape_interval: interval,
        scrape_timeout: interval,
        evaluation_interval: interval,
      },
      rule_files: [...(options.ruleFiles ?? [ALERT_RULES_FILE])],
      ...(options.alertmanagers?.length
        ? {
            alerting: {
              alertmanagers: [{ static_configs: [{ targets: [...options.alertmanagers] }] }],
            },
          }
        : {}),
      scrape_configs: Object.entries(options.jobs).map(([job, targets]) => ({
        job_name: job,
        static_configs: [{ targets: [...targets] }],
      })),
    },
    null,
    2,
  );
}

/** Resolves once `url/-/ready` answers 200 (Prometheus and Alertmanager alike). */
export async function waitReady(
  name: string,
  url: string,
  child: ChildProcess,
  log: () => string,
  timeoutMs: number,
) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      throw new Error(
        `${name} exited ${child.exitCode}: ${log().split('\n').slice(-5).join('\n')}`,
      );
    }
    const ok = await fetch(`${url}/-/ready`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${name} not ready within ${timeoutMs} ms: ${log().slice(-1000)}`);
}

/** Starts Prometheus and resolves once it answers `/-/ready`. */
export async function startPrometheus(options: PrometheusOptions): Promise<RunningPrometheus> {
  mkdirSync(join(options.dir, 'data'), { recursive: true });
  const configFile = join(options.dir, 'prometheus.yml');
  writeFileSync(configFile, prometheusConfig(options));
  const port = options.port ?? (await freeLoopbackPort());
  // Prometheus's own bind error is a log line among many: say which setting moves the port.
  await assertPortFree(port, '127.0.0.1', options.portSetting ?? 'PROMETHEUS_PORT', 'Prometheus');
  return startLoopbackServer('prometheus', options.binary, port, [
    `--config.file=${configFile}`,
    `--storage.tsdb.path=${join(options.dir, 'data')}`,
  ]);
}

/**
 * Starts a Prometheus-family server (Prometheus, Alertmanager) listening on loopback `port`, with
 * `args` besides its listen address, and waits until it answers; stopped if it never does.
 */
export async function startLoopbackServer(
  name: string,
  binary: string,
  port: number,
  args: readonly string[],
): Promise<{ url: string; child: ChildProcess; output: () => string; close(): Promise<void> }> {
  const child = spawn(binary, [...args, `--web.listen-address=127.0.0.1:${port}`], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (log = (log + d).slice(-50_000)));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const url = `http://127.0.0.1:${port}`;
  const close = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  try {
    await waitReady(name, url, child, () => log, 30_000);
  } catch (err) {
    await close();
    throw err;
  }
  return { url, child, output: () => log, close };
}

export interface PrometheusAlert {
  readonly labels: Record<string, string>;
  readonly state: 'pending' | 'firing' | 'inactive';
  readonly activeAt?: string;
}

/** The alerts Prometheus holds now (`/api/v1/alerts`): pending and firing ones. */
export async function prometheusAlerts(url: string): Promise<PrometheusAlert[]> {
  const res = await fetch(`${url}/api/v1/alerts`);
  const body = (await res.json()) as { status: string; data: { alerts: PrometheusAlert[] } };
  if (body.status !== 'success') throw new Error(`${url}/api/v1/alerts: ${JSON.stringify(body)}`);
  return body.data.alerts;
}

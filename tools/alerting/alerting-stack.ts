/**
 * Prometheus with the product's alert rules, sending to an Alertmanager that routes by severity to
 * the configured receivers — the on-call path of `npm run cluster`, started the same way by the
 * end-to-end alert test. Each part runs when this machine has its binaries and is skipped, with
 * the one line that says why, when not.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  startAlertmanager,
  type RunningAlertmanager,
} from '../temporal-server/alertmanager-server';
import { findAlertmanager, findPrometheus } from '../temporal-server/prometheus-binaries';
import { startPrometheus, type RunningPrometheus } from '../temporal-server/prometheus-server';
import {
  renderAlertmanagerConfig,
  renderAlertRules,
  type AlertingSettings,
  type RouteTimings,
} from './alerting-config';

export interface AlertingStackOptions {
  /** Where the rendered files and both servers' data go (created). */
  readonly dir: string;
  /** Prometheus's scrape jobs: job name → `host:port` targets. */
  readonly jobs: Readonly<Record<string, readonly string[]>>;
  readonly settings: AlertingSettings;
  /**
   * Ports of Prometheus and Alertmanager, and the flag or variable that moves them (named when
   * one is taken). @default a free port each
   */
  readonly ports?: {
    readonly prometheus: number;
    readonly alertmanager: number;
    readonly setting: string;
  };
  /** Prometheus's scrape and evaluation interval, seconds. @default 15 */
  readonly intervalSeconds?: number;
  /** Alertmanager's waits, shortened for a test. @default those of the configuration */
  readonly timings?: RouteTimings;
  /** Install a missing Debian package with apt (root). @default false */
  readonly install?: boolean;
  readonly log?: (line: string) => void;
}

export type Skipped = { readonly skipped: string };

export interface AlertingStack {
  readonly prometheus: RunningPrometheus | Skipped;
  readonly alertmanager: RunningAlertmanager | Skipped;
  /** The rendered rule file Prometheus loads. */
  readonly rulesFile: string;
  close(): Promise<void>;
}

export async function startAlertingStack(options: AlertingStackOptions): Promise<AlertingStack> {
  const log = options.log ?? ((line: string) => console.error(line));
  const install = options.install ?? false;
  const rendered = join(options.dir, 'rendered');
  mkdirSync(rendered, { recursive: true });
  const rulesFile = join(rendered, 'alerts.yml');
  writeFileSync(rulesFile, renderAlertRules(options.settings));

  const prometheusBinaries = await findPrometheus({ install, log });
  if (!prometheusBinaries.found) {
    return {
      prometheus: { skipped: prometheusBinaries.reason },
      alertmanager: { skipped: 'Prometheus is not running: nothing would send it alerts' },
      rulesFile,
      close: () => Promise.resolve(),
    };
  }
  const closers: (() => Promise<void>)[] = [];
  const close = async () => {
    for (const c of closers.reverse()) await c().catch(() => undefined);
  };
  try {
    let alertmanager: RunningAlertmanager | Skipped;
    const alertmanagerBinaries = await findAlertmanager({ install, log });
    if (alertmanagerBinaries.found) {
      const running = await startAlertmanager({
        binary: alertmanagerBinaries.alertmanager,
        dir: join(options.dir, 'alertmanager'),
        config: renderAlertmanagerConfig(options.settings, options.timings),
        ...(options.ports
          ? { port: { number: options.ports.alertmanager, setting: options.ports.setting } }
          : {}),
      });
      closers.push(() => running.close());
      alertmanager = running;
    } else {
      alertmanager = { skipped: alertmanagerBinaries.reason };
    }
    const prometheus = await startPrometheus({
      binary: prometheusBinaries.prometheus,
      dir: join(options.dir, 'prometheus'),
      jobs: options.jobs,
      ruleFiles: [rulesFile],
      ...('target' in alertmanager ? { alertmanagers: [alertmanager.target] } : {}),
      ...(options.intervalSeconds !== undefined
        ? { intervalSeconds: options.intervalSeconds }
        : {}),
      ...(options.ports
        ? { port: options.ports.prometheus, portSetting: options.ports.setting }
        : {}),
    });
    closers.push(() => prometheus.close());
    return { prometheus, alertmanager, rulesFile, close };
  } catch (err) {
    await close();
    throw err;
  }
}

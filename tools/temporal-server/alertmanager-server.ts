/**
 * An Alertmanager (the binary found by prometheus-binaries.ts) with a configuration the caller
 * rendered (tools/alerting/alerting-config.ts): for `npm run cluster` and the end-to-end alert
 * test. One instance, no gossip: the cluster port it would open by default is switched off.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { assertPortFree, freeLoopbackPort } from '../../src/observability/ports';
import { startLoopbackServer } from './prometheus-server';

export interface AlertmanagerOptions {
  /** The `alertmanager` binary (Debian: `prometheus-alertmanager`). */
  readonly binary: string;
  /** Where the configuration and its state (silences, notification log) go (created). */
  readonly dir: string;
  /** The alertmanager.yml text. */
  readonly config: string;
  /**
   * Port of its web UI and API on 127.0.0.1, and the flag or variable that moves it (named when
   * the port is taken). @default a free port
   */
  readonly port?: { readonly number: number; readonly setting: string };
}

export interface RunningAlertmanager {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** `127.0.0.1:<port>`, for Prometheus's `alerting.alertmanagers`. */
  readonly target: string;
  /** Everything it logged so far. */
  output(): string;
  close(): Promise<void>;
}

/** Starts Alertmanager and resolves once it answers `/-/ready`. */
export async function startAlertmanager(
  options: AlertmanagerOptions,
): Promise<RunningAlertmanager> {
  mkdirSync(join(options.dir, 'data'), { recursive: true });
  const configFile = join(options.dir, 'alertmanager.yml');
  writeFileSync(configFile, options.config);
  const port = options.port?.number ?? (await freeLoopbackPort());
  // Alertmanager's own bind error is a log line among many: say which setting moves the port.
  if (options.port) await assertPortFree(port, '127.0.0.1', options.port.setting, 'Alertmanager');
  const { url, output, close } = await startLoopbackServer('alertmanager', options.binary, port, [
    `--config.file=${configFile}`,
    `--storage.path=${join(options.dir, 'data')}`,
    // A single instance: no gossip port (it would listen on 0.0.0.0:9094).
    '--cluster.listen-address=',
  ]);
  return { url, target: `127.0.0.1:${port}`, output, close };
}

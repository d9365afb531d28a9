/**
 * `npx tsx tools/alerting/main.ts render --out <dir>`: writes `alerts.yml` (the rules, runbook
 * links absolute) and `alertmanager.yml` (routes and receivers) into `<dir>`, from the variables
 * ALERTMANAGER_CRITICAL_WEBHOOK_URL, ALERTMANAGER_WARNING_WEBHOOK_URL and RUNBOOK_BASE_URL: for
 * a Prometheus and Alertmanager of your own, and compose's alerting-config service.
 *
 * `npx tsx tools/alerting/main.ts receive [--host 127.0.0.1] [--port 9095]`: the local alert
 * receiver, one line per alert on stdout (compose's alert-receiver service).
 *
 * Exit codes: 0 done (or stopped by a signal, for receive); 2 bad usage or a bad variable, in one
 * line.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import {
  AlertingConfigError,
  loadAlertingSettings,
  localAlertingDefaults,
  renderAlertmanagerConfig,
  renderAlertRules,
  webhookOrigin,
} from './alerting-config';
import { buildAlertReceiver } from './alert-receiver';

/** The local receiver's port when none is given (the render defaults point at it). */
export const DEFAULT_RECEIVER_PORT = 9095;

const USAGE =
  'usage: tools/alerting/main.ts render --out <dir> | receive [--host 127.0.0.1] [--port 9095]';

function fail(problem: string): number {
  process.stderr.write(`tools/alerting: ${problem}\n${USAGE}\n`);
  return 2;
}

function render(args: string[]): number {
  const { values } = parseArgs({ args, options: { out: { type: 'string' } } });
  if (!values.out) return fail('render: --out <dir> is required');
  const settings = loadAlertingSettings(
    process.env,
    localAlertingDefaults(`http://127.0.0.1:${DEFAULT_RECEIVER_PORT}`),
  );
  const out = resolve(values.out);
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'alerts.yml'), renderAlertRules(settings));
  writeFileSync(join(out, 'alertmanager.yml'), renderAlertmanagerConfig(settings));
  process.stdout.write(
    `Rendered ${out}/alerts.yml and alertmanager.yml: critical → ${webhookOrigin(settings.criticalWebhookUrl)}, warning → ${webhookOrigin(settings.warningWebhookUrl)}, runbooks ${settings.runbookBaseUrl}\n`,
  );
  return 0;
}

async function receive(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { host: { type: 'string' }, port: { type: 'string' } },
  });
  const port = Number(values.port ?? DEFAULT_RECEIVER_PORT);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    return fail(`receive: --port must be a port number (got "${values.port}")`);
  }
  const receiver = buildAlertReceiver({ onLine: (line) => process.stdout.write(`${line}\n`) });
  const origin = await receiver.listen(port, values.host ?? '127.0.0.1');
  process.stdout.write(`Alert receiver listening on ${origin} (/critical, /warning)\n`);
  await new Promise<void>((done) => {
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
  });
  await receiver.close();
  return 0;
}

async function main(): Promise<number> {
  const [command, ...rest] = process.argv.slice(2);
  try {
    if (command === 'render') return render(rest);
    if (command === 'receive') return await receive(rest);
    return fail(command ? `unknown command "${command}"` : 'a command is required');
  } catch (err) {
    if (err instanceof AlertingConfigError) {
      process.stderr.write(`${err.message}\n`);
      return 2;
    }
    if ((err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      return fail((err as Error).message);
    }
    throw err;
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(
      `tools/alerting failed: ${err instanceof Error ? err.message : String(err)}\n`,
    );
    process.exit(1);
  },
);

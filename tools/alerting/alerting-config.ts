/**
 * The alerting configuration, rendered: the alert rules (deploy/prometheus/alerts.yml) with
 * absolute runbook links, and Alertmanager's routes (deploy/alertmanager/alertmanager.yml) with the
 * receivers' webhook URLs. Both files are templates with `${NAME}` placeholders for the variables
 * of {@link ALERTING_VARIABLES}; `npm run cluster`, compose's alerting-config service and
 * `npx tsx tools/alerting/main.ts render` render them with this module. docs/runbooks.md "How
 * alerts reach a person" documents the variables.
 *
 * These variables are read by the tools that render the files, not by the worker: they are not
 * part of the product's configuration (src/config/).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parse, stringify } from 'yaml';

const REPO_ROOT = join(__dirname, '..', '..');

/** The templates, and the file each renders to (beside the others in one output directory). */
export const ALERTING_TEMPLATES = {
  'alerts.yml': 'deploy/prometheus/alerts.yml',
  'alertmanager.yml': 'deploy/alertmanager/alertmanager.yml',
} as const;
export type RenderedFile = keyof typeof ALERTING_TEMPLATES;

/** Every variable the templates read, with what it means (docs/runbooks.md names each). */
export const ALERTING_VARIABLES = {
  ALERTMANAGER_CRITICAL_WEBHOOK_URL:
    'where Alertmanager POSTs critical alerts (page the on-call now): an http(s) webhook URL',
  ALERTMANAGER_WARNING_WEBHOOK_URL:
    'where Alertmanager POSTs warnings (working hours): an http(s) webhook URL',
  RUNBOOK_BASE_URL:
    "the absolute URL of docs/runbooks.md where your team reads it; each alert's runbook_url is it plus #<alert name in lower case>",
} as const;
export type AlertingVariable = keyof typeof ALERTING_VARIABLES;

export interface AlertingSettings {
  readonly criticalWebhookUrl: string;
  readonly warningWebhookUrl: string;
  readonly runbookBaseUrl: string;
}

/** A variable with a bad value: `message` is the one line to show. */
export class AlertingConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AlertingConfigError';
  }
}

/** The runbooks of this checkout, as a `file:` URL: a link that opens on the machine it runs on. */
export const CHECKOUT_RUNBOOKS_URL = pathToFileURL(join(REPO_ROOT, 'docs', 'runbooks.md')).href;

/**
 * The defaults of a stack whose local alert receiver (tools/alerting/alert-receiver.ts) listens
 * at `receiverOrigin`: critical alerts to its `/critical`, warnings to its `/warning`, runbook
 * links to this checkout's docs/runbooks.md.
 */
export function localAlertingDefaults(receiverOrigin: string): AlertingSettings {
  const origin = receiverOrigin.replace(/\/$/, '');
  return {
    criticalWebhookUrl: `${origin}/critical`,
    warningWebhookUrl: `${origin}/warning`,
    runbookBaseUrl: CHECKOUT_RUNBOOKS_URL,
  };
}

function absoluteUrl(name: AlertingVariable, value: string, protocols: readonly string[]): string {
  const wanted = protocols.map((p) => p.replace(/:$/, '')).join(', ');
  const problem = (what: string) =>
    new AlertingConfigError(`${name}: "${value}" ${what} — ${name} is ${ALERTING_VARIABLES[name]}`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw problem(`is not an absolute URL (${wanted})`);
  }
  if (!protocols.includes(url.protocol)) throw problem(`is not a URL of ${wanted}`);
  return url.href;
}

/**
 * The settings from `env` (an unset or empty variable takes its default), each checked: one
 * {@link AlertingConfigError} naming the variable when one is not what it must be.
 */
export function loadAlertingSettings(
  env: Readonly<Record<string, string | undefined>>,
  defaults: AlertingSettings,
): AlertingSettings {
  const value = (name: AlertingVariable, fallback: string) => {
    const v = env[name]?.trim();
    return v ? v : fallback;
  };
  const runbookBaseUrl = absoluteUrl(
    'RUNBOOK_BASE_URL',
    value('RUNBOOK_BASE_URL', defaults.runbookBaseUrl),
    ['https:', 'http:', 'file:'],
  );
  if (new URL(runbookBaseUrl).hash !== '') {
    throw new AlertingConfigError(
      `RUNBOOK_BASE_URL: "${runbookBaseUrl}" has a #fragment; give the page's URL, each alert adds its own #anchor`,
    );
  }
  return {
    criticalWebhookUrl: absoluteUrl(
      'ALERTMANAGER_CRITICAL_WEBHOOK_URL',
      value('ALERTMANAGER_CRITICAL_WEBHOOK_URL', defaults.criticalWebhookUrl),
      ['https:', 'http:'],
    ),
    warningWebhookUrl: absoluteUrl(
      'ALERTMANAGER_WARNING_WEBHOOK_URL',
      value('ALERTMANAGER_WARNING_WEBHOOK_URL', defaults.warningWebhookUrl),
      ['https:', 'http:'],
    ),
    runbookBaseUrl,
  };
}

/** Where a webhook URL goes, for a log line: its origin only (the path may hold a token). */
export function webhookOrigin(url: string): string {
  const u = new URL(url);
  return u.pathname === '/' && u.search === '' ? u.origin : `${u.origin}/…`;
}

/**
 * `${NAME}` replaced in a template's values, comments left as written (they name the
 * placeholders). Placeholders all sit in single-quoted YAML scalars, hence `'` doubled; one left
 * over is a variable this module does not know.
 */
function fill(file: RenderedFile, values: Readonly<Record<AlertingVariable, string>>): string {
  const template = readFileSync(join(REPO_ROOT, ALERTING_TEMPLATES[file]), 'utf8');
  const lines = template.split('\n').map((line) => {
    if (line.trimStart().startsWith('#')) return line;
    const filled = line.replace(/\$\{([A-Z0-9_]+)\}/g, (match, name: string) =>
      name in values ? values[name as AlertingVariable].replace(/'/g, "''") : match,
    );
    const left = /\$\{[A-Z0-9_]+\}/.exec(filled);
    if (left) throw new AlertingConfigError(`${ALERTING_TEMPLATES[file]}: no value for ${left[0]}`);
    return filled;
  });
  return lines.join('\n');
}

const valuesOf = (s: AlertingSettings): Record<AlertingVariable, string> => ({
  ALERTMANAGER_CRITICAL_WEBHOOK_URL: s.criticalWebhookUrl,
  ALERTMANAGER_WARNING_WEBHOOK_URL: s.warningWebhookUrl,
  RUNBOOK_BASE_URL: s.runbookBaseUrl,
});

/** deploy/prometheus/alerts.yml with every runbook_url absolute. */
export function renderAlertRules(settings: AlertingSettings): string {
  return fill('alerts.yml', valuesOf(settings));
}

/**
 * Shorter waits for a test (Alertmanager durations, e.g. `1s`), applied to the root route and
 * every child route.
 */
export interface RouteTimings {
  readonly groupWait: string;
  readonly groupInterval: string;
  readonly repeatInterval: string;
}

/** deploy/alertmanager/alertmanager.yml with the receivers' URLs (and, for a test, its timings). */
export function renderAlertmanagerConfig(
  settings: AlertingSettings,
  timings?: RouteTimings,
): string {
  const text = fill('alertmanager.yml', valuesOf(settings));
  if (!timings) return text;
  interface Route {
    group_wait?: string;
    group_interval?: string;
    repeat_interval?: string;
    routes?: Route[];
  }
  const config = parse(text) as { route: Route };
  const shorten = (route: Route) => {
    route.group_wait = timings.groupWait;
    route.group_interval = timings.groupInterval;
    route.repeat_interval = timings.repeatInterval;
    route.routes?.forEach(shorten);
  };
  shorten(config.route);
  return stringify(config);
}

/** The alert rule file and the runbook's headings, read for the alert and dashboard tests. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import type { AlertingSettings } from '../../tools/alerting/alerting-config';

export const ALERT_RULES_PATH = join(__dirname, '..', '..', 'deploy', 'prometheus', 'alerts.yml');

/** Alerting settings as a team that hosts its docs would set them. */
export const TEST_ALERTING_SETTINGS: AlertingSettings = {
  criticalWebhookUrl: 'https://pager.example/hooks/T0KEN',
  warningWebhookUrl: 'https://tickets.example/alerts',
  runbookBaseUrl: 'https://git.example/team/hotel-booking-orchestrator/blob/main/docs/runbooks.md',
};

export interface AlertRule {
  readonly alert: string;
  readonly expr: string;
  readonly for?: string;
  readonly labels?: Record<string, string>;
  readonly annotations?: Record<string, string>;
}

/** Every alerting rule of deploy/prometheus/alerts.yml. */
export function alertRules(path = ALERT_RULES_PATH): AlertRule[] {
  const doc = parse(readFileSync(path, 'utf8')) as { groups: { rules: AlertRule[] }[] };
  return doc.groups.flatMap((g) => g.rules).filter((r) => r.alert !== undefined);
}

/** GitHub-style anchors of a Markdown file's headings. */
export function markdownAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  for (const line of markdown.split('\n')) {
    const m = /^#{1,6}\s+(.*)$/.exec(line);
    if (!m) continue;
    anchors.add(
      m[1]!
        .trim()
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\s_-]/gu, '')
        .replace(/\s/g, '-'),
    );
  }
  return anchors;
}

const PROMQL_WORDS = new Set([
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'and',
  'or',
  'unless',
  'offset',
  'bool',
  'inf',
  'nan',
]);

/**
 * The metric names a PromQL expression reads: identifiers that are not functions, aggregations,
 * keywords, label names (in `{…}`, `by (…)`, `without (…)`) or inside strings and ranges.
 */
export function promqlMetricNames(expr: string): Set<string> {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  const names = new Set<string>();
  for (const m of bare.matchAll(/[A-Za-z_:][A-Za-z0-9_:]*/g)) {
    const word = m[0];
    const before = bare.slice(0, m.index);
    const after = bare.slice(m.index + word.length);
    if (/^\s*\(/.test(after)) continue; // a function or an aggregation
    if (/[\d.]$/.test(before)) continue; // a duration or number suffix such as 5m, 1e3
    if (!PROMQL_WORDS.has(word.toLowerCase())) names.add(word);
  }
  return names;
}

/** Every PromQL expression of a Grafana dashboard's panels (rows' nested panels too). */
export function dashboardExpressions(dashboard: unknown): { panel: string; expr: string }[] {
  interface Panel {
    title?: string;
    targets?: { expr?: string }[];
    panels?: Panel[];
  }
  const out: { panel: string; expr: string }[] = [];
  const walk = (panels: Panel[] = []) => {
    for (const p of panels) {
      for (const t of p.targets ?? [])
        if (t.expr) out.push({ panel: p.title ?? '?', expr: t.expr });
      walk(p.panels);
    }
  };
  walk((dashboard as { panels?: Panel[] }).panels);
  return out;
}

/** Metric names in a Prometheus text exposition (samples, so histogram suffixes included). */
export function exposedMetricNames(exposition: string): Set<string> {
  const names = new Set<string>();
  for (const line of exposition.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^[A-Za-z_:][A-Za-z0-9_:]*/.exec(line);
    if (m) names.add(m[0]);
  }
  return names;
}

/** The alert rule file and the runbook's headings, read for the alert and dashboard tests. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

export const ALERT_RULES_PATH = join(__dirname, '..', '..', 'deploy', 'prometheus', 'alerts.yml');

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

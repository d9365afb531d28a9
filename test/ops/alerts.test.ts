/**
 * The alert rules (deploy/prometheus/alerts.yml) checked and unit-tested by Prometheus's own
 * promtool: every alert fires on its condition and stays quiet beside it (alerts.test.yml), and
 * every alert carries a severity, a reason for its threshold and a runbook that exists.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { findPrometheusTool } from '../helpers/prometheus';

const run = promisify(execFile);
const DIR = join(__dirname, '..', '..', 'deploy', 'prometheus');
const promtool = findPrometheusTool('promtool');

interface Rule {
  alert: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
const rules = (
  parse(readFileSync(join(DIR, 'alerts.yml'), 'utf8')) as { groups: { rules: Rule[] }[] }
).groups.flatMap((g) => g.rules);

describe('alert rules (deploy/prometheus)', () => {
  it('each alert has a severity, a duration, the reason for both, and a runbook section', () => {
    const runbooks = readFileSync(join(__dirname, '..', '..', 'docs', 'runbooks.md'), 'utf8');
    const anchors = [...runbooks.matchAll(/^## (.*)$/gm)].map((m) => m[1]!.trim().toLowerCase());
    for (const r of rules) {
      assert.match(r.labels?.severity ?? '', /^(page|warning)$/, `${r.alert}: severity`);
      assert.ok(r.for !== undefined, `${r.alert}: for`);
      assert.ok(r.annotations?.why, `${r.alert}: why annotation`);
      assert.equal(r.annotations?.runbook_url, `docs/runbooks.md#${r.alert.toLowerCase()}`);
      assert.ok(anchors.includes(r.alert.toLowerCase()), `docs/runbooks.md has no ## ${r.alert}`);
    }
  });

  it('every alert has a promtool case that fires and one that stays quiet', () => {
    const tests = parse(readFileSync(join(DIR, 'alerts.test.yml'), 'utf8')) as {
      tests: { alert_rule_test: { alertname: string; exp_alerts: unknown[] }[] }[];
    };
    const cases = tests.tests.flatMap((t) => t.alert_rule_test);
    for (const r of rules) {
      const mine = cases.filter((c) => c.alertname === r.alert);
      assert.ok(
        mine.some((c) => c.exp_alerts.length > 0),
        `${r.alert}: no case where it fires`,
      );
      assert.ok(
        mine.some((c) => c.exp_alerts.length === 0),
        `${r.alert}: no quiet case`,
      );
    }
  });

  it('promtool check rules and promtool test rules pass', { skip: promtool.skip }, async () => {
    const tool = promtool.path!;
    const checked = await run(tool, ['check', 'rules', join(DIR, 'alerts.yml')]);
    assert.match(checked.stdout, new RegExp(`SUCCESS: ${rules.length} rules found`));
    const tested = await run(tool, ['test', 'rules', join(DIR, 'alerts.test.yml')]).catch(
      (err: { stdout?: string; stderr?: string }) => {
        throw new Error(`promtool test rules failed:\n${err.stdout ?? ''}${err.stderr ?? ''}`);
      },
    );
    assert.match(tested.stdout, /SUCCESS/);
  });
});

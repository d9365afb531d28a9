/**
 * The alert rules checked and unit-tested by Prometheus's own promtool, and held to their
 * contract: every alert has a case that fires and one that stays quiet, a severity, and a runbook
 * section that exists, linked absolutely once rendered (the rendering and Alertmanager's routes:
 * alerting-config.test.ts).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { renderAlertRules } from '../../tools/alerting/alerting-config';
import { clusterPorts, clusterScrapeJobs } from '../../tools/temporal-server/cluster-ports';
import { prometheusConfig } from '../../tools/temporal-server/prometheus-server';
import {
  findAlertmanager,
  findPrometheus,
  type PrometheusLookup,
} from '../../tools/temporal-server/prometheus-binaries';
import {
  ALERT_RULES_PATH,
  alertRules,
  markdownAnchors,
  TEST_ALERTING_SETTINGS,
} from './alert-files';

const execFileAsync = promisify(execFile);
const ROOT = join(__dirname, '..', '..');
const RULE_TESTS = join(ROOT, 'deploy', 'prometheus', 'tests', 'alerts.test.yml');

interface PromtoolTests {
  rule_files: string[];
  tests: { alert_rule_test?: { alertname: string; exp_alerts?: unknown[] }[] }[];
}

describe('alert rules', () => {
  let binaries: PrometheusLookup;
  before(async () => {
    binaries = await findPrometheus();
    if (!binaries.found) console.log(`# skipping promtool checks: ${binaries.reason}`);
  });

  it('promtool check rules accepts the rule file', async (t) => {
    if (!binaries.found) return t.skip(binaries.reason);
    const { stdout } = await execFileAsync(binaries.promtool, ['check', 'rules', ALERT_RULES_PATH]);
    assert.match(stdout, new RegExp(`SUCCESS: ${alertRules().length} rules found`));
  });

  it('promtool test rules passes every case', async (t) => {
    if (!binaries.found) return t.skip(binaries.reason);
    const run = await execFileAsync(binaries.promtool, ['test', 'rules', RULE_TESTS]).catch(
      (err: { stdout?: string; stderr?: string }) => err,
    );
    assert.match(run.stdout ?? '', /SUCCESS/, `${run.stdout ?? ''}${run.stderr ?? ''}`);
  });

  it("promtool check config accepts the cluster's and compose's Prometheus configuration", async (t) => {
    if (!binaries.found) return t.skip(binaries.reason);
    const dir = mkdtempSync(join(tmpdir(), 'hbo-promconfig-'));
    try {
      // Both load the rendered rules, and send to an Alertmanager.
      const rules = join(dir, 'alerts.yml');
      writeFileSync(rules, renderAlertRules(TEST_ALERTING_SETTINGS));
      const cluster = join(dir, 'cluster.yml');
      const ports = clusterPorts(17233);
      const jobs = clusterScrapeJobs(ports, 2);
      assert.deepEqual(Object.keys(jobs), ['hotel-worker', 'temporal-server']);
      writeFileSync(
        cluster,
        prometheusConfig({
          binary: binaries.prometheus,
          dir,
          jobs,
          ruleFiles: [rules],
          alertmanagers: [`127.0.0.1:${ports.alertmanager}`],
        }),
      );
      // Compose's file names the rules where its container mounts the rendered volume.
      const compose = join(dir, 'compose.yml');
      writeFileSync(
        compose,
        readFileSync(join(ROOT, 'deploy', 'prometheus', 'prometheus.compose.yml'), 'utf8').replace(
          '/etc/prometheus/alerting/',
          `${dir}/`,
        ),
      );
      for (const file of [cluster, compose]) {
        const { stdout } = await execFileAsync(binaries.promtool, ['check', 'config', file]);
        assert.match(stdout, /SUCCESS: 1 rule files found/, file);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('says in one line why Prometheus or Alertmanager cannot be had, without installing when told not to', async () => {
    const lines: string[] = [];
    const none = await findPrometheus({
      env: { PATH: '' },
      install: false,
      log: (l) => lines.push(l),
    });
    assert.equal(none.found, false);
    assert.match(
      !none.found ? none.reason : '',
      /^prometheus\/promtool not on PATH .*"prometheus" package$/,
    );
    const noAlertmanager = await findAlertmanager({
      env: { PATH: '' },
      install: false,
      log: (l) => lines.push(l),
    });
    assert.match(
      !noAlertmanager.found ? noAlertmanager.reason : '',
      /^alertmanager\/amtool not on PATH .*"prometheus-alertmanager" package$/,
    );
    assert.deepEqual(lines, [], 'nothing installed');
  });

  it('every alert has a case that fires and one that stays quiet', () => {
    const spec = parse(readFileSync(RULE_TESTS, 'utf8')) as PromtoolTests;
    const cases = spec.tests.flatMap((t) => t.alert_rule_test ?? []);
    for (const rule of alertRules()) {
      const own = cases.filter((c) => c.alertname === rule.alert);
      assert.ok(
        own.some((c) => (c.exp_alerts ?? []).length > 0),
        `${rule.alert} has a firing case`,
      );
      assert.ok(
        own.some((c) => (c.exp_alerts ?? []).length === 0),
        `${rule.alert} has a quiet case`,
      );
    }
  });

  it('every alert has a severity and a runbook section that exists, linked absolutely once rendered', () => {
    const anchors = markdownAnchors(readFileSync(join(ROOT, 'docs', 'runbooks.md'), 'utf8'));
    const rendered = join(mkdtempSync(join(tmpdir(), 'hbo-rules-')), 'alerts.yml');
    writeFileSync(rendered, renderAlertRules(TEST_ALERTING_SETTINGS));
    const renderedRules = alertRules(rendered);
    assert.equal(renderedRules.length, alertRules().length);
    for (const rule of alertRules()) {
      assert.match(rule.labels?.severity ?? '', /^(critical|warning)$/, `${rule.alert} severity`);
      const anchor = rule.alert.toLowerCase();
      assert.equal(
        rule.annotations?.runbook_url,
        `\${RUNBOOK_BASE_URL}#${anchor}`,
        `${rule.alert} runbook_url: the base placeholder and the alert's own anchor`,
      );
      assert.ok(
        anchors.has(anchor),
        `${rule.alert}: no heading for #${anchor} in docs/runbooks.md`,
      );
      const link = renderedRules.find((r) => r.alert === rule.alert)?.annotations?.runbook_url;
      assert.equal(
        link,
        `${TEST_ALERTING_SETTINGS.runbookBaseUrl}#${anchor}`,
        `${rule.alert} rendered`,
      );
      assert.equal(new URL(link).hash, `#${anchor}`, 'absolute, with its anchor');
    }
    rmSync(dirname(rendered), { recursive: true, force: true });
  });
});

/**
 * The alerting configuration as tools/alerting renders it: defaults, one line per bad variable,
 * the render command, and Alertmanager's file checked by its own amtool, which also says where
 * each alert's severity routes it; the templates and the docs name exactly the variables read.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import {
  AlertingConfigError,
  ALERTING_VARIABLES,
  CHECKOUT_RUNBOOKS_URL,
  loadAlertingSettings,
  localAlertingDefaults,
  renderAlertmanagerConfig,
  renderAlertRules,
  type AlertingSettings,
} from '../../tools/alerting/alerting-config';
import { clusterAlertingSettings } from '../../tools/stack/cluster-stack';
import { clusterPorts } from '../../tools/temporal-server/cluster-ports';
import {
  findAlertmanager,
  type AlertmanagerLookup,
} from '../../tools/temporal-server/prometheus-binaries';
import { ALERT_RULES_PATH, alertRules, TEST_ALERTING_SETTINGS } from './alert-files';

const execFileAsync = promisify(execFile);
const ROOT = join(__dirname, '..', '..');

describe('alerting settings', () => {
  it('renders runbook links to this checkout by default, and says in one line what is wrong with a variable', () => {
    const defaults = localAlertingDefaults('http://127.0.0.1:9095');
    const local = loadAlertingSettings({}, defaults);
    assert.equal(local.runbookBaseUrl, CHECKOUT_RUNBOOKS_URL);
    assert.equal(CHECKOUT_RUNBOOKS_URL, pathToFileURL(join(ROOT, 'docs', 'runbooks.md')).href);
    assert.equal(local.criticalWebhookUrl, 'http://127.0.0.1:9095/critical');
    assert.equal(local.warningWebhookUrl, 'http://127.0.0.1:9095/warning');
    // The cluster's receiver is on its own port.
    assert.equal(
      clusterAlertingSettings({}, 17233).criticalWebhookUrl,
      `http://127.0.0.1:${clusterPorts(17233).alertReceiver}/critical`,
    );
    const bad: [Record<string, string>, RegExp][] = [
      [
        { RUNBOOK_BASE_URL: 'docs/runbooks.md' },
        /^RUNBOOK_BASE_URL: "docs\/runbooks.md" is not an absolute URL/,
      ],
      [
        { RUNBOOK_BASE_URL: 'https://git.example/runbooks.md#top' },
        /^RUNBOOK_BASE_URL: .* has a #fragment/,
      ],
      [
        { ALERTMANAGER_CRITICAL_WEBHOOK_URL: 'ftp://pager.example/' },
        /^ALERTMANAGER_CRITICAL_WEBHOOK_URL: "ftp:\/\/pager.example\/" is not a URL of https, http/,
      ],
      [{ ALERTMANAGER_WARNING_WEBHOOK_URL: 'tickets' }, /^ALERTMANAGER_WARNING_WEBHOOK_URL: /],
    ];
    for (const [env, message] of bad) {
      assert.throws(
        () => loadAlertingSettings(env, defaults),
        (err: unknown) =>
          err instanceof AlertingConfigError &&
          message.test(err.message) &&
          !err.message.includes('\n'),
        JSON.stringify(env),
      );
    }
  });

  it('the render command writes both files, or exits 2 with one line naming the bad variable', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hbo-render-'));
    const run = (env: Record<string, string>) =>
      execFileAsync(
        process.execPath,
        ['--import', 'tsx', 'tools/alerting/main.ts', 'render', '--out', dir],
        { cwd: ROOT, env: { ...process.env, ...env } },
      ).then(
        (r) => ({ code: 0, ...r }),
        (e: { code: number; stdout: string; stderr: string }) => e,
      );
    try {
      const ok = await run({
        RUNBOOK_BASE_URL: TEST_ALERTING_SETTINGS.runbookBaseUrl,
        ALERTMANAGER_CRITICAL_WEBHOOK_URL: TEST_ALERTING_SETTINGS.criticalWebhookUrl,
        ALERTMANAGER_WARNING_WEBHOOK_URL: TEST_ALERTING_SETTINGS.warningWebhookUrl,
      });
      assert.equal(ok.code, 0, ok.stderr);
      assert.equal(
        readFileSync(join(dir, 'alerts.yml'), 'utf8'),
        renderAlertRules(TEST_ALERTING_SETTINGS),
      );
      assert.equal(
        readFileSync(join(dir, 'alertmanager.yml'), 'utf8'),
        renderAlertmanagerConfig(TEST_ALERTING_SETTINGS),
      );
      assert.doesNotMatch(ok.stdout, /T0KEN/, 'a webhook URL path is not printed');
      const bad = await run({ RUNBOOK_BASE_URL: 'runbooks' });
      assert.equal(bad.code, 2);
      assert.equal(bad.stderr.trim().split('\n').length, 1, bad.stderr);
      assert.match(bad.stderr, /^RUNBOOK_BASE_URL: "runbooks" is not an absolute URL/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('Alertmanager configuration', () => {
  let binaries: AlertmanagerLookup;
  let dir: string;
  before(async () => {
    binaries = await findAlertmanager();
    if (!binaries.found) console.log(`# skipping amtool checks: ${binaries.reason}`);
    dir = mkdtempSync(join(tmpdir(), 'hbo-amconfig-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const write = (name: string, settings: AlertingSettings) => {
    const file = join(dir, name);
    writeFileSync(file, renderAlertmanagerConfig(settings));
    return file;
  };

  it('amtool check-config accepts it rendered, with the defaults and with every variable set', async (t) => {
    if (!binaries.found) return t.skip(binaries.reason);
    const defaults = loadAlertingSettings({}, localAlertingDefaults('http://127.0.0.1:9095'));
    for (const file of [
      write('defaults.yml', defaults),
      write('set.yml', TEST_ALERTING_SETTINGS),
    ]) {
      const { stdout } = await execFileAsync(binaries.amtool, ['check-config', file]);
      assert.match(stdout, /SUCCESS/, file);
      assert.match(stdout, /2 receivers/, file);
    }
    // And refuses what is not a configuration (the check can fail).
    const broken = join(dir, 'broken.yml');
    writeFileSync(broken, 'route:\n  receiver: nobody\n');
    await assert.rejects(execFileAsync(binaries.amtool, ['check-config', broken]));
    // Each receiver's URL is the variable's.
    const text = readFileSync(join(dir, 'set.yml'), 'utf8');
    assert.match(text, /url: 'https:\/\/pager\.example\/hooks\/T0KEN'/);
    assert.match(text, /url: 'https:\/\/tickets\.example\/alerts'/);
  });

  it('routes every alert to the receiver of its severity (amtool config routes test)', async (t) => {
    if (!binaries.found) return t.skip(binaries.reason);
    const { amtool } = binaries;
    const file = write('routes.yml', TEST_ALERTING_SETTINGS);
    for (const rule of alertRules()) {
      const severity = rule.labels?.severity ?? '';
      const { stdout } = await execFileAsync(amtool, [
        'config',
        'routes',
        'test',
        `--config.file=${file}`,
        `--verify.receivers=${severity}`,
        `alertname=${rule.alert}`,
        `severity=${severity}`,
      ]);
      assert.equal(stdout.trim(), severity, rule.alert);
    }
    // An alert without a severity pages rather than vanishes.
    const { stdout } = await execFileAsync(amtool, [
      'config',
      'routes',
      'test',
      `--config.file=${file}`,
      'alertname=SomethingNew',
    ]);
    assert.equal(stdout.trim(), 'critical');
  });

  it('the templates and the docs name exactly the variables the renderer reads', () => {
    const template = readFileSync(join(ROOT, 'deploy', 'alertmanager', 'alertmanager.yml'), 'utf8');
    const rules = readFileSync(ALERT_RULES_PATH, 'utf8');
    const used = new Set(
      [...`${template}\n${rules}`.matchAll(/\$\{([A-Z0-9_]+)\}/g)].map((m) => m[1]!),
    );
    assert.deepEqual([...used].sort(), Object.keys(ALERTING_VARIABLES).sort());
    // And the docs name those, no others.
    for (const doc of [
      'docs/runbooks.md',
      'docs/configuration.md',
      'docs/operating.md',
      'docker-compose.yml',
    ]) {
      const text = readFileSync(join(ROOT, doc), 'utf8');
      const named = new Set(
        [...text.matchAll(/\b(?:ALERTMANAGER|RUNBOOK)_[A-Z0-9_]+/g)].map((m) => m[0]),
      );
      assert.deepEqual([...named].sort(), Object.keys(ALERTING_VARIABLES).sort(), doc);
    }
  });
});

/**
 * `npm run chaos -- [crash] [faults] [personal-data] [load] [fleet] [nodes] [deploy]
 * [server-upgrade]` (default: the first four; `fleet`, `nodes`, `deploy` and `server-upgrade` run
 * on the production topology of `npm run cluster`, see tools/chaos/fleet-drill.ts, node-drill.ts
 * and upgrade-drill.ts): the long
 * variants of the reliability drills, each against its own Temporal dev server, the
 * simulator and the worker as a subprocess. Prints each drill's figures; exits 1 when one fails.
 *
 * Knobs (environment, read here only):
 *
 * | variable | default | drill |
 * |---|---|---|
 * | CHAOS_BOOKINGS | 200 | crash: bookings |
 * | CHAOS_WORKER_KILLS | 10 | crash: worker SIGKILLs |
 * | CHAOS_SERVER_KILLS | 1 | crash: dev-server SIGKILLs |
 * | CHAOS_BURST_MS | 60000 | faults: length of the 30 % 5xx burst |
 * | CHAOS_BURST_RATE | 4 | faults: bookings per second |
 * | CHAOS_PII_BOOKINGS | 100 | personal-data: bookings with sentinel guest data |
 * | CHAOS_DURATION_MS | 1800000 (30 min) | load: length of the run |
 * | CHAOS_RATE | 10 | load: bookings per second |
 * | CHAOS_FAULT_RATE | 0.01 | load: share of faults |
 * | CHAOS_HEAP_SNAPSHOTS_MS | none | load: heap snapshots of the worker (main and workflow threads) at these ms after its start, comma-separated, into `<work dir>/load-…/memory/` |
 * | CHAOS_WORKER_ENV | none | load: extra worker environment for experiments, `NAME=value` separated by spaces |
 * | CHAOS_WORKER_NODE_ARGS | none | load: extra node arguments of the worker for experiments, separated by spaces |
 * | CHAOS_REPORT_JSON | none | load: also write the drill's report (memory samples and curve included) to this file |
 * | CHAOS_RESULTS_DIR | bench/results | load: a run of 30 min or more writes its memory figures there as `load-drill-<N>min.json`, for `npm run bench` |
 * | CHAOS_FLEET_BOOKINGS | 300 | fleet: bookings |
 * | CHAOS_FLEET_WORKERS | 3 | fleet: worker processes on one task queue |
 * | CHAOS_FLEET_WINDOW_MS | 120000 | fleet: starts and disruptions spread over this |
 * | CHAOS_NODE_BOOKINGS | 300 | nodes: bookings, through 3 workers on 3 server nodes |
 * | CHAOS_NODE_DOWN_MS | 60000 | nodes: how long each SIGKILLed node stays down |
 * | CHAOS_UPGRADE_BOOKINGS | 150 | server-upgrade: bookings, through 3 workers on 3 server nodes |
 * | CHAOS_UPGRADE_FROM | the oldest supported | server-upgrade: the Temporal release it starts on |
 * | CHAOS_DEPLOY_FROM | main | deploy: the old release (git revision) |
 * | CHAOS_DEPLOY_TO | this checkout | deploy: the new release (git revision) |
 * | CHAOS_DEPLOY_TLS | false | deploy: mTLS on (both releases must support it) |
 * | CHAOS_WORK_DIR | a new temp dir | where DB files, bundle and worker logs go (kept) |
 * | CHAOS_SEED | time | PRNG seed of the choices |
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleWorkflows } from '../../src/workflow-bundle';
import { closeOpenStacks } from './chaos-stack';
import { REPO_ROOT } from './worker-process';
import { formatCrashReport, runCrashDrill } from './crash-drill';
import { formatFaultBurstReport, runFaultBurst } from './fault-burst';
import { formatDeployReport, runDeployDrill } from './deploy-drill';
import { fleetDataDir, formatFleetReport, runFleetDrill } from './fleet-drill';
import { formatLoadReport, runLoad, writeLoadDrillSummary } from './load-run';
import { formatNodeReport, runNodeDrill } from './node-drill';
import { formatUpgradeReport, runUpgradeDrill } from './upgrade-drill';
import { selectedRelease } from '../temporal-server/selected-release';
import { formatPersonalDataReport, runPersonalDataDrill } from './personal-data';

const DRILLS = [
  'crash',
  'faults',
  'personal-data',
  'load',
  'fleet',
  'nodes',
  'deploy',
  'server-upgrade',
] as const;
type Drill = (typeof DRILLS)[number];
/** Without arguments: the drills that need only the dev server. */
const DEFAULT_DRILLS: readonly Drill[] = ['crash', 'faults', 'personal-data', 'load'];

function num(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0)
    throw new Error(`${name}: "${raw}" is not a non-negative number`);
  return n;
}

function numList(name: string): number[] {
  const raw = process.env[name] ?? '';
  return raw
    .split(',')
    .filter((part) => part.trim() !== '')
    .map((part) => {
      const n = Number(part);
      if (!Number.isFinite(n) || n < 0)
        throw new Error(`${name}: "${part}" is not a non-negative number (ms, comma-separated)`);
      return n;
    });
}

function envPairs(name: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of (process.env[name] ?? '').split(' ').filter((p) => p !== '')) {
    const eq = pair.indexOf('=');
    if (eq <= 0)
      throw new Error(`${name}: "${pair}" is not NAME=value (pairs separated by spaces)`);
    out[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return out;
}

async function main(): Promise<number> {
  const asked = process.argv.slice(2);
  const unknown = asked.filter((a) => !(DRILLS as readonly string[]).includes(a));
  if (unknown.length > 0) {
    console.error(`unknown drill(s): ${unknown.join(', ')}; choose from ${DRILLS.join(', ')}`);
    return 2;
  }
  const drills: readonly Drill[] = asked.length > 0 ? (asked as Drill[]) : DEFAULT_DRILLS;
  const root = process.env.CHAOS_WORK_DIR || mkdtempSync(join(tmpdir(), 'hbo-chaos-'));
  const seed = num('CHAOS_SEED', Date.now() % 1_000_000);
  const stamp = () => new Date().toISOString().slice(11, 19);
  const log = (drill: string) => (line: string) => console.log(`${stamp()} [${drill}] ${line}`);
  console.log(`chaos: ${drills.join(', ')}; work dir ${root}; seed ${seed}`);

  // One workflow bundle for every worker subprocess of the run.
  if (!process.env.WORKFLOW_BUNDLE_PATH) {
    const bundlePath = join(root, 'workflow-bundle.js');
    writeFileSync(bundlePath, (await bundleWorkflows()).code);
    process.env.WORKFLOW_BUNDLE_PATH = bundlePath;
  }

  const results: { drill: Drill; passed: boolean; seconds: number }[] = [];
  for (const drill of drills) {
    const t0 = Date.now();
    const workDir = mkdtempSync(join(root, `${drill}-`));
    let lines: string[];
    let passed: boolean;
    if (drill === 'crash') {
      const workerKills = num('CHAOS_WORKER_KILLS', 10);
      const r = await runCrashDrill({
        bookings: num('CHAOS_BOOKINGS', 200),
        workerKills,
        serverKills: num('CHAOS_SERVER_KILLS', 1),
        // About one kill every 6 s, starts over the same window.
        startWindowMs: Math.max(10_000, workerKills * 6_000),
        killWindowMs: Math.max(10_000, workerKills * 6_000),
        settleTimeoutMs: 300_000,
        reconcile: true,
        workDir,
        seed,
        log: log(drill),
      });
      lines = formatCrashReport(r);
      passed = r.passed;
    } else if (drill === 'faults') {
      const r = await runFaultBurst({
        arrivalsPerSecond: num('CHAOS_BURST_RATE', 4),
        steadyMs: 20_000,
        burstMs: num('CHAOS_BURST_MS', 60_000),
        errorRate: 0.3,
        settleTimeoutMs: 180_000,
        workDir,
        temporal: { own: {} },
        seed,
        log: log(drill),
      });
      lines = formatFaultBurstReport(r);
      passed = r.passed;
    } else if (drill === 'personal-data') {
      const r = await runPersonalDataDrill({
        bookings: num('CHAOS_PII_BOOKINGS', 100),
        workDir,
        seed,
        log: log(drill),
      });
      lines = formatPersonalDataReport(r);
      passed = r.passed;
    } else if (drill === 'deploy') {
      const to = process.env.CHAOS_DEPLOY_TO;
      const r = await runDeployDrill({
        from: process.env.CHAOS_DEPLOY_FROM || 'main',
        ...(to ? { to } : {}),
        tls: process.env.CHAOS_DEPLOY_TLS === 'true',
        dataDir: join(workDir, 'cluster'),
        workDir,
        log: log(drill),
      });
      lines = formatDeployReport(r);
      passed = r.passed;
    } else if (drill === 'nodes') {
      const r = await runNodeDrill({
        bookings: num('CHAOS_NODE_BOOKINGS', 300),
        downMs: num('CHAOS_NODE_DOWN_MS', 60_000),
        dataDir: fleetDataDir(workDir),
        seed,
        log: log(drill),
      });
      lines = formatNodeReport(r);
      passed = r.passed;
    } else if (drill === 'server-upgrade') {
      const from = process.env.CHAOS_UPGRADE_FROM;
      const r = await runUpgradeDrill({
        bookings: num('CHAOS_UPGRADE_BOOKINGS', 150),
        ...(from ? { from: selectedRelease({ TEMPORAL_RELEASE: from }) } : {}),
        dataDir: fleetDataDir(workDir),
        seed,
        log: log(drill),
      });
      lines = formatUpgradeReport(r);
      passed = r.passed;
    } else if (drill === 'fleet') {
      const r = await runFleetDrill({
        bookings: num('CHAOS_FLEET_BOOKINGS', 300),
        workers: num('CHAOS_FLEET_WORKERS', 3),
        startWindowMs: num('CHAOS_FLEET_WINDOW_MS', 120_000),
        dataDir: fleetDataDir(workDir),
        seed,
        log: log(drill),
      });
      lines = formatFleetReport(r);
      passed = r.passed;
    } else {
      const r = await runLoad({
        bookingsPerSecond: num('CHAOS_RATE', 10),
        durationMs: num('CHAOS_DURATION_MS', 30 * 60_000),
        faultRate: num('CHAOS_FAULT_RATE', 0.01),
        settleTimeoutMs: 300_000,
        heapSnapshotsAtMs: numList('CHAOS_HEAP_SNAPSHOTS_MS'),
        workerEnv: envPairs('CHAOS_WORKER_ENV'),
        workerNodeArgs: (process.env.CHAOS_WORKER_NODE_ARGS ?? '')
          .split(' ')
          .filter((a) => a !== ''),
        workDir,
        seed,
        log: log(drill),
      });
      const reportFile = process.env.CHAOS_REPORT_JSON;
      if (reportFile) writeFileSync(reportFile, `${JSON.stringify(r, null, 2)}\n`);
      const summary = writeLoadDrillSummary(
        process.env.CHAOS_RESULTS_DIR || join(REPO_ROOT, 'bench', 'results'),
        r,
        new Date(),
      );
      lines = formatLoadReport(r);
      if (summary) lines.push(`  memory figures for the bench written to ${summary}`);
      passed = r.passed;
    }
    for (const line of lines) console.log(line);
    results.push({ drill, passed, seconds: (Date.now() - t0) / 1000 });
  }
  console.log(
    `chaos summary: ${results.map((r) => `${r.drill} ${r.passed ? 'PASS' : 'FAIL'} (${r.seconds.toFixed(0)} s)`).join(', ')}`,
  );
  return results.every((r) => r.passed) ? 0 : 1;
}

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  // Every signal handled: Ctrl-C reaches npm, tsx and this process, and a second one must not end
  // the stop halfway.
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    console.error(`chaos: ${signal}, stopping servers and workers`);
    void closeOpenStacks().finally(() => process.exit(130));
  });
}

main().then(
  (code) => process.exit(code),
  async (err: unknown) => {
    console.error(err);
    await closeOpenStacks();
    process.exit(1);
  },
);

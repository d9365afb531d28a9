/**
 * `npm run bench` (full) and `npm run bench -- --quick` (every part at a smaller size; their times
 * on this machine are at the top of bench/README.md): promises and activations per step of a
 * booking (counted in a replay, bench/promise-count.ts), orchestration overhead, throughput beside
 * a no-op control workflow, scale of waiting bookings, the hotel API client and the simulator,
 * then the same on the cluster (PostgreSQL, one node and three). Each part starts what it needs
 * (its own dev server on a fresh SQLite file, the simulator and the worker in child processes) and
 * stops it. Every figure is a ratio against a baseline measured in the same run, or an absolute
 * bound (RSS, lateness, timeouts).
 *
 * Writes `bench/results/latest.json` (a `--quick` run `quick.tmp.json`, a run of only some parts,
 * `BENCH_PARTS=...`, `partial.tmp.json`: see outputFor) and prints a table. Knobs: see bench-config.ts.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import type { WorkerOptions } from '@temporalio/worker';
import { readLoadDrillSummaries } from '../tools/chaos/load-run';
import { runAheadBench } from './ahead';
import { runClientBench } from './client';
import { runSimulatorBench } from './simulator';
import { RESULTS_DIR, settingsFrom, type BenchSettings, type Part } from './bench-config';
import { clusterFigures, runClusterBench } from './cluster';
import { installBenchRuntime } from './bench-worker';
import { bundleOnce } from './bench-stack';
import { compiledBenchWorker, SOURCES_WORKER } from './compiled-worker';
import { runOverheadBench } from './overhead';
import { runScaleBench } from './scale';
import { runThroughputBench, type ThroughputResult } from './throughput';
import { runEventsBench } from './events';
import { runServerWorkBench } from './server-work';
import { round } from './stats';
import { runPromiseCountBench } from './promise-count';
import { reported, targets, targetsRecord, type BenchResults } from './targets';

/** Parts that start no worker: a run of only these compiles none. */
const WITHOUT_WORKER: readonly Part[] = ['promises', 'client', 'simulator'];

function machine() {
  let cpuModel = cpus()[0]?.model ?? 'unknown';
  try {
    const m = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'));
    if (m?.[1]) cpuModel = m[1].trim();
  } catch {
    // Not Linux: os.cpus() it is.
  }
  return {
    cpu: cpuModel,
    cores: cpus().length,
    memoryGiB: round(totalmem() / 2 ** 30, 1),
    node: process.version,
    loadAverageAtStart: loadavg().map((l) => round(l)),
  };
}

function printTable(r: BenchResults): void {
  const rows: string[][] = [['figure', 'value', 'target', '']];
  for (const t of targets(r)) {
    if (t.value === undefined) continue;
    rows.push([t.label, String(t.value), t.target, t.holds(t.value) ? 'holds' : 'MISSES']);
  }
  for (const [label, value] of Object.entries(reported(r)))
    rows.push([label, String(value), '', '']);
  const o = r.overhead ?? {};
  for (const [k, v] of Object.entries(o)) rows.push([`overhead R p99 ${k}`, String(v.p99), '', '']);
  if (r.throughput) {
    rows.push(['control workflows/s', String(r.throughput.controlWorkflowsPerSecond), '', '']);
  }
  if (r.scale) rows.push(['scale open workflows', String(r.scale.openWorkflows), '', '']);
  if (r.ahead) {
    const a = r.ahead;
    rows.push([
      `ahead: ${a.population} polls due, first call p50 / max ms`,
      `${a.priority.firstCallP50Ms} / ${a.priority.firstCallMaxMs}`,
      '',
      '',
    ]);
    rows.push([
      'ahead baseline (no priority) p99 / p50 / max ms',
      `${a.baseline.firstCallP99Ms} / ${a.baseline.firstCallP50Ms} / ${a.baseline.firstCallMaxMs}`,
      '',
      '',
    ]);
  }
  if (r.client) {
    rows.push(['client signed calls/s', String(round(r.client.signedCallsPerSecond)), '', '']);
    rows.push(['client bare calls/s', String(round(r.client.bareCallsPerSecond)), '', '']);
    rows.push(['client CPU µs/call', String(round(r.client.cpuMicrosPerCall, 1)), '', '']);
  }
  if (r.simulator) {
    rows.push(['simulator req/s', String(round(r.simulator.requestsPerSecond)), '', '']);
    rows.push(['bare server req/s', String(round(r.simulator.bareRequestsPerSecond)), '', '']);
  }
  if (r.cluster) {
    for (const [name, value] of Object.entries(clusterFigures(r.cluster))) {
      rows.push([name, value, '', '']);
    }
  }
  const widths = [0, 1, 2, 3].map((i) => Math.max(...rows.map((row) => (row[i] ?? '').length)));
  for (const row of rows) console.log(row.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  '));
}

async function main(): Promise<number> {
  const settings: BenchSettings = settingsFrom(process.argv.slice(2), process.env);
  const output = settings.output;
  const began = Date.now();
  const log = (line: string) =>
    console.log(`[bench +${((Date.now() - began) / 1000).toFixed(0)}s] ${line}`);
  const overrides = settings.workerOverrides as Partial<WorkerOptions>;
  // Before any connection: the SDK runtime is per process (used here only for in-process workers).
  installBenchRuntime();

  const work = mkdtempSync(join(tmpdir(), 'hbo-bench-run-'));
  const results: BenchResults = {
    date: new Date().toISOString(),
    machine: machine(),
    command: `npm run bench${settings.quick ? ' -- --quick' : ''}`,
    quick: settings.quick,
    parts: settings.parts,
    settings: { ...settings, output },
  };
  const errors: Record<string, string> = {};
  try {
    log(`bundling workflows once (${settings.quick ? 'quick' : 'full'} run)`);
    const bundlePath = settings.bundlePath ?? (await bundleOnce(work));
    const compiledWorker = settings.workerFromSources
      ? (log('worker from the sources through tsx (BENCH_WORKER_FROM_SOURCES)'), SOURCES_WORKER)
      : settings.parts.every((p) => WITHOUT_WORKER.includes(p))
        ? SOURCES_WORKER // never started: no part of this run starts a worker
        : await compiledBenchWorker(log);
    const ctx = {
      compiledWorker,
      bundlePath,
      overrides,
      serverDynamicConfig: settings.serverDynamicConfig,
      workerNodeArgs: settings.workerNodeArgs,
      log,
    };
    const part = async <T>(name: string, fn: () => Promise<T>): Promise<void> => {
      if (!settings.parts.includes(name as Part)) return;
      log(`${name}: start`);
      const t0 = Date.now();
      try {
        results[name] = await fn();
      } catch (err) {
        errors[name] = err instanceof Error ? (err.stack ?? err.message) : String(err);
        log(`${name}: FAILED: ${errors[name]}`);
      }
      log(`${name}: done in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
    };
    await part('promises', () => runPromiseCountBench(ctx));
    await part('overhead', () => runOverheadBench(settings.overhead, ctx));
    await part('throughput', () => runThroughputBench(settings.throughput, ctx));
    await part('events', () => runEventsBench(settings.throughput, ctx));
    await part('work', () => runServerWorkBench(settings.work, ctx));
    await part('scale', () => runScaleBench(settings.scale, ctx));
    await part('ahead', () => runAheadBench(settings.ahead, ctx));
    await part('client', () => runClientBench(settings.client));
    await part('simulator', () => runSimulatorBench(settings.simulator));
    // Last: the cluster's processes would load the machine under the dev-server parts.
    await part('cluster', () =>
      runClusterBench(settings.cluster, ctx, {
        overhead: results.overhead,
        throughput: results.throughput as ThroughputResult | undefined,
      }),
    );
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  results.durationSeconds = round((Date.now() - began) / 1000, 0);
  if (!settings.quick) {
    const drills = readLoadDrillSummaries(RESULTS_DIR);
    if (drills) results.loadDrills = drills;
  }
  results.targets = targetsRecord(results);
  const figures = reported(results);
  if (Object.keys(figures).length > 0) results.reported = figures;
  if (Object.keys(errors).length > 0) results.errors = errors;
  mkdirSync(dirname(output), { recursive: true });
  writeFileSync(output, `${JSON.stringify(results, null, 2)}\n`);
  console.log('');
  console.log(`${results.command} — ${String(results.date)} — ${JSON.stringify(results.machine)}`);
  printTable(results);
  console.log(`\nwritten to ${output} in ${String(results.durationSeconds)} s`);
  return Object.keys(errors).length > 0 ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);

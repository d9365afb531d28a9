/**
 * `npm run bench` (full) and `npm run bench -- --quick` (every part at a smaller size), the bench's
 * one entry. bench/README.md says what each part measures, its knobs and how long it takes;
 * bench/results/log.md holds each run's figures. The parts, in the order run: promises and
 * activations per step of a booking (promises/), orchestration overhead (overhead/), throughput
 * beside a no-op control workflow (throughput/), order events (events/), supplier accounts
 * (accounts/: one hanging beside another, one account's cap), server work per booking (work/),
 * scale of waiting bookings (scale/), bookings ahead of polls (ahead/), the hotel API client
 * (client/) and the simulator (simulator/), then the cluster (cluster/). Each part starts
 * what it needs through the one stack starter (shared/stack.ts: its own dev server on a fresh
 * SQLite file, the simulator and the worker in child processes) and stops it. Every figure is a
 * ratio against a baseline measured in the same run, or an absolute bound (RSS, lateness,
 * timeouts).
 *
 * Writes `bench/results/latest.json` (a `--quick` run `quick.tmp.json`, a run of only some parts,
 * `BENCH_PARTS=...`, `partial.tmp.json`: see shared/config.ts `outputFor`) and prints a table.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { WorkerOptions } from '@temporalio/worker';
import { readLoadDrillSummaries } from '../tools/chaos/load-run';
import { runAccountsBench } from './accounts/accounts';
import { runAheadBench } from './ahead/ahead';
import { runClientBench } from './client/client';
import { runClusterBench } from './cluster/cluster';
import { runEventsBench } from './events/events';
import { runOverheadBench } from './overhead/overhead';
import { runPromiseCountBench } from './promises/count';
import { printTable, machine } from './report/table';
import { reported, targetsRecord, type BenchResults } from './report/targets';
import { runScaleBench } from './scale/scale';
import { compiledBenchWorker, SOURCES_WORKER } from './shared/compiled-worker';
import { RESULTS_DIR, settingsFrom, type BenchSettings, type Part } from './shared/config';
import type { PartContext } from './shared/stack';
import { round } from './shared/stats';
import { bundleOnce } from './shared/temporal';
import { installBenchRuntime } from './shared/worker';
import { runSimulatorBench } from './simulator/simulator';
import type { ThroughputResult } from './throughput/throughput';
import { runThroughputBench } from './throughput/throughput';
import { runServerWorkBench } from './work/work';

/** Parts that start no worker: a run of only these compiles none. */
const WITHOUT_WORKER: readonly Part[] = ['promises', 'client', 'simulator'];

type Log = (line: string) => void;

/** The workflow bundle and the compiled worker every part's workers run. */
async function partContext(s: BenchSettings, work: string, log: Log): Promise<PartContext> {
  log(`bundling workflows once (${s.quick ? 'quick' : 'full'} run)`);
  const bundlePath = s.bundlePath ?? (await bundleOnce(work));
  const compiledWorker = s.workerFromSources
    ? (log('worker from the sources through tsx (BENCH_WORKER_FROM_SOURCES)'), SOURCES_WORKER)
    : s.parts.every((p) => WITHOUT_WORKER.includes(p))
      ? SOURCES_WORKER // never started: no part of this run starts a worker
      : await compiledBenchWorker(log);
  return {
    compiledWorker,
    bundlePath,
    overrides: s.workerOverrides as Partial<WorkerOptions>,
    serverDynamicConfig: s.serverDynamicConfig,
    workerNodeArgs: s.workerNodeArgs,
    log,
  };
}

/** Runs the parts asked, in order, each result under its name; a part that fails is noted. */
async function runParts(
  s: BenchSettings,
  ctx: PartContext,
  results: BenchResults,
  errors: Record<string, string>,
): Promise<void> {
  const part = async <T>(name: Part, fn: () => Promise<T>): Promise<void> => {
    if (!s.parts.includes(name)) return;
    ctx.log(`${name}: start`);
    const t0 = Date.now();
    try {
      (results as Record<string, unknown>)[name] = await fn();
    } catch (err) {
      errors[name] = err instanceof Error ? (err.stack ?? err.message) : String(err);
      ctx.log(`${name}: FAILED: ${errors[name]}`);
    }
    ctx.log(`${name}: done in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  };
  await part('promises', () => runPromiseCountBench(ctx));
  await part('overhead', () => runOverheadBench(s.overhead, ctx));
  await part('throughput', () => runThroughputBench(s.throughput, ctx));
  await part('events', () => runEventsBench(s.throughput, ctx));
  await part('accounts', () => runAccountsBench(s.accounts, ctx));
  await part('work', () => runServerWorkBench(s.work, ctx));
  await part('scale', () => runScaleBench(s.scale, ctx));
  await part('ahead', () => runAheadBench(s.ahead, ctx));
  await part('client', () => runClientBench(s.client));
  await part('simulator', () => runSimulatorBench(s.simulator));
  // Last: the cluster's processes would load the machine under the dev-server parts.
  await part('cluster', () =>
    runClusterBench(s.cluster, ctx, {
      overhead: results.overhead,
      throughput: results.throughput as ThroughputResult | undefined,
    }),
  );
}

/** The run's figures against their targets, written to the output file and printed. */
function finish(s: BenchSettings, results: BenchResults, errors: Record<string, string>): void {
  if (!s.quick) {
    const drills = readLoadDrillSummaries(RESULTS_DIR);
    if (drills) results.loadDrills = drills;
  }
  results.targets = targetsRecord(results);
  const figures = reported(results);
  if (Object.keys(figures).length > 0) results.reported = figures;
  if (Object.keys(errors).length > 0) results.errors = errors;
  mkdirSync(dirname(s.output), { recursive: true });
  writeFileSync(s.output, `${JSON.stringify(results, null, 2)}\n`);
  console.log('');
  console.log(`${results.command} — ${String(results.date)} — ${JSON.stringify(results.machine)}`);
  printTable(results);
  console.log(`\nwritten to ${s.output} in ${String(results.durationSeconds)} s`);
}

async function main(): Promise<number> {
  const settings = settingsFrom(process.argv.slice(2), process.env);
  const began = Date.now();
  const log: Log = (line) =>
    console.log(`[bench +${((Date.now() - began) / 1000).toFixed(0)}s] ${line}`);
  // Before any connection: the SDK runtime is per process (used here only for in-process workers).
  installBenchRuntime();
  const work = mkdtempSync(join(tmpdir(), 'hbo-bench-run-'));
  const results: BenchResults = {
    date: new Date().toISOString(),
    machine: machine(),
    command: `npm run bench${settings.quick ? ' -- --quick' : ''}`,
    quick: settings.quick,
    parts: settings.parts,
    settings,
  };
  const errors: Record<string, string> = {};
  try {
    await runParts(settings, await partContext(settings, work, log), results, errors);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  results.durationSeconds = round((Date.now() - began) / 1000, 0);
  finish(settings, results, errors);
  return Object.keys(errors).length > 0 ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);

/**
 * `npx tsx bench/experiments/bundle-ab.ts <bundle A> <bundle B>`: what one workflow costs the worker with each
 * of two workflow bundles (e.g. a bundle of `main` built with `tools/scripts/build-bundle.ts` against
 * this checkout's), in one process: recorded histories (test/histories/) replayed with A and B in
 * alternating rounds (ABBA…), so both meet the same machine load. Replaying runs every workflow
 * task of the history in the worker's sandbox, the workflow's creation included, without a server,
 * under the workflow id the history was recorded with (a booking checks that its id is its order's).
 * Prints, for each round, wall-clock ms and CPU ms (the process's, every thread) per replayed
 * workflow, and the ratios of the medians, B ÷ A. On a machine shared with other work the CPU
 * figures are the ones to read: the wall clock also counts the time others held the cores.
 * Knobs: AB_HISTORIES (comma list of paths under test/histories/ without `.json`; default the
 * booking the `promises` part replays, `one-order-one-workflow/instant-confirmed-guarded`),
 * AB_WORKFLOWS per round (default 200), AB_ROUNDS (default 4).
 */
import { readFileSync } from 'node:fs';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { loadHistory, PROMISE_COUNT_HISTORY } from '../promises/histories';
import { round as roundTo } from '../shared/stats';
import { benchDataConverter } from '../shared/worker';

const [pathA, pathB] = process.argv.slice(2);
const names = (process.env.AB_HISTORIES || PROMISE_COUNT_HISTORY).split(',');
const perRound = Number(process.env.AB_WORKFLOWS ?? 200);
const rounds = Number(process.env.AB_ROUNDS ?? 4);

// Each under the workflow id it was recorded with (rule 1: a booking's id must be its order's).
const histories = names.map(loadHistory);

interface PerWorkflow {
  readonly ms: number;
  readonly cpuMs: number;
}

/** Wall-clock and CPU ms per replayed workflow with the bundle at `path`. */
async function round(path: string, tag: string): Promise<PerWorkflow> {
  const workflowBundle = { code: readFileSync(path, 'utf8') };
  const batch = Array.from({ length: perRound }, (_, i) => histories[i % histories.length]!);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for await (const r of Worker.runReplayHistories(
    { workflowBundle, dataConverter: benchDataConverter(), replayName: `bundle-ab-${tag}` },
    batch,
  )) {
    if (r.error) throw new Error(`${path}: ${r.workflowId}: ${String(r.error)}`);
  }
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  return { ms: ms / perRound, cpuMs: (cpu.user + cpu.system) / 1000 / perRound };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  if (!pathA || !pathB)
    throw new Error('usage: npx tsx bench/experiments/bundle-ab.ts <bundle A> <bundle B>');
  Runtime.install({ logger: new DefaultLogger('WARN') });
  await round(pathB, 'warm');
  const a: PerWorkflow[] = [];
  const b: PerWorkflow[] = [];
  for (let i = 0; i < rounds; i++) {
    const order = i % 2 === 0 ? (['A', 'B'] as const) : (['B', 'A'] as const);
    for (const which of order) {
      (which === 'A' ? a : b).push(await round(which === 'A' ? pathA : pathB, `${which}${i}`));
    }
  }
  const ratio = (key: keyof PerWorkflow) =>
    roundTo(median(b.map((x) => x[key])) / median(a.map((x) => x[key])), 3);
  console.log(
    JSON.stringify({
      histories: names,
      workflowsPerRound: perRound,
      msPerWorkflow: { A: a.map((x) => roundTo(x.ms)), B: b.map((x) => roundTo(x.ms)) },
      cpuMsPerWorkflow: { A: a.map((x) => roundTo(x.cpuMs)), B: b.map((x) => roundTo(x.cpuMs)) },
      ratioBtoA: ratio('ms'),
      cpuRatioBtoA: ratio('cpuMs'),
    }),
  );
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});

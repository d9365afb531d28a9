/**
 * Promises created in workflow code and entries into the workflow sandbox, per step of a confirmed
 * booking, counted in a replay of a recorded history: the two costs the SDK's sandbox adds per
 * promise (a captured, source-mapped stack) and per entry (a vm call with a timeout, whose
 * watchdog starts a thread), which only the workflow code's shape controls.
 *
 * How: observer.ts replays the history and notes each promise and each entry into the sandbox;
 * steps.ts turns those notes into steps. The counts depend on the workflow
 * code and the history only: the same bundle and history give the same numbers on every run, on
 * any machine.
 *
 * `npx tsx bench/promises/count.ts [history …]` prints each step with the source lines that created
 * its promises (histories under test/histories/, default the bench's); `--json` prints the result;
 * `--bundle <file>` counts with a bundle built elsewhere (tools/scripts/build-bundle.ts).
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { outcomeUpdate } from '../../src/shared/booking-messages';
import { bundleWorkflows } from '../../src/workflow-bundle';
import { BENCH_WORKFLOWS_PATH } from '../control';
import { loadHistory, PROMISE_COUNT_HISTORY } from './histories';
import { observeReplay } from './observer';
import { bookingWindow, stepsOf, type PromiseCount } from './steps';

export { loadHistory, PROMISE_COUNT_HISTORY } from './histories';

/** The steps of one replay of `historyName` with the bundle's code, and its booking window. */
export async function countPromises(
  code: string,
  historyName: string,
  options: { readonly sites?: boolean } = {},
): Promise<PromiseCount> {
  const { history, workflowId } = loadHistory(historyName);
  const steps = stepsOf(await observeReplay({ code, history, workflowId, ...options }));
  return { history: historyName, steps, window: bookingWindow(steps, outcomeUpdate.name) };
}

/**
 * The bench's part: counts twice, each in a replay worker of its own, and fails unless both agree.
 * Runs in a child process: a replay installs the SDK's sandbox hooks in its process for good,
 * and they would slow every later part's client.
 */
export async function runPromiseCountBench(ctx: {
  readonly bundlePath: string;
  readonly log: (line: string) => void;
}): Promise<PromiseCount> {
  const stdout = await new Promise<string>((done, fail) =>
    execFile(
      process.execPath,
      ['--import', 'tsx', __filename, '--json', '--bundle', ctx.bundlePath, PROMISE_COUNT_HISTORY],
      { maxBuffer: 64 * 2 ** 20 },
      (err, out, errOut) => (err ? fail(new Error(`${err.message}\n${errOut}`)) : done(out)),
    ),
  );
  const [result] = JSON.parse(stdout) as PromiseCount[];
  if (!result) throw new Error('the count printed no result');
  const w = result.window;
  ctx.log(
    `promises: ${result.history}: ${w.promises} promises, ${w.activations} activations in ${w.workflowTasks} workflow tasks, ${w.entries} sandbox entries through the guard's first wait`,
  );
  return result;
}

function printSteps(r: PromiseCount): void {
  const w = r.window;
  console.log(
    `${r.history}: through activation ${w.throughActivation}${w.reachedFirstWait ? " (the guard's first wait)" : ' (the replay ended before the guard waited)'}: ${w.promises} promises, ${w.activations} activations, ${w.workflowTasks} workflow tasks, ${w.entries} sandbox entries`,
  );
  for (const s of r.steps) {
    const inWindow = s.activation !== undefined && s.activation <= w.throughActivation;
    console.log(
      `\n${inWindow ? '*' : ' '} activation ${s.activation ?? '-'} (task ${s.workflowTask ?? '-'}) after ${s.after} → ${s.then}: ${s.promises} promises, ${s.entries} entries`,
    );
    for (const [site, n] of Object.entries(s.sites))
      console.log(`    ${String(n).padStart(3)}  ${site}`);
  }
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const json = args.includes('--json');
  const at = args.indexOf('--bundle');
  const bundlePath = at >= 0 ? args[at + 1] : undefined;
  if (at >= 0 && !bundlePath) throw new Error('--bundle needs the bundle file');
  const names = args.filter((a, i) => !a.startsWith('--') && (at < 0 || i !== at + 1));
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const code = bundlePath
    ? readFileSync(bundlePath, 'utf8')
    : (await bundleWorkflows(BENCH_WORKFLOWS_PATH)).code;
  const results: PromiseCount[] = [];
  for (const name of names.length > 0 ? names : [PROMISE_COUNT_HISTORY]) {
    const first = await countPromises(code, name, { sites: true });
    const second = await countPromises(code, name, { sites: true });
    if (JSON.stringify(first) !== JSON.stringify(second))
      throw new Error(`${name}: two replays counted differently: the count is not deterministic`);
    results.push(first);
  }
  if (json) console.log(JSON.stringify(results));
  else results.forEach(printSteps);
}

if (require.main === module) {
  main().catch((err: unknown) => {
    console.error(err instanceof Error ? err.stack : err);
    process.exit(1);
  });
}

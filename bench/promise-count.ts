/**
 * Promises created in workflow code and entries into the workflow sandbox, per step of a confirmed
 * booking, counted in a replay of a recorded history: the two costs the SDK's sandbox adds per
 * promise (a captured, source-mapped stack) and per entry (a vm call with a timeout, whose
 * watchdog starts a thread), which only the workflow code's shape controls.
 *
 * How: a replay runs the workflow in this thread, in the SDK's reused vm context (`debugMode`, as
 * `Worker.runReplayHistories` sets it; the same sandbox code the workflow thread runs in
 * production). While it runs,
 * - a V8 promise hook (`v8.promiseHooks.onInit`) counts each promise whose realm has a workflow
 *   activator (`globalThis.__TEMPORAL_ACTIVATOR__`): the SDK's own test for "created in workflow
 *   code", whose promises its hook captures a stack for;
 * - `vm.Script#runInContext` is wrapped to note each entry into the sandbox, the activation an
 *   `activate` entry carries and the commands `concludeActivation` returns.
 * bench/promise-steps.ts turns those notes into steps. The SDK is neither forked nor patched; the
 * wrapper and the hook are removed when the replay ends. The counts depend on the workflow code and
 * the history only: the same bundle and history give the same numbers on every run, on any machine.
 *
 * `npx tsx bench/promise-count.ts [history …]` prints each step with the source lines that created
 * its promises (histories under test/histories/, default the bench's); `--json` prints the result;
 * `--bundle <file>` counts with a bundle built elsewhere (tools/scripts/build-bundle.ts).
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { join, resolve } from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { temporal } from '@temporalio/proto';
import { outcomeUpdate } from '../src/shared/booking-messages';
import { bundleWorkflows } from '../src/workflow-bundle';
import { benchDataConverter } from './bench-worker';
import { BENCH_WORKFLOWS_PATH } from './control';
import {
  bookingWindow,
  stepsOf,
  type Observed,
  type ObservedCommand,
  type ObservedJob,
  type PromiseCount,
} from './promise-steps';

/** The history the bench counts: a booking the booking call confirms, its guard until it waits. */
export const PROMISE_COUNT_HISTORY = 'one-order-one-workflow/instant-confirmed-guarded';

const HISTORIES_DIR = join(__dirname, '..', 'test', 'histories');

/** A recorded history (fetchHistory() JSON) and the workflow id it ran under. */
export function loadHistory(name: string): {
  history: temporal.api.history.v1.IHistory;
  workflowId: string;
} {
  const history = temporal.api.history.v1.History.fromObject(
    JSON.parse(readFileSync(join(HISTORIES_DIR, `${name}.json`), 'utf8')),
  );
  // The booking checks that its workflow id is its order's (rule 1): replay under the recorded one.
  const started = history.events?.[0]?.workflowExecutionStartedEventAttributes;
  return { history, workflowId: started?.workflowId || name.replace(/\W+/g, '-') };
}

/** The bundle's inline source map (the SDK refuses a bundle without one), to name creating lines. */
function bundleSourceMap(code: string): { filename: string; map: SourceMap } {
  const at = code.lastIndexOf('//# sourceMappingURL=data:');
  const base64 = at < 0 ? -1 : code.indexOf('base64,', at);
  if (base64 < 0) throw new Error('the workflow bundle has no inline source map');
  const payload = JSON.parse(
    Buffer.from(code.slice(base64 + 'base64,'.length).trimEnd(), 'base64').toString(),
  ) as ConstructorParameters<typeof SourceMap>[0];
  // The name the SDK gives the bundle's script (Worker's bundle loading: the map's file, from cwd).
  return { filename: resolve(process.cwd(), payload.file), map: new SourceMap(payload) };
}

/** The JavaScript frames of the current stack, this function's callers first. */
function callSites(): NodeJS.CallSite[] {
  const { prepareStackTrace, stackTraceLimit } = Error;
  Error.prepareStackTrace = (_error, sites) => sites;
  Error.stackTraceLimit = 64;
  const holder: { stack?: NodeJS.CallSite[] } = {};
  Error.captureStackTrace(holder, callSites);
  const sites = holder.stack ?? [];
  Error.prepareStackTrace = prepareStackTrace;
  Error.stackTraceLimit = stackTraceLimit;
  return sites;
}

const callSiteName = (c: NodeJS.CallSite): string => {
  const type = c.getTypeName();
  const method = c.getMethodName();
  const fn = c.getFunctionName();
  return type && method ? `${type}.${method}` : (fn ?? '<anonymous>');
};

/**
 * The workflow source line that created the promise being created now: the innermost frame of
 * the bundle that maps to the project's own code, with the SDK function it called through (e.g.
 * `src/workflows/booking/decide.ts:63 close → condition`), or the SDK's frame when no project
 * frame is on the stack. An async function's own promise is named by its declaration's line, an
 * `await`'s by the line of the `await`.
 */
function creatingSite(bundle: { filename: string; map: SourceMap }): string | undefined {
  let through: string | undefined;
  const frames = callSites();
  for (const c of frames) {
    if (c.getFileName() !== bundle.filename) continue;
    const line = c.getLineNumber();
    const column = c.getColumnNumber();
    if (line === null || column === null) continue;
    const entry = bundle.map.findEntry(line - 1, column - 1) as {
      originalSource?: string;
      originalLine?: number;
    };
    const source = entry.originalSource ?? '';
    const sdk = /node_modules\/(@temporalio\/[^/]+)\//.exec(source);
    if (sdk || !source) {
      through = `${callSiteName(c)} (${sdk?.[1] ?? 'bundle'})`;
      continue;
    }
    const own = /(?:^|\/)((?:src|bench|test)\/.*)$/.exec(source)?.[1] ?? source;
    const where = `${own}:${(entry.originalLine ?? -1) + 1} ${callSiteName(c)}`;
    return through ? `${where} → ${through}` : where;
  }
  if (through) return through;
  // No frame of the bundle: V8 calls `then` from the microtask queue to resolve a promise with
  // another one (an async function returning a promise, `resolve(promise)`).
  const thenJob = frames.find((c) => c.getFunctionName() === 'then' && c.getFileName() === null);
  return thenJob
    ? 'a promise resolved with a promise (its then job, run by the microtask queue)'
    : '(no frame of the workflow bundle)';
}

/** The fields of a protobuf oneof object: the variant is the one set key besides metadata. */
function variantOf(o: Record<string, unknown>, ignore: readonly string[] = []): string {
  return Object.keys(o).find((k) => o[k] != null && !ignore.includes(k)) ?? '?';
}

function jobOf(job: Record<string, unknown>): ObservedJob {
  const variant = variantOf(job);
  const body = (job[variant] ?? {}) as Record<string, unknown>;
  const seq = typeof body.seq === 'number' ? body.seq : undefined;
  const result =
    body.result && typeof body.result === 'object'
      ? variantOf(body.result as Record<string, unknown>)
      : undefined;
  const name =
    typeof body.name === 'string'
      ? body.name
      : typeof body.signalName === 'string'
        ? body.signalName
        : undefined;
  const protocolInstanceId =
    typeof body.protocolInstanceId === 'string' ? body.protocolInstanceId : undefined;
  return {
    variant,
    ...(seq !== undefined ? { seq } : {}),
    ...(name !== undefined ? { name } : {}),
    ...(protocolInstanceId !== undefined ? { protocolInstanceId } : {}),
    ...(result !== undefined ? { result } : {}),
  };
}

function commandOf(command: Record<string, unknown>): ObservedCommand {
  const variant = variantOf(command, ['userMetadata', 'eventGroupMarkers']);
  const body = (command[variant] ?? {}) as Record<string, unknown>;
  const response =
    variant === 'updateResponse' ? variantOf(body, ['protocolInstanceId']) : undefined;
  return {
    variant,
    ...(typeof body.seq === 'number' ? { seq: body.seq } : {}),
    ...(typeof body.activityType === 'string' ? { activityType: body.activityType } : {}),
    ...(typeof body.protocolInstanceId === 'string'
      ? { protocolInstanceId: body.protocolInstanceId }
      : {}),
    ...(response !== undefined ? { response } : {}),
  };
}

/** The realm's workflow activator is set: the promise was created in workflow code (the SDK's test). */
function inWorkflowCode(promise: Promise<unknown>): boolean {
  const realmFunction = (promise.constructor as { constructor?: unknown } | undefined)?.constructor;
  if (typeof realmFunction !== 'function' || realmFunction === Function) return false;
  const read = (realmFunction as FunctionConstructor)('return globalThis.__TEMPORAL_ACTIVATOR__');
  return read() !== undefined;
}

/** The sandbox's `[holder, function name, arguments]` of a reused-context call into it. */
function sandboxCall(context: unknown): { call: string; args: readonly unknown[] } | undefined {
  const pending = (context as { __temporal_args?: unknown } | undefined)?.__temporal_args;
  if (!Array.isArray(pending) || typeof pending[1] !== 'string' || !Array.isArray(pending[2]))
    return undefined;
  return { call: pending[1], args: pending[2] as unknown[] };
}

/**
 * Replays `history` with the bundle's code and notes, in order, every entry into the sandbox and
 * every promise created in workflow code (with its creating line when `sites`).
 */
export async function observeReplay(options: {
  readonly code: string;
  readonly history: temporal.api.history.v1.IHistory;
  readonly workflowId: string;
  readonly sites?: boolean;
}): Promise<Observed[]> {
  const observed: Observed[] = [];
  const bundle = options.sites ? bundleSourceMap(options.code) : undefined;
  const stopHook = v8.promiseHooks.onInit((promise: Promise<unknown>) => {
    if (!inWorkflowCode(promise)) return;
    const site = bundle ? creatingSite(bundle) : undefined;
    observed.push(site !== undefined ? { kind: 'promise', site } : { kind: 'promise' });
  });
  const { runInContext } = vm.Script.prototype;
  vm.Script.prototype.runInContext = function (this: vm.Script, context, runOptions) {
    const entered = sandboxCall(context);
    if (!entered) return runInContext.call(this, context, runOptions) as unknown;
    const activation = entered.args[0] as
      { historyLength?: number; jobs?: Record<string, unknown>[] } | undefined;
    observed.push({
      kind: 'entry',
      call: entered.call,
      ...(entered.call === 'activate' && activation
        ? {
            activation: {
              historyLength: activation.historyLength ?? 0,
              jobs: (activation.jobs ?? []).map(jobOf),
            },
          }
        : {}),
    });
    const returned = runInContext.call(this, context, runOptions) as unknown;
    if (entered.call === 'concludeActivation') {
      const commands = (returned as { successful?: { commands?: Record<string, unknown>[] } })
        ?.successful?.commands;
      observed.push({ kind: 'commands', commands: (commands ?? []).map(commandOf) });
    }
    return returned;
  };
  try {
    for await (const r of Worker.runReplayHistories(
      {
        workflowBundle: { code: options.code },
        dataConverter: benchDataConverter(),
        // The executor production runs: one vm context, reused by every workflow.
        reuseV8Context: true,
        replayName: 'promise-count',
      },
      [{ workflowId: options.workflowId, history: options.history }],
    )) {
      if (r.error) throw new Error(`replay of ${options.workflowId} failed: ${String(r.error)}`);
    }
  } finally {
    vm.Script.prototype.runInContext = runInContext;
    stopHook();
  }
  if (!observed.some((o) => o.kind === 'entry' && o.call === 'activate'))
    throw new Error(
      'the replay entered no workflow sandbox through vm.Script#runInContext in this thread: ' +
        "the SDK's replay runs workflows elsewhere now, and this count must follow it",
    );
  return observed;
}

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

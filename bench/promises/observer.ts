/**
 * A replay of a recorded history, observed: it runs the workflow in this thread, in the SDK's
 * reused vm context (`debugMode`, as `Worker.runReplayHistories` sets it; the same sandbox code the
 * workflow thread runs in production). While it runs,
 * - a V8 promise hook (`v8.promiseHooks.onInit`) counts each promise whose realm has a workflow
 *   activator (`globalThis.__TEMPORAL_ACTIVATOR__`): the SDK's own test for "created in workflow
 *   code", whose promises its hook captures a stack for;
 * - `vm.Script#runInContext` is wrapped to note each entry into the sandbox, the activation an
 *   `activate` entry carries and the commands `concludeActivation` returns.
 * The SDK is neither forked nor patched; the wrapper and the hook are removed when the replay ends.
 */
import v8 from 'node:v8';
import vm from 'node:vm';
import { Worker } from '@temporalio/worker';
import type { temporal } from '@temporalio/proto';
import { benchDataConverter } from '../shared/worker';
import { bundleSourceMap, creatingSite } from './sites';
import type { Observed, ObservedCommand, ObservedJob } from './observed';

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

/** Notes each entry into the sandbox (and the commands a conclusion returns); returns the undo. */
function observeEntries(observed: Observed[]): () => void {
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
  return () => {
    vm.Script.prototype.runInContext = runInContext;
  };
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
  const stopEntries = observeEntries(observed);
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
    stopEntries();
    stopHook();
  }
  if (!observed.some((o) => o.kind === 'entry' && o.call === 'activate'))
    throw new Error(
      'the replay entered no workflow sandbox through vm.Script#runInContext in this thread: ' +
        "the SDK's replay runs workflows elsewhere now, and this count must follow it",
    );
  return observed;
}

/** `replay` (docs/upgrading.md): this build against the open and recently closed workflows. */
import { Worker } from '@temporalio/worker';
import type { Command } from 'commander';
import { createDataConverter } from '../../codec/data-converter';
import { loadWorkflowBundle } from '../../workflow-bundle';
import { type CliContext, type CommandRunner, take } from '../cli-context';
import { ExitCode } from '../exit-codes';
import { table } from '../render';
import { parsePositiveInt } from './content-args';

export interface ReplayOptions {
  readonly query?: string;
  readonly limit: string;
  readonly closedWithin: string;
}

/** `replay --json`. */
export interface ReplayReport {
  readonly query: string;
  readonly replayed: number;
  readonly failed: readonly { readonly workflowId: string; readonly error: string }[];
  /** The limit stopped the listing before its end. */
  readonly truncated: boolean;
}

export function registerReplayCommand(program: Command, run: CommandRunner): void {
  program
    .command('replay')
    .description(
      "Replay this build's workflow code against the namespace's open and recently closed workflows, before a rollout (docs/upgrading.md)",
    )
    .option('--query <visibility query>', 'replay these workflows instead (a visibility query)')
    .option('--limit <n>', 'at most this many histories', '1000')
    .option('--closed-within <days>', 'with the open ones, those closed this many days ago', '7')
    .action((o: ReplayOptions) => run((ctx) => replay(ctx, o)));
}

/** The workflows replayed by default: the task queue's open ones and those closed within `days`. */
export function defaultReplayQuery(taskQueue: string, days: number, now: Date): string {
  const since = new Date(now.getTime() - days * 86_400_000).toISOString();
  return `TaskQueue = '${taskQueue.replaceAll("'", "\\'")}' AND (ExecutionStatus = 'Running' OR CloseTime > '${since}')`;
}

/** The first line of a replay error: the nondeterministic command and what the history had. */
export function firstLine(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.split('\n')[0]!.slice(0, 500);
}

async function replay(ctx: CliContext, o: ReplayOptions): Promise<ExitCode> {
  const limit = parsePositiveInt('--limit', o.limit);
  const days = parsePositiveInt('--closed-within', o.closedWithin);
  const { client } = await ctx.temporal();
  const config = ctx.config;
  const query = o.query ?? defaultReplayQuery(config.temporal.taskQueue, days, new Date());
  const listed = await take(client.workflow.list({ query }).intoHistories(), limit + 1);
  const truncated = listed.length > limit;
  const histories = listed.slice(0, limit);
  const workflowBundle = await loadWorkflowBundle(config.worker.workflowBundlePath);
  const failed: { workflowId: string; error: string }[] = [];
  let replayed = 0;
  if (histories.length > 0) {
    const dataConverter = createDataConverter(config.encryption);
    const options = { workflowBundle, dataConverter, replayName: 'hotel-booking replay' };
    for await (const r of Worker.runReplayHistories(options, histories)) {
      replayed += 1;
      if (r.error) failed.push({ workflowId: r.workflowId, error: firstLine(r.error) });
    }
  }
  const report: ReplayReport = { query, replayed, failed, truncated };
  const rows = failed.map((f) => [f.workflowId, f.error]);
  ctx.emit(report, () =>
    [
      `Replayed ${replayed} workflow histories of namespace '${config.temporal.namespace}' (${query})${truncated ? `, the first ${limit}` : ''}: ${failed.length === 0 ? 'every one replays with this build.' : `${failed.length} do not.`}`,
      ...(failed.length === 0
        ? []
        : [
            table(['Workflow', 'First nondeterministic command'], rows),
            'Do not roll this build out: put the change behind patched() (docs/upgrading.md).',
          ]),
    ].join('\n'),
  );
  return failed.length === 0 ? ExitCode.OK : ExitCode.FAILED;
}

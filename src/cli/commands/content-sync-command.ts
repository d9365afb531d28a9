/** `content sync`: runs `syncContent` (on a worker with the catalogue store), showing progress. */
import { WorkflowFailedError } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import type { Command } from 'commander';
import {
  contentSyncProgress,
  contentSyncWorkflowId,
  runContentSync,
  type ContentLanguage,
  type ContentSyncResult,
} from '../../catalogue';
import { supplierTaskQueue } from '../../shared/supplier-accounts';
import type { CliContext, CommandRunner } from '../cli-context';
import { CliError, failedError } from '../cli-errors';
import { ExitCode } from '../exit-codes';
import { formatDuration, table } from '../render';
import { parseCountry, parseNumber, parseSyncLanguages, SUPPLIER_OPTION } from './content-args';

/** How often a running sync's progress is printed (human mode). */
const PROGRESS_EVERY_MS = 5_000;

interface SyncOptions {
  country: string;
  language: string;
  detailConcurrency?: string;
  detailsPerSecond?: string;
  pagesPerRun?: string;
  supplier?: string;
}

/** The deepest message of a failure chain: what actually went wrong inside the workflow. */
function rootMessage(err: unknown): string {
  let e: unknown = err;
  let message = err instanceof Error ? err.message : String(err);
  while (e instanceof Error && e.cause !== undefined) {
    e = e.cause;
    if (e instanceof Error && e.message) message = e.message;
  }
  return message;
}

/**
 * Fails fast (exit 3) when no worker polls the task queue (`activities`: an account's queue,
 * which has activity pollers only): the sync would wait forever.
 */
async function assertWorkerPolls(
  ctx: CliContext,
  taskQueue: string,
  activities = false,
): Promise<void> {
  const { client } = await ctx.temporal();
  const { TASK_QUEUE_TYPE_ACTIVITY, TASK_QUEUE_TYPE_WORKFLOW } =
    temporal.api.enums.v1.TaskQueueType;
  const described = await ctx.withWorkerDeadline(() =>
    client.workflowService.describeTaskQueue({
      namespace: ctx.config.temporal.namespace,
      taskQueue: { name: taskQueue },
      taskQueueType: activities ? TASK_QUEUE_TYPE_ACTIVITY : TASK_QUEUE_TYPE_WORKFLOW,
    }),
  );
  if ((described.pollers ?? []).length === 0) {
    throw new CliError(
      `No worker polls task queue '${taskQueue}', so the sync would never run. Start one that ` +
        'has the catalogue store (`npm run worker` or `npm start`; check TEMPORAL_TASK_QUEUE).',
      ExitCode.UNREACHABLE,
      'NO_WORKER',
    );
  }
}

async function syncOne(
  ctx: CliContext,
  countryCode: string,
  language: ContentLanguage,
  limits: { detailConcurrency?: number; detailsPerSecond?: number; pagesPerRun?: number },
  supplier: string | undefined,
): Promise<ContentSyncResult> {
  const { client } = await ctx.temporal();
  const { taskQueue } = ctx.config.temporal;
  // The catalogue's functions leave out what is undefined (the default account, the defaults).
  const pass = { countryCode, language, supplier };
  ctx.note(
    `Syncing ${countryCode} (${language}): workflow ${contentSyncWorkflowId(countryCode, language, supplier)} ` +
      `on task queue ${taskQueue}; Ctrl-C stops waiting, not the sync.`,
  );
  // Progress lines while a long pass runs (never in --json mode: stdout is one document).
  const progress = async () => {
    const p = await contentSyncProgress(client, pass);
    if (!p || p.phase === 'DONE') return;
    const pages = p.pages !== undefined ? `/${p.pages}` : '';
    const phase = p.phase.toLowerCase().replace('_', ' ');
    ctx.note(`  ${phase}: page ${p.nextPage}${pages}, ${p.properties} properties so far`);
  };
  let polling = false;
  const timer = ctx.json
    ? undefined
    : setInterval(() => {
        if (polling) return;
        polling = true;
        void progress()
          .catch(() => undefined)
          .finally(() => (polling = false));
      }, PROGRESS_EVERY_MS);
  try {
    return await runContentSync(client, { ...pass, taskQueue, ...limits });
  } catch (err) {
    if (err instanceof WorkflowFailedError) {
      throw failedError(
        `The content sync of ${countryCode} (${language}) failed: ${rootMessage(err)}`,
        'SYNC_FAILED',
      );
    }
    throw err;
  } finally {
    if (timer) clearInterval(timer);
  }
}

const COLUMNS: readonly (readonly [string, (r: ContentSyncResult) => string | number])[] = [
  ['Country', (r) => r.countryCode],
  ['Language', (r) => r.language],
  ['Pages', (r) => r.pages],
  ['Properties', (r) => r.properties],
  ['Inserted', (r) => r.inserted],
  ['Updated', (r) => r.updated],
  ['Unchanged', (r) => r.unchanged],
  ['Deactivated', (r) => r.deactivated],
  ['Duration', (r) => formatDuration(r.durationMs)],
  [
    'Properties/s',
    (r) => (r.durationMs <= 0 ? '' : (r.properties / (r.durationMs / 1_000)).toFixed(1)),
  ],
];

async function contentSync(ctx: CliContext, o: SyncOptions): Promise<void> {
  const countryCode = parseCountry(o.country);
  const languages = parseSyncLanguages(o.language);
  const limits = {
    detailConcurrency: parseNumber('--detail-concurrency', o.detailConcurrency, {
      min: 1,
      max: 64,
      integer: true,
    }),
    detailsPerSecond: parseNumber('--details-per-second', o.detailsPerSecond, { min: 0 }),
    pagesPerRun: parseNumber('--pages-per-run', o.pagesPerRun, { min: 1, integer: true }),
  };
  const account = ctx.account(o.supplier).id;
  await assertWorkerPolls(ctx, ctx.config.temporal.taskQueue);
  if (o.supplier !== undefined)
    await assertWorkerPolls(ctx, supplierTaskQueue(ctx.config.temporal.taskQueue, account), true);
  // One language after the other: each pass keeps to its own detail-rate cap, so running them
  // side by side would double the load on the supplier that also serves bookings.
  const results: ContentSyncResult[] = [];
  for (const language of languages) {
    results.push(await syncOne(ctx, countryCode, language, limits, o.supplier));
  }
  ctx.emit({ results }, () =>
    [
      table(
        COLUMNS.map(([head]) => head),
        results.map((r) => COLUMNS.map(([, cell]) => cell(r))),
      ),
      `Search it with: content search --country ${countryCode}` +
        (languages.length === 1 && languages[0] !== 'en' ? ` --language ${languages[0]}` : ''),
    ].join('\n'),
  );
}

export function registerContentSyncCommand(content: Command, run: CommandRunner): void {
  content
    .command('sync')
    .description(
      "Fill the local catalogue with a country's content: runs the syncContent workflow on the " +
        'task queue and waits for its result (a worker with the catalogue store must be running)',
    )
    .requiredOption('--country <code>', 'ISO 3166-1 alpha-2 country code, e.g. IT')
    .option('--language <code>', 'en, it, or all (one pass per language, in turn)', 'en')
    .option('--detail-concurrency <n>', 'detail fetches in flight at once (default 8)')
    .option('--details-per-second <n>', 'detail fetches per second, 0 = no cap (default 50)')
    .option('--pages-per-run <n>', 'pages per workflow run before continue-as-new (default 10)')
    .option(...SUPPLIER_OPTION)
    .addHelpText(
      'after',
      '\nExit codes: 0 synced; 1 the sync failed; 2 bad arguments; 3 Temporal unreachable or no ' +
        'worker polls the task queue.\nWith --json: { "results": [ one result per language ] }.',
    )
    .action((o: SyncOptions) => run((ctx) => contentSync(ctx, o)));
}

/**
 * The local content catalogue from the command line: `content sync` fills it through the
 * `syncContent` workflow (run by a worker that has the catalogue store), `content search` reads it
 * (`CATALOGUE_DB_PATH`, read-only), and the helpers `content show` and the availability `search`
 * use to prefer the store over one supplier call per property.
 */
import { catalogueDbPathFor, supplierTaskQueue } from '../../shared/supplier-accounts';
import { WorkflowFailedError } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import type { Command } from 'commander';
import {
  CONTENT_LANGUAGES,
  contentSyncProgress,
  contentSyncWorkflowId,
  propertyNames,
  runContentSync,
  searchCatalogue,
  type CatalogueStore,
  type ContentLanguage,
  type ContentSyncResult,
} from '../../catalogue';
import { HotelApiError } from '../../hotel-api';
import type { CliContext } from '../cli-context';
import { CliError, usageError } from '../cli-errors';
import { ExitCode } from '../exit-codes';
import { formatDuration, table } from '../render';
import type { CommandRunner } from './command-runner';

/** Property details are fetched from the supplier this many at a time (one call each). */
const NAME_LOOKUP_CONCURRENCY = 8;
/** How often a running sync's progress is printed (human mode). */
const PROGRESS_EVERY_MS = 5_000;

// --- argument checks --------------------------------------------------------------------------

/** `it` → `IT`; exit 2 unless two letters. */
export function parseCountry(raw: string): string {
  if (!/^[A-Za-z]{2}$/.test(raw)) {
    throw usageError(`--country: "${raw}" is not a 2-letter ISO 3166-1 country code (e.g. IT)`, [
      { field: '--country', message: 'must be 2 letters (ISO 3166-1 alpha-2)' },
    ]);
  }
  return raw.toUpperCase();
}

/** `en` or `it`; exit 2 otherwise. */
export function parseContentLanguage(raw: string): ContentLanguage {
  const lang = raw.toLowerCase();
  if (!(CONTENT_LANGUAGES as readonly string[]).includes(lang)) {
    throw usageError(`--language: "${raw}" is not one of ${CONTENT_LANGUAGES.join(', ')}`, [
      { field: '--language', message: `must be one of ${CONTENT_LANGUAGES.join(', ')}` },
    ]);
  }
  return lang as ContentLanguage;
}

/** `--language` of `content sync`: one language, or `all` for every one, in order. */
function parseSyncLanguages(raw: string): ContentLanguage[] {
  return raw.toLowerCase() === 'all' ? [...CONTENT_LANGUAGES] : [parseContentLanguage(raw)];
}

function parseNumber(
  option: string,
  raw: string | undefined,
  check: { min: number; max?: number; integer?: boolean },
): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  const ok =
    raw.trim() !== '' &&
    Number.isFinite(n) &&
    n >= check.min &&
    (check.max === undefined || n <= check.max) &&
    (!check.integer || Number.isInteger(n));
  if (!ok) {
    const what = `${check.integer ? 'an integer' : 'a number'} from ${check.min}${
      check.max !== undefined ? ` to ${check.max}` : ''
    }`;
    throw usageError(`${option}: "${raw}" is not ${what}`, [
      { field: option, message: `must be ${what}` },
    ]);
  }
  return n;
}

// --- content sync -----------------------------------------------------------------------------

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
  limits: {
    detailConcurrency?: number;
    detailsPerSecond?: number;
    pagesPerRun?: number;
    supplier?: string | undefined;
  },
): Promise<ContentSyncResult> {
  const { supplier } = limits;
  const { client } = await ctx.temporal();
  const { taskQueue } = ctx.config.temporal;
  ctx.note(
    `Syncing ${countryCode} (${language}): workflow ${contentSyncWorkflowId(countryCode, language, supplier)} ` +
      `on task queue ${taskQueue}; Ctrl-C stops waiting, not the sync.`,
  );
  // Progress lines while a long pass runs (never in --json mode: stdout is one document).
  let polling = false;
  const timer = ctx.json
    ? undefined
    : setInterval(() => {
        if (polling) return;
        polling = true;
        void contentSyncProgress(client, {
          countryCode,
          language,
          ...(supplier !== undefined ? { supplier } : {}),
        })
          .then((p) => {
            if (p && p.phase !== 'DONE') {
              const pages = p.pages !== undefined ? `/${p.pages}` : '';
              ctx.note(
                `  ${p.phase.toLowerCase().replace('_', ' ')}: page ${p.nextPage}${pages}, ` +
                  `${p.properties} properties so far`,
              );
            }
          })
          .catch(() => undefined)
          .finally(() => (polling = false));
      }, PROGRESS_EVERY_MS);
  try {
    return await runContentSync(client, {
      countryCode,
      language,
      taskQueue,
      ...(limits.detailConcurrency !== undefined
        ? { detailConcurrency: limits.detailConcurrency }
        : {}),
      ...(limits.detailsPerSecond !== undefined
        ? { detailsPerSecond: limits.detailsPerSecond }
        : {}),
      ...(limits.pagesPerRun !== undefined ? { pagesPerRun: limits.pagesPerRun } : {}),
      ...(supplier !== undefined ? { supplier } : {}),
    });
  } catch (err) {
    if (err instanceof WorkflowFailedError) {
      throw new CliError(
        `The content sync of ${countryCode} (${language}) failed: ${rootMessage(err)}`,
        ExitCode.FAILED,
        'SYNC_FAILED',
      );
    }
    throw err;
  } finally {
    if (timer) clearInterval(timer);
  }
}

function perSecond(r: ContentSyncResult): string {
  if (r.durationMs <= 0) return '';
  return (r.properties / (r.durationMs / 1_000)).toFixed(1);
}

async function contentSync(ctx: CliContext, o: SyncOptions): Promise<ExitCode> {
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
    results.push(await syncOne(ctx, countryCode, language, { ...limits, supplier: o.supplier }));
  }
  ctx.emit({ results }, () =>
    [
      table(
        [
          'Country',
          'Language',
          'Pages',
          'Properties',
          'Inserted',
          'Updated',
          'Unchanged',
          'Deactivated',
          'Duration',
          'Properties/s',
        ],
        results.map((r) => [
          r.countryCode,
          r.language,
          r.pages,
          r.properties,
          r.inserted,
          r.updated,
          r.unchanged,
          r.deactivated,
          formatDuration(r.durationMs),
          perSecond(r),
        ]),
      ),
      `Search it with: content search --country ${countryCode}` +
        (languages.length === 1 && languages[0] !== 'en' ? ` --language ${languages[0]}` : ''),
    ].join('\n'),
  );
  return ExitCode.OK;
}

// --- content search ---------------------------------------------------------------------------

interface ContentSearchOptions {
  country: string;
  city?: string;
  minStars?: string;
  language: string;
  limit: string;
  includeInactive?: boolean;
  supplier?: string;
}

/**
 * Exit 1: there is nothing to search (no catalogue file, or no content of this country and
 * language in it). A search that finds nothing in a synced catalogue is exit 0 with no rows.
 */
function nothingSynced(
  path: string,
  country: string,
  language: ContentLanguage,
  fileExists: boolean,
  others: readonly string[] = [],
): CliError {
  const sync = `content sync --country ${country}${language === 'en' ? '' : ` --language ${language}`}`;
  const what = fileExists
    ? `The local catalogue (${path}) has no ${language} content for ${country}` +
      (others.length > 0 ? ` (it has: ${others.join(', ')})` : '')
    : `There is no local catalogue at ${path} yet`;
  return new CliError(
    `${what}. Fill it with \`${sync}\` (a worker with the catalogue store must be running; ` +
      'CATALOGUE_DB_PATH must name the same file for the worker and this tool), then search again.',
    ExitCode.FAILED,
    'CATALOGUE_EMPTY',
  );
}

async function contentSearch(ctx: CliContext, o: ContentSearchOptions): Promise<ExitCode> {
  const country = parseCountry(o.country);
  const language = parseContentLanguage(o.language);
  const minStars = parseNumber('--min-stars', o.minStars, { min: 0, max: 5 });
  const limit = parseNumber('--limit', o.limit, { min: 1, max: 10_000, integer: true })!;
  const city = o.city?.trim() || undefined;
  const path = catalogueDbPathFor(ctx.config.catalogueDbPath, ctx.account(o.supplier).id);

  const store = await ctx.catalogueStore(o.supplier);
  if (!store) throw nothingSynced(path, country, language, false);
  const { properties: slices } = await store.stats();
  const slice = slices.find((s) => s.countryCode === country && s.language === language);
  const available = slice ? slice.active + (o.includeInactive ? slice.inactive : 0) : 0;
  if (!slice || available === 0) {
    const others = slices
      .filter((s) => s.active > 0)
      .map((s) => `${s.countryCode} ${s.language} (${s.active})`);
    throw nothingSynced(path, country, language, true, others);
  }

  const hits = await searchCatalogue(store, {
    country,
    language,
    limit,
    ...(city !== undefined ? { city } : {}),
    ...(minStars !== undefined ? { minStars } : {}),
    ...(o.includeInactive ? { includeInactive: true } : {}),
  });
  ctx.emit(
    {
      source: 'store',
      country,
      city: city ?? null,
      minStars: minStars ?? null,
      language,
      limit,
      syncedAt: slice.lastSeenAt,
      count: hits.length,
      properties: hits,
    },
    () => {
      const filters = [
        country,
        ...(city !== undefined ? [`city ${city}`] : []),
        ...(minStars !== undefined ? [`${minStars}+ stars`] : []),
      ].join(', ');
      const lines = [
        `${hits.length} propert${hits.length === 1 ? 'y' : 'ies'} (${filters}; ${language}) ` +
          `from the local catalogue, last synced ${slice.lastSeenAt ?? 'never'}`,
      ];
      if (hits.length > 0) {
        const head = ['Id', 'Name', 'City', 'Stars', 'Guest rating'];
        if (o.includeInactive) head.push('Active');
        lines.push(
          table(
            head,
            hits.map((p) => [
              p.id,
              p.name,
              p.city,
              p.stars,
              p.guestRating,
              ...(o.includeInactive ? [p.active ? 'yes' : 'no'] : []),
            ]),
          ),
        );
        if (hits.length === limit) lines.push(`First ${limit} shown; --limit <n> for more.`);
        lines.push(
          'Details: content show <id>; rooms: search --property <id> --checkin … --checkout …',
        );
      } else {
        lines.push('No property matches these filters.');
      }
      return lines.join('\n');
    },
  );
  return ExitCode.OK;
}

// --- helpers for `content show` and the availability `search` ---------------------------------

/** A property's label in availability answers, and where it came from. */
export interface PropertyLabel {
  readonly name: string;
  readonly stars: number | null;
  readonly source: 'store' | 'supplier';
}

/**
 * Name and stars by property id: from the local catalogue when it knows the property, else one
 * supplier detail call per property. A property the supplier does not describe (404) gets no
 * label rather than failing the whole answer.
 */
export async function propertyLabels(
  ctx: CliContext,
  ids: readonly number[],
  language: ContentLanguage,
  supplier?: string,
): Promise<Map<number, PropertyLabel>> {
  const labels = new Map<number, PropertyLabel>();
  if (ids.length > 0) {
    try {
      const store: CatalogueStore | undefined = await ctx.catalogueStore(supplier);
      if (store) {
        for (const [id, v] of await propertyNames(store, ids, language)) {
          labels.set(id, { name: v.name, stars: v.stars, source: 'store' });
        }
      }
    } catch (err) {
      // Labels are a convenience: a broken catalogue file must not cost the availability answer.
      const why = err instanceof Error ? err.message : String(err);
      ctx.io.stderr(`warning: local catalogue unreadable (${why}); names from the supplier\n`);
    }
  }
  const rest = ids.filter((id) => !labels.has(id));
  for (let i = 0; i < rest.length; i += NAME_LOOKUP_CONCURRENCY) {
    await Promise.all(
      rest.slice(i, i + NAME_LOOKUP_CONCURRENCY).map(async (hotelId) => {
        try {
          const p = await ctx.hotelApi(supplier).getProperty({ hotelId, languageCode: language });
          labels.set(hotelId, { name: p.name, stars: p.stars ?? null, source: 'supplier' });
        } catch (err) {
          // An inactive or unknown property still has rooms worth showing.
          if (!(err instanceof HotelApiError && err.code === 'NOT_FOUND')) throw err;
        }
      }),
    );
  }
  return labels;
}

// --- registration -----------------------------------------------------------------------------

/** The account a supplier command goes to (the order's `supplier`). */
export const SUPPLIER_OPTION = [
  '--supplier <account>',
  'the supplier account, an id of SUPPLIER_ACCOUNTS (default: the HOTEL_API_* one)',
] as const;

/** Adds `content sync` and `content search` under the `content` command. */
export function registerContentStoreCommands(content: Command, run: CommandRunner): void {
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

  content
    .command('search')
    .description('Search the local catalogue (filled by `content sync`); no supplier call')
    .requiredOption('--country <code>', 'ISO 3166-1 alpha-2 country code, e.g. IT')
    .option('--city <name>', 'city, in any language, case and accents ignored (Rome = Roma)')
    .option('--min-stars <n>', 'at least this many stars')
    .option('--language <code>', 'en or it', 'en')
    .option('--limit <n>', 'at most this many properties', '50')
    .option('--include-inactive', 'also properties the last sync no longer listed')
    .option(...SUPPLIER_OPTION)
    .addHelpText(
      'after',
      '\nExit codes: 0 searched (also when nothing matches); 1 nothing to search: no catalogue ' +
        'file, or no content of this country and language in it (run `content sync` first); ' +
        '2 bad arguments.',
    )
    .action((o: ContentSearchOptions) => run((ctx) => contentSearch(ctx, o)));
}

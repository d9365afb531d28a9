/** `content search`: an account's local catalogue, read-only; `content sync` fills it. */
import type { Command } from 'commander';
import { searchCatalogue, type ContentLanguage } from '../../catalogue';
import { defined } from '../../shared/defined';
import { catalogueDbPathFor } from '../../shared/supplier-accounts';
import type { CliContext, CommandRunner } from '../cli-context';
import { type CliError, failedError } from '../cli-errors';
import { table } from '../render';
import { parseContentLanguage, parseCountry, parseNumber, SUPPLIER_OPTION } from './content-args';
import { registerContentSyncCommand } from './content-sync-command';

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
  return failedError(
    `${what}. Fill it with \`${sync}\` (a worker with the catalogue store must be running; ` +
      'CATALOGUE_DB_PATH must name the same file for the worker and this tool), then search again.',
    'CATALOGUE_EMPTY',
  );
}

async function contentSearch(ctx: CliContext, o: ContentSearchOptions): Promise<void> {
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

  const hits = await searchCatalogue(
    store,
    defined({ country, language, limit, city, minStars, includeInactive: o.includeInactive }),
  );
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
        const rows = hits.map((p) => {
          const row = [p.id, p.name, p.city, p.stars, p.guestRating];
          return o.includeInactive ? [...row, p.active ? 'yes' : 'no'] : row;
        });
        lines.push(table(head, rows));
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
}

export function registerContentStoreCommands(content: Command, run: CommandRunner): void {
  registerContentSyncCommand(content, run);

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

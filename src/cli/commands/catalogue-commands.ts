/**
 * The supplier's catalogue from the command line: `search` (availability joined with property
 * names), `content list`, `content show` and `static`. These talk to the supplier only; no
 * Temporal server is needed.
 */
import type { Command } from 'commander';
import type { AvailabilityResponse, LanguageCode, PropertyDetail } from '../../hotel-api';
import { HotelApiError } from '../../hotel-api';
import type { CliContext } from '../cli-context';
import { usageError } from '../cli-errors';
import { ExitCode } from '../exit-codes';
import { formatPrice, keyValueTable, table } from '../render';
import type { CommandRunner } from './command-runner';

/** Property names are fetched this many at a time (one detail call each). */
const NAME_LOOKUP_CONCURRENCY = 8;

/** `--property 1001 1002` or `--property 1001,1002`. */
export function parsePropertyIds(raw: readonly string[]): number[] {
  const ids = raw.flatMap((r) => r.split(',')).filter((s) => s.trim() !== '');
  return ids.map((s) => {
    const n = Number(s);
    if (!Number.isSafeInteger(n) || n <= 0) {
      throw usageError(`--property: "${s}" is not a property id (a positive integer)`, [
        { field: '--property', message: `"${s}" is not a positive integer` },
      ]);
    }
    return n;
  });
}

/** Names by property id; a property the supplier does not describe gets no name, not an error. */
async function propertyNames(
  ctx: CliContext,
  ids: readonly number[],
  languageCode: LanguageCode,
): Promise<Map<number, string>> {
  const names = new Map<number, string>();
  for (let i = 0; i < ids.length; i += NAME_LOOKUP_CONCURRENCY) {
    await Promise.all(
      ids.slice(i, i + NAME_LOOKUP_CONCURRENCY).map(async (hotelId) => {
        try {
          names.set(hotelId, (await ctx.hotelApi().getProperty({ hotelId, languageCode })).name);
        } catch (err) {
          // An inactive or unknown property still has rooms worth showing.
          if (!(err instanceof HotelApiError && err.code === 'NOT_FOUND')) throw err;
        }
      }),
    );
  }
  return names;
}

interface SearchOptions {
  property: string[];
  checkin: string;
  checkout: string;
  occupancy: string[];
  language: string;
}

async function search(ctx: CliContext, o: SearchOptions): Promise<ExitCode> {
  const propertyIds = parsePropertyIds(o.property);
  const language = o.language as LanguageCode;
  const availability: AvailabilityResponse = await ctx.hotelApi().availability({
    checkin: o.checkin,
    checkout: o.checkout,
    propertyIds,
    occupancy: o.occupancy,
  });
  const found = availability.properties.map((p) => Number(p.property_id));
  const names = await propertyNames(ctx, found, language);
  const properties = availability.properties.map((p) => ({
    propertyId: Number(p.property_id),
    name: names.get(Number(p.property_id)) ?? null,
    status: p.status,
    rooms: p.rooms.map((r) => ({
      optionId: r.id,
      roomName: r.room_name,
      board: r.treatments.map((t) => t.name),
      price: r.price,
      refundable: r.refundable,
      status: r.status,
      numberOfRooms: r.number_of_rooms,
    })),
  }));
  const roomCount = properties.reduce((n, p) => n + p.rooms.length, 0);
  ctx.emit(
    {
      checkin: o.checkin,
      checkout: o.checkout,
      occupancy: o.occupancy,
      properties,
      warnings: availability.warnings,
    },
    () => {
      const rows = properties.flatMap((p) =>
        p.rooms.map((r) => [
          `${p.propertyId} ${p.name ?? ''}`.trim(),
          r.roomName,
          r.board.join(', '),
          formatPrice(r.price),
          r.refundable ? 'yes' : 'no',
          r.optionId,
        ]),
      );
      const lines = [
        `${roomCount} room option(s) at ${properties.length} property(ies), ${o.checkin} → ${o.checkout}, occupancy ${o.occupancy.join(' + ')}`,
      ];
      if (rows.length > 0) {
        lines.push(table(['Property', 'Room', 'Board', 'Price', 'Refundable', 'Option id'], rows));
        lines.push(
          'Book one with: book --order <id> --option <option id> --guest "First Last" ...',
        );
      }
      for (const w of availability.warnings) lines.push(`warning: ${w}`);
      return lines.join('\n');
    },
  );
  return ExitCode.OK;
}

async function contentList(
  ctx: CliContext,
  o: { country: string; page: string; language: string },
): Promise<ExitCode> {
  const page = Number(o.page);
  const list = await ctx.hotelApi().listProperties({
    countryCode: o.country,
    page,
    languageCode: o.language as LanguageCode,
  });
  const pages = Math.ceil(list.total / 200);
  ctx.emit(
    { country: o.country, page, pages, total: list.total, properties: list.properties },
    () => {
      const rows = list.properties.map((p) => {
        const d = p as Partial<PropertyDetail>;
        return [p.id, p.name, d.city, d.stars ?? '', d.category];
      });
      const lines = [`Page ${page} of ${pages} (${list.total} properties in ${o.country})`];
      if (rows.length > 0) lines.push(table(['Id', 'Name', 'City', 'Stars', 'Category'], rows));
      if (page < pages) lines.push(`Next: content list --country ${o.country} --page ${page + 1}`);
      return lines.join('\n');
    },
  );
  return ExitCode.OK;
}

async function contentShow(
  ctx: CliContext,
  rawId: string,
  o: { language: string },
): Promise<ExitCode> {
  const [hotelId] = parsePropertyIds([rawId]);
  const p = await ctx.hotelApi().getProperty({
    hotelId: hotelId!,
    languageCode: o.language as LanguageCode,
  });
  const descriptions = (p as { descriptions?: { headline?: string } }).descriptions;
  ctx.emit(p, () =>
    keyValueTable([
      ['Id', p.id],
      ['Name', p.name],
      ['Stars', p.stars ?? undefined],
      ['Category', p.category ?? undefined],
      [
        'Address',
        [p.address, [p.zipcode, p.city].filter(Boolean).join(' '), p.state_name]
          .filter(Boolean)
          .join(', ') || undefined,
      ],
      ['Country', p.country ? `${p.country.name} (${p.country.code})` : undefined],
      ['Phone', p.phone_nr ?? undefined],
      [
        'Coordinates',
        p.coordinates ? `${p.coordinates.latitude}, ${p.coordinates.longitude}` : undefined,
      ],
      [
        'Guest rating',
        p.guest_rating_overall != null
          ? `${p.guest_rating_overall} (${p.guest_rating_count ?? 0} reviews)`
          : undefined,
      ],
      ['Headline', descriptions?.headline ?? undefined],
    ]),
  );
  return ExitCode.OK;
}

const REFERENCE_LISTS = [
  ['categories', 'Categories'],
  ['treatment_categories', 'Boards (treatments)'],
  ['room_amenities', 'Room amenities'],
  ['property_amenities', 'Property amenities'],
  ['hotel_attributes', 'Hotel attributes'],
] as const;

async function staticLists(ctx: CliContext, o: { language: string }): Promise<ExitCode> {
  const lists = await ctx.hotelApi().staticReferenceList({ language: o.language as LanguageCode });
  ctx.emit(lists, () =>
    REFERENCE_LISTS.map(
      ([key, title]) =>
        `${title} (${lists[key].length})\n${table(
          ['Id', 'Name'],
          lists[key].map((i) => [i.id, i.name]),
        )}`,
    ).join('\n\n'),
  );
  return ExitCode.OK;
}

/** Adds `search`, `content list|show` and `static` to the program. */
export function registerCatalogueCommands(program: Command, run: CommandRunner): void {
  program
    .command('search')
    .description('Rooms available at properties for dates and occupancy, with property names')
    .requiredOption('--property <ids...>', 'property ids (spaces or commas between them)')
    .requiredOption('--checkin <date>', 'check-in date, YYYY-MM-DD')
    .requiredOption('--checkout <date>', 'check-out date, YYYY-MM-DD')
    .option(
      '--occupancy <rooms...>',
      'one per room: adults, or adults-childAge,childAge (e.g. 2 or 2-5,7)',
      ['2'],
    )
    .option('--language <code>', 'language of property names (en, it)', 'en')
    .action((o: SearchOptions) => run((ctx) => search(ctx, o)));

  const content = program
    .command('content')
    .description("The supplier's property content: list a country's properties, show one");
  content
    .command('list')
    .description("One page (200) of a country's active properties")
    .requiredOption('--country <code>', 'ISO 3166-1 alpha-2 country code, e.g. IT')
    .option('--page <n>', 'page number, from 1', '1')
    .option('--language <code>', 'en or it', 'en')
    .action((o: { country: string; page: string; language: string }) =>
      run((ctx) => contentList(ctx, o)),
    );
  content
    .command('show')
    .description('The detail record of one property')
    .argument('<id>', 'property id')
    .option('--language <code>', 'en or it', 'en')
    .action((id: string, o: { language: string }) => run((ctx) => contentShow(ctx, id, o)));

  program
    .command('static')
    .description('The reference lists: categories, boards, amenities, attributes')
    .option('--language <code>', 'en or it', 'en')
    .action((o: { language: string }) => run((ctx) => staticLists(ctx, o)));
}

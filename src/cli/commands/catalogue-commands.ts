/** `search` (availability with property names and stars), `content list|show` and `static`. */
import type { Command } from 'commander';
import { showProperty } from '../../catalogue';
import type { AvailabilityResponse, LanguageCode, PropertyDetail } from '../../hotel-api';
import type { CliContext, CommandRunner } from '../cli-context';
import { formatPrice, keyValueTable, table } from '../render';
import { parseContentLanguage, parsePositiveInt, SUPPLIER_OPTION } from './content-args';
import { registerContentStoreCommands } from './content-store-commands';
import { propertyLabels } from './property-labels';

/** `--property 1001 1002` or `--property 1001,1002`. */
export function parsePropertyIds(raw: readonly string[]): number[] {
  const ids = raw.flatMap((r) => r.split(',')).filter((s) => s.trim() !== '');
  return ids.map((s) =>
    parsePositiveInt('--property', s, 'a property id', `"${s}" is not a positive integer`),
  );
}

interface SearchOptions {
  property: string[];
  checkin: string;
  checkout: string;
  occupancy: string[];
  language: string;
  supplier?: string;
}

async function search(ctx: CliContext, o: SearchOptions): Promise<void> {
  const { checkin, checkout, occupancy } = o;
  const propertyIds = parsePropertyIds(o.property);
  const language = parseContentLanguage(o.language);
  const availability: AvailabilityResponse = await ctx
    .hotelApi(o.supplier)
    .availability({ checkin, checkout, propertyIds, occupancy });
  const found = availability.properties.map((p) => Number(p.property_id));
  const labels = await propertyLabels(ctx, found, language, o.supplier);
  const properties = availability.properties.map((p) => ({
    propertyId: Number(p.property_id),
    name: labels.get(Number(p.property_id))?.name ?? null,
    stars: labels.get(Number(p.property_id))?.stars ?? null,
    // Where name and stars came from: the local catalogue or a supplier detail call.
    nameSource: labels.get(Number(p.property_id))?.source ?? null,
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
  const { warnings } = availability;
  ctx.emit({ checkin, checkout, occupancy, properties, warnings }, () => {
    const rows = properties.flatMap((p) =>
      p.rooms.map((r) => [
        `${p.propertyId} ${p.name ?? ''}`.trim(),
        p.stars,
        r.roomName,
        r.board.join(', '),
        formatPrice(r.price),
        r.refundable ? 'yes' : 'no',
        r.optionId,
      ]),
    );
    const lines = [
      `${roomCount} room option(s) at ${properties.length} property(ies), ${checkin} → ${checkout}, occupancy ${occupancy.join(' + ')}`,
    ];
    if (rows.length > 0) {
      lines.push(
        table(['Property', 'Stars', 'Room', 'Board', 'Price', 'Refundable', 'Option id'], rows),
        'Book one with: book --order <id> --option <option id> --guest "First Last" ...',
      );
    }
    for (const w of warnings) lines.push(`warning: ${w}`);
    return lines.join('\n');
  });
}

async function contentList(
  ctx: CliContext,
  o: { country: string; page: string; language: string; supplier?: string },
): Promise<void> {
  const { country } = o;
  const page = Number(o.page);
  const query = { countryCode: country, page, languageCode: o.language as LanguageCode };
  const { total, properties } = await ctx.hotelApi(o.supplier).listProperties(query);
  const pages = Math.ceil(total / 200);
  ctx.emit({ country, page, pages, total, properties }, () => {
    const rows = properties.map((p) => {
      const d = p as Partial<PropertyDetail>;
      return [p.id, p.name, d.city, d.stars ?? '', d.category];
    });
    const lines = [`Page ${page} of ${pages} (${total} properties in ${country})`];
    if (rows.length > 0) lines.push(table(['Id', 'Name', 'City', 'Stars', 'Category'], rows));
    if (page < pages) lines.push(`Next: content list --country ${country} --page ${page + 1}`);
    return lines.join('\n');
  });
}

interface ShowOptions {
  language: string;
  live?: boolean;
  supplier?: string;
}

/**
 * One property: from the local catalogue when it has the property in that language (active or
 * not), else from the supplier; `source` says which. `--live` skips the catalogue.
 */
async function contentShow(ctx: CliContext, rawId: string, o: ShowOptions): Promise<void> {
  const [hotelId] = parsePropertyIds([rawId]);
  const language = parseContentLanguage(o.language);
  const store = o.live ? undefined : await ctx.catalogueStore(o.supplier);
  const stored = store ? await showProperty(store, hotelId!, language) : undefined;
  let p: PropertyDetail;
  let source: string;
  let json: Record<string, unknown>;
  if (stored) {
    p = stored.detail as unknown as PropertyDetail;
    source = `store (last synced ${stored.lastSeenAt})`;
    // The catalogue's bookkeeping of the property, shown next to its detail.
    const { active, countryCode, firstSeenAt, updatedAt, lastSeenAt, deactivatedAt } = stored;
    const catalogue = { active, countryCode, firstSeenAt, updatedAt, lastSeenAt, deactivatedAt };
    json = { source: 'store', ...stored.detail, catalogue };
  } else {
    p = await ctx.hotelApi(o.supplier).getProperty({ hotelId: hotelId!, languageCode: language });
    source = o.live
      ? 'supplier (--live)'
      : store
        ? 'supplier (not in the local catalogue)'
        : 'supplier (no local catalogue)';
    json = { source: 'supplier', ...p };
  }
  const descriptions = (p as { descriptions?: { headline?: string } }).descriptions;
  ctx.emit(json, () =>
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
      [
        'Active',
        stored && !stored.active
          ? `no: the sync of ${stored.deactivatedAt ?? '?'} no longer listed it`
          : undefined,
      ],
      ['Source', source],
    ]),
  );
}

const REFERENCE_LISTS = [
  ['categories', 'Categories'],
  ['treatment_categories', 'Boards (treatments)'],
  ['room_amenities', 'Room amenities'],
  ['property_amenities', 'Property amenities'],
  ['hotel_attributes', 'Hotel attributes'],
] as const;

async function staticLists(
  ctx: CliContext,
  o: { language: string; supplier?: string },
): Promise<void> {
  const language = o.language as LanguageCode;
  const lists = await ctx.hotelApi(o.supplier).staticReferenceList({ language });
  const section = ([key, title]: (typeof REFERENCE_LISTS)[number]) => {
    const rows = lists[key].map((i) => [i.id, i.name]);
    return `${title} (${lists[key].length})\n${table(['Id', 'Name'], rows)}`;
  };
  ctx.emit(lists, () => REFERENCE_LISTS.map(section).join('\n\n'));
}

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
    .option(...SUPPLIER_OPTION)
    .addHelpText(
      'after',
      '\nNames and stars come from the local catalogue (`content sync`) when it has the ' +
        'property,\nelse from one supplier detail call per property (JSON: nameSource).',
    )
    .action((o: SearchOptions) => run((ctx) => search(ctx, o)));

  const content = program
    .command('content')
    .description(
      "Property content: sync a country into the local catalogue, search it, show one; list the supplier's",
    );
  content
    .command('list')
    .description("One page (200) of a country's active properties, from the supplier")
    .requiredOption('--country <code>', 'ISO 3166-1 alpha-2 country code, e.g. IT')
    .option('--page <n>', 'page number, from 1', '1')
    .option('--language <code>', 'en or it', 'en')
    .option(...SUPPLIER_OPTION)
    .action((o: { country: string; page: string; language: string; supplier?: string }) =>
      run((ctx) => contentList(ctx, o)),
    );
  content
    .command('show')
    .description('The detail record of one property: the local catalogue, else the supplier')
    .argument('<id>', 'property id')
    .option('--language <code>', 'en or it', 'en')
    .option('--live', 'ask the supplier even when the local catalogue has the property')
    .option(...SUPPLIER_OPTION)
    .action((id: string, o: ShowOptions) => run((ctx) => contentShow(ctx, id, o)));
  registerContentStoreCommands(content, run);

  program
    .command('static')
    .description('The reference lists: categories, boards, amenities, attributes')
    .option('--language <code>', 'en or it', 'en')
    .option(...SUPPLIER_OPTION)
    .action((o: { language: string; supplier?: string }) => run((ctx) => staticLists(ctx, o)));
}

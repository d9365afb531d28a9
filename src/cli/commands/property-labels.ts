/** Name and stars of listed properties: the account's catalogue, else one supplier call each. */
import { propertyNames, type ContentLanguage } from '../../catalogue';
import { HotelApiError } from '../../hotel-api';
import type { CliContext } from '../cli-context';

/** Property details are fetched from the supplier this many at a time (one call each). */
const NAME_LOOKUP_CONCURRENCY = 8;

/** A property's label in availability answers, and where it came from. */
export interface PropertyLabel {
  readonly name: string;
  readonly stars: number | null;
  readonly source: 'store' | 'supplier';
}

/** Name and stars by property id; a property the supplier does not describe (404) gets none. */
export async function propertyLabels(
  ctx: CliContext,
  ids: readonly number[],
  language: ContentLanguage,
  supplier?: string,
): Promise<Map<number, PropertyLabel>> {
  const labels = new Map<number, PropertyLabel>();
  if (ids.length > 0) {
    try {
      const store = await ctx.catalogueStore(supplier);
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

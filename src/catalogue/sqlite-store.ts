/**
 * The embedded catalogue store: one SQLite file through better-sqlite3 (synchronous, in-process,
 * no server to run). WAL mode lets the CLI read while a worker writes.
 */
import type Database from 'better-sqlite3';
import type {
  CatalogueQuery,
  CatalogueStats,
  CatalogueStore,
  PropertySummary,
  ReferenceItem,
} from './store';
import type { ContentLanguage } from './sync-contract';
import {
  cityKey,
  deactivateTransaction,
  openDatabase,
  referenceTransaction,
  upsertTransaction,
  type SqliteCatalogueStoreOptions,
} from './sqlite-writes';

interface PropertyRow {
  id: number;
  language: ContentLanguage;
  country_code: string;
  name: string;
  city: string | null;
  stars: number | null;
  guest_rating: number | null;
  active: number;
  detail: string;
  content_hash: string;
  first_seen_at: string;
  updated_at: string;
  last_seen_at: string;
  last_sync_id: string;
  deactivated_at: string | null;
}

function summary(row: PropertyRow): PropertySummary {
  return {
    id: row.id,
    language: row.language,
    countryCode: row.country_code,
    name: row.name,
    city: row.city,
    stars: row.stars,
    active: row.active === 1,
    guestRating: row.guest_rating,
  };
}

function searchProperties(db: Database.Database, query: CatalogueQuery): PropertySummary[] {
  const where = ['p.language = @language'];
  const params: Record<string, unknown> = {
    language: query.language ?? 'en',
    limit: Math.max(1, Math.floor(query.limit ?? 50)),
  };
  if (query.includeInactive !== true) where.push('p.active = 1');
  if (query.country !== undefined) {
    where.push('p.country_code = @country');
    params.country = query.country.toUpperCase();
  }
  if (query.minStars !== undefined) {
    where.push('p.stars >= @minStars');
    params.minStars = query.minStars;
  }
  if (query.city !== undefined) {
    // Any language's city name: an English speaker types "Rome" for rows that say "Roma".
    where.push('EXISTS (SELECT 1 FROM properties o WHERE o.id = p.id AND o.city_key = @city)');
    params.city = cityKey(query.city);
  }
  const rows = db
    .prepare<Record<string, unknown>, PropertyRow>(
      `SELECT p.id, p.language, p.country_code, p.name, p.city, p.stars, p.guest_rating, p.active
         FROM properties p WHERE ${where.join(' AND ')}
         ORDER BY p.stars DESC NULLS LAST, p.guest_rating DESC NULLS LAST, p.name, p.id
         LIMIT @limit`,
    )
    .all(params);
  return rows.map(summary);
}

/** What the catalogue holds, by country and language, and its reference lists. */
function catalogueStats(db: Database.Database): CatalogueStats {
  const properties = db
    .prepare<[], CatalogueStats['properties'][number]>(
      `SELECT country_code AS countryCode, language, SUM(active) AS active,
           SUM(1 - active) AS inactive, MAX(last_seen_at) AS lastSeenAt
         FROM properties GROUP BY country_code, language ORDER BY country_code, language`,
    )
    .all();
  const referenceLists = db
    .prepare<[], CatalogueStats['referenceLists'][number]>(
      `SELECT language, list, json_array_length(items) AS items, updated_at AS updatedAt
         FROM reference_lists ORDER BY language, list`,
    )
    .all();
  return { properties, referenceLists };
}

/** Opens (creating when needed) a SQLite catalogue at `options.path`. */
export function openSqliteCatalogueStore(options: SqliteCatalogueStoreOptions): CatalogueStore {
  const now = options.now ?? Date.now;
  const db = openDatabase(options);
  const writable = !(options.readonly ?? false);
  const readOnly = () => {
    throw new Error('catalogue opened read-only');
  };
  const upsertTx = writable ? upsertTransaction(db, now) : readOnly;
  const deactivateTx = writable ? deactivateTransaction(db, now) : readOnly;
  const referenceTx = writable ? referenceTransaction(db, now) : readOnly;
  let closed = false;
  return {
    async upsertProperties(records, syncId) {
      return upsertTx(records, syncId);
    },

    async markInactiveExcept(country, language, seenIds, syncId) {
      return deactivateTx(country, language, seenIds, syncId);
    },

    async activeIds(country, language) {
      return db
        .prepare<[string, string], number>(
          'SELECT id FROM properties WHERE country_code = ? AND language = ? AND active = 1 ORDER BY id',
        )
        .pluck()
        .all(country, language);
    },

    async getProperty(id, language) {
      const row = db
        .prepare<[number, string], PropertyRow>(
          'SELECT * FROM properties WHERE id = ? AND language = ?',
        )
        .get(id, language);
      if (row === undefined) return undefined;
      return {
        ...summary(row),
        detail: JSON.parse(row.detail) as Record<string, unknown>,
        contentHash: row.content_hash,
        firstSeenAt: row.first_seen_at,
        updatedAt: row.updated_at,
        lastSeenAt: row.last_seen_at,
        deactivatedAt: row.deactivated_at,
        lastSyncId: row.last_sync_id,
      };
    },

    async names(ids, language) {
      const rows = db
        .prepare<[string, string], { id: number; name: string; stars: number | null }>(
          // The preferred language sorts last, so its row overwrites any other below.
          `SELECT id, name, stars FROM properties
           WHERE id IN (SELECT value FROM json_each(?))
           ORDER BY language = ?, language`,
        )
        .all(JSON.stringify(ids.filter((id) => Number.isSafeInteger(id))), language);
      return new Map(rows.map((r) => [r.id, { name: r.name, stars: r.stars }]));
    },

    async search(query) {
      return searchProperties(db, query);
    },

    async upsertReferenceLists(language, lists) {
      return referenceTx(language, lists);
    },

    async getReferenceLists(language) {
      const rows = db
        .prepare<[string], { list: string; items: string }>(
          'SELECT list, items FROM reference_lists WHERE language = ? ORDER BY list',
        )
        .all(language);
      return Object.fromEntries(rows.map((r) => [r.list, JSON.parse(r.items) as ReferenceItem[]]));
    },

    async stats() {
      return catalogueStats(db);
    },

    async close() {
      if (closed) return;
      closed = true;
      db.close();
    },
  };
}

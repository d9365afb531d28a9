/**
 * The catalogue's SQLite file as a writer sees it: its schema, opening (WAL, migrated) and the
 * three write transactions (properties, deactivation, reference lists). The store
 * (sqlite-store.ts) reads and calls these.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { contentHash } from './content-hash';
import type { PropertyRecord, ReferenceLists } from './store';
import type { ChangeCounts, ContentLanguage } from './sync-contract';

/** Bumped when the schema changes; {@link openSqliteCatalogueStore} refuses a newer file. */
export const CATALOGUE_SCHEMA_VERSION = 1;

export interface SqliteCatalogueStoreOptions {
  /** The database file (created with its directory when missing), or `:memory:`. */
  readonly path: string;
  /** Clock for the stored timestamps. @default Date.now */
  readonly now?: () => number;
  /** How long a write waits for another process's lock, in ms. @default 5000 */
  readonly busyTimeoutMs?: number;
  /** Open read-only (the CLI's read side); the file must exist. @default false */
  readonly readonly?: boolean;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS properties (
  id INTEGER NOT NULL,
  language TEXT NOT NULL,
  country_code TEXT NOT NULL,
  name TEXT NOT NULL,
  city TEXT,
  city_key TEXT,
  stars REAL,
  guest_rating REAL,
  active INTEGER NOT NULL,
  detail TEXT NOT NULL,
  content_hash TEXT NOT NULL,
  first_seen_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  last_seen_at TEXT NOT NULL,
  last_sync_id TEXT NOT NULL,
  last_sync_outcome TEXT NOT NULL,
  deactivated_at TEXT,
  deactivated_by_sync TEXT,
  PRIMARY KEY (id, language)
);
CREATE INDEX IF NOT EXISTS properties_slice ON properties (country_code, language, active);
CREATE INDEX IF NOT EXISTS properties_city ON properties (city_key);
CREATE TABLE IF NOT EXISTS reference_lists (
  language TEXT NOT NULL,
  list TEXT NOT NULL,
  items TEXT NOT NULL,
  content_hash TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (language, list)
);
`;

type Outcome = 'inserted' | 'updated' | 'unchanged';

interface ExistingRow {
  content_hash: string;
  active: number;
  last_sync_id: string;
  last_sync_outcome: Outcome;
}

/** Case- and accent-insensitive key: `Málaga` and `malaga` match (SQLite's lower() is ASCII). */
export function cityKey(city: string | null | undefined): string | null {
  if (city === null || city === undefined) return null;
  return city.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase().trim();
}

function numberOrNull(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

/** Opens the database file (created unless read-only), WAL for a writer, migrated. */
export function openDatabase(options: SqliteCatalogueStoreOptions): Database.Database {
  const readonly = options.readonly ?? false;
  if (options.path !== ':memory:' && !readonly)
    mkdirSync(dirname(options.path), { recursive: true });
  const db = new Database(options.path, {
    readonly,
    fileMustExist: readonly,
    timeout: options.busyTimeoutMs ?? 5_000,
  });
  if (!readonly) {
    // WAL: readers (the CLI) never block the writer (a worker) and vice versa.
    db.pragma('journal_mode = WAL');
    // NORMAL in WAL mode loses at most the last transactions on power loss, never integrity;
    // the next sync rewrites them anyway.
    db.pragma('synchronous = NORMAL');
    if ((db.pragma('user_version', { simple: true }) as number) < CATALOGUE_SCHEMA_VERSION) {
      db.exec(SCHEMA);
      db.pragma(`user_version = ${CATALOGUE_SCHEMA_VERSION}`);
    }
  }
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version > CATALOGUE_SCHEMA_VERSION) {
    db.close();
    throw new Error(
      `catalogue ${options.path} has schema version ${version}; this code knows ${CATALOGUE_SCHEMA_VERSION}`,
    );
  }
  return db;
}

function upsertStatements(db: Database.Database) {
  return {
    select: db.prepare<[number, string], ExistingRow>(
      'SELECT content_hash, active, last_sync_id, last_sync_outcome FROM properties WHERE id = ? AND language = ?',
    ),
    insert: db.prepare(
      `INSERT INTO properties (id, language, country_code, name, city, city_key, stars, guest_rating,
         active, detail, content_hash, first_seen_at, updated_at, last_seen_at, last_sync_id,
         last_sync_outcome)
       VALUES (@id, @language, @country, @name, @city, @cityKey, @stars, @rating, 1, @detail, @hash,
         @now, @now, @now, @syncId, 'inserted')`,
    ),
    rewrite: db.prepare(
      `UPDATE properties SET country_code = @country, name = @name, city = @city, city_key = @cityKey,
         stars = @stars, guest_rating = @rating, active = 1, detail = @detail, content_hash = @hash,
         updated_at = @now, last_seen_at = @now, last_sync_id = @syncId, last_sync_outcome = @outcome,
         deactivated_at = NULL, deactivated_by_sync = NULL
       WHERE id = @id AND language = @language`,
    ),
    touch: db.prepare(
      `UPDATE properties SET last_seen_at = @now, last_sync_id = @syncId, last_sync_outcome = @outcome
       WHERE id = @id AND language = @language`,
    ),
  };
}

function rowOf(r: PropertyRecord, hash: string, now: string, syncId: string) {
  return {
    id: r.id,
    language: r.language,
    country: r.countryCode,
    name: r.detail.name,
    city: r.detail.city ?? null,
    cityKey: cityKey(r.detail.city),
    stars: numberOrNull(r.detail.stars),
    rating: numberOrNull(r.detail.guest_rating_overall),
    detail: JSON.stringify(r.detail),
    hash,
    now,
    syncId,
  };
}

/** Writes each record as new, changed or seen again; a retried sync reports its first outcome. */
export function upsertTransaction(db: Database.Database, clock: () => number) {
  const { select, insert, rewrite, touch } = upsertStatements(db);
  return db.transaction((records: readonly PropertyRecord[], syncId: string): ChangeCounts => {
    const counts = { inserted: 0, updated: 0, unchanged: 0 };
    const now = new Date(clock()).toISOString();
    for (const r of records) {
      const hash = contentHash(r.detail);
      const row = rowOf(r, hash, now, syncId);
      const existing = select.get(r.id, r.language);
      let outcome: Outcome;
      if (existing === undefined) {
        insert.run(row);
        outcome = 'inserted';
      } else if (existing.last_sync_id === syncId) {
        // Written earlier by this same sync (a retried attempt): report the first outcome.
        outcome = existing.last_sync_outcome;
        if (existing.content_hash !== hash || existing.active !== 1) {
          if (outcome === 'unchanged') outcome = 'updated';
          rewrite.run({ ...row, outcome });
        }
      } else if (existing.content_hash === hash && existing.active === 1) {
        touch.run({ id: r.id, language: r.language, now, syncId, outcome: 'unchanged' });
        outcome = 'unchanged';
      } else {
        // Changed content, or a property listed again after it was marked inactive.
        rewrite.run({ ...row, outcome: 'updated' });
        outcome = 'updated';
      }
      counts[outcome] += 1;
    }
    return counts;
  });
}

/** Marks inactive every active row of the country and language not in `seen`; counts them. */
export function deactivateTransaction(db: Database.Database, clock: () => number) {
  return db.transaction(
    (country: string, language: ContentLanguage, seen: Iterable<number>, syncId: string) => {
      db.exec('CREATE TEMP TABLE IF NOT EXISTS seen_ids (id INTEGER PRIMARY KEY)');
      db.exec('DELETE FROM seen_ids');
      const add = db.prepare('INSERT OR IGNORE INTO seen_ids (id) VALUES (?)');
      for (const id of seen) add.run(id);
      db.prepare(
        `UPDATE properties SET active = 0, deactivated_at = ?, deactivated_by_sync = ?
         WHERE country_code = ? AND language = ? AND active = 1
           AND id NOT IN (SELECT id FROM seen_ids)`,
      ).run(new Date(clock()).toISOString(), syncId, country, language);
      db.exec('DELETE FROM seen_ids');
      return db
        .prepare<[string, string, string], { n: number }>(
          `SELECT COUNT(*) AS n FROM properties
           WHERE country_code = ? AND language = ? AND active = 0 AND deactivated_by_sync = ?`,
        )
        .get(country, language, syncId)!.n;
    },
  );
}

/** Stores each reference list whose content changed; counts them. */
export function referenceTransaction(db: Database.Database, clock: () => number) {
  return db.transaction((language: ContentLanguage, lists: ReferenceLists) => {
    const now = new Date(clock()).toISOString();
    const current = db.prepare<[string, string], { content_hash: string }>(
      'SELECT content_hash FROM reference_lists WHERE language = ? AND list = ?',
    );
    const put = db.prepare(
      `INSERT INTO reference_lists (language, list, items, content_hash, updated_at)
       VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (language, list) DO UPDATE SET items = excluded.items,
         content_hash = excluded.content_hash, updated_at = excluded.updated_at`,
    );
    let changed = 0;
    for (const [list, items] of Object.entries(lists)) {
      const hash = contentHash(items);
      if (current.get(language, list)?.content_hash === hash) continue;
      put.run(language, list, JSON.stringify(items), hash, now);
      changed += 1;
    }
    return changed;
  });
}

/**
 * The catalogue store: what the content sync writes (worker side) and the CLI reads. A small
 * interface so that another database can replace the embedded SQLite one (sqlite-store.ts);
 * methods are asynchronous for that reason, even though SQLite answers synchronously.
 *
 * Rows are per property and language: the supplier localises names of cities, categories and
 * descriptions, and each `(country, language)` sync owns its own slice, including its `active`
 * flag (a property seen by the `it` pass is not vouched for by the `en` pass).
 */
import type { ChangeCounts, ContentLanguage } from './sync-contract';

/** One property detail as the sync hands it to the store. */
export interface PropertyRecord {
  readonly id: number;
  readonly language: ContentLanguage;
  /** ISO 3166-1 alpha-2 of the country the sync listed it under. */
  readonly countryCode: string;
  /** The supplier's detail record, stored whole (JSON). */
  readonly detail: Readonly<Record<string, unknown>> & {
    readonly name: string;
    readonly city?: string | null;
    readonly stars?: number | null;
  };
}

/** A search hit: what a list of properties shows. */
export interface PropertySummary {
  readonly id: number;
  readonly language: ContentLanguage;
  readonly countryCode: string;
  readonly name: string;
  readonly city: string | null;
  readonly stars: number | null;
  /** `false` once a full pass no longer listed it; the row and its content stay. */
  readonly active: boolean;
  readonly guestRating: number | null;
}

/** A stored property in one language: its summary's fields, its content and its times. */
export interface StoredProperty extends Omit<PropertySummary, 'guestRating'> {
  readonly detail: Readonly<Record<string, unknown>>;
  /** SHA-256 of the canonical JSON of `detail`. */
  readonly contentHash: string;
  /** ISO 8601 times. */
  readonly firstSeenAt: string;
  readonly updatedAt: string;
  readonly lastSeenAt: string;
  readonly deactivatedAt: string | null;
  /** The sync that last listed it. */
  readonly lastSyncId: string;
}

/** Filters of {@link CatalogueStore.search}; every filter is optional. */
export interface CatalogueQuery {
  /** ISO 3166-1 alpha-2. */
  readonly country?: string;
  /**
   * City name, matched case- and accent-insensitively in any stored language (`Rome` finds the
   * rows whose Italian city is `Roma` too).
   */
  readonly city?: string;
  readonly minStars?: number;
  /** The language of the rows returned. @default 'en' */
  readonly language?: ContentLanguage;
  /** Include properties marked inactive. @default false */
  readonly includeInactive?: boolean;
  /** @default 50 */
  readonly limit?: number;
}

/** A reference list item (`{ id, name }`, seed: static reference list response). */
export interface ReferenceItem {
  readonly id: string;
  readonly name: string;
}

/** The five lists of the static reference list, in one language (other lists are kept too). */
export type ReferenceLists = Readonly<Record<string, readonly ReferenceItem[]>>;

/** Row counts, for the CLI and operators. */
export interface CatalogueStats {
  readonly properties: readonly {
    readonly countryCode: string;
    readonly language: ContentLanguage;
    readonly active: number;
    readonly inactive: number;
    /** ISO 8601, latest `lastSeenAt` of the slice. */
    readonly lastSeenAt: string | null;
  }[];
  readonly referenceLists: readonly {
    readonly language: ContentLanguage;
    readonly list: string;
    readonly items: number;
    readonly updatedAt: string;
  }[];
}

export interface CatalogueStore {
  /**
   * Inserts or updates properties, comparing content hashes: an unchanged record is counted
   * `unchanged` and its content is not rewritten. A row seen again is made active.
   *
   * Idempotent per `syncId`: a row already written by this sync reports the outcome it had the
   * first time, so a retried activity counts exactly what one attempt would.
   */
  upsertProperties(records: readonly PropertyRecord[], syncId: string): Promise<ChangeCounts>;

  /**
   * Marks inactive every active row of `(country, language)` whose id is not in `seenIds`
   * (never deletes). Returns how many rows this sync has deactivated, counting those of an
   * earlier attempt with the same `syncId`, so a retry reports the same number.
   */
  markInactiveExcept(
    country: string,
    language: ContentLanguage,
    seenIds: Iterable<number>,
    syncId: string,
  ): Promise<number>;

  /** Ids of the active rows of `(country, language)`, ascending. */
  activeIds(country: string, language: ContentLanguage): Promise<number[]>;

  /** One property in one language, active or not. */
  getProperty(id: number, language: ContentLanguage): Promise<StoredProperty | undefined>;

  /**
   * Name and stars of each id found, in `language` when stored in it, else in any language
   * (names rarely differ by language). Ids never synced are absent. Inactive rows count too: an
   * availability answer may still name a property the last pass no longer listed.
   */
  names(
    ids: readonly number[],
    language: ContentLanguage,
  ): Promise<Map<number, { readonly name: string; readonly stars: number | null }>>;

  /** Active properties (by default) matching every filter given, best rated first. */
  search(query: CatalogueQuery): Promise<PropertySummary[]>;

  /** Replaces a language's reference lists, each one whose content changed; returns how many. */
  upsertReferenceLists(language: ContentLanguage, lists: ReferenceLists): Promise<number>;

  /** A language's reference lists (empty when never synced). */
  getReferenceLists(language: ContentLanguage): Promise<ReferenceLists>;

  stats(): Promise<CatalogueStats>;

  /** Releases the database; idempotent. */
  close(): Promise<void>;
}

/**
 * The content-sync contract shared by the workflow, its activities, the schedule helper and the
 * CLI: names, ids, input, state and result. Pure (no I/O, no Node built-ins): the workflow
 * bundle imports it.
 */
import { DEFAULT_SUPPLIER_ACCOUNT } from '../shared/supplier-accounts';
import type { IdRanges } from './id-ranges';

export const CONTENT_SYNC_WORKFLOW = 'syncContent';

/** Languages the supplier serves content in (seed: `en` or `it`). */
export const CONTENT_LANGUAGES = ['en', 'it'] as const;
export type ContentLanguage = (typeof CONTENT_LANGUAGES)[number];

/** The list's fixed page size (seed: "Page size is fixed at 200"). */
export const CONTENT_PAGE_SIZE = 200;

/** Pages of the list for its `total`, which counts properties, not pages (seed). */
export function contentPageCount(total: number): number {
  return Math.ceil(Math.max(0, total) / CONTENT_PAGE_SIZE);
}

/** Detail fetches in flight at once inside one page activity. */
export const DEFAULT_DETAIL_CONCURRENCY = 8;
/**
 * Detail fetches started per second inside one page activity. The seed documents no rate limit;
 * this keeps a background job polite toward the supplier that also serves our bookings.
 */
export const DEFAULT_DETAILS_PER_SECOND = 50;
/** Pages one run handles before continue-as-new: history stays small (a page is ~6 events). */
export const DEFAULT_PAGES_PER_RUN = 10;

/**
 * `content-sync-<CC>-<lang>`: one sync per country and language at a time; another supplier
 * account's is `content-sync-<CC>-<lang>-<account>` (src/shared/supplier-accounts.ts). Also the id
 * of the country and language's schedule.
 */
export function contentSyncWorkflowId(
  countryCode: string,
  language: ContentLanguage,
  supplier?: string,
): string {
  const id = `content-sync-${countryCode}-${language}`;
  return supplier === undefined || supplier === DEFAULT_SUPPLIER_ACCOUNT ? id : `${id}-${supplier}`;
}

/** Limits on detail fetches, applied inside each page activity. */
export interface DetailFetchLimits {
  /** Detail fetches in flight at once. @default DEFAULT_DETAIL_CONCURRENCY (8) */
  readonly detailConcurrency?: number;
  /**
   * Detail fetches started per second; `0` means no cap (tests, a supplier without limits).
   * @default DEFAULT_DETAILS_PER_SECOND (50)
   */
  readonly detailsPerSecond?: number;
}

/** The slice of the catalogue a pass owns. */
export interface CountryLanguage {
  /** ISO 3166-1 alpha-2, upper case. */
  readonly countryCode: string;
  readonly language: ContentLanguage;
}

/** What a caller chooses of a pass: the country, language and account, and the limits. */
export interface ContentPassOptions extends CountryLanguage, DetailFetchLimits {
  /** Pages per run before continue-as-new. @default DEFAULT_PAGES_PER_RUN (10) */
  readonly pagesPerRun?: number;
  /** The supplier account whose content this is, into its own catalogue. @default the default */
  readonly supplier?: string;
}

export interface ContentSyncInput extends ContentPassOptions {
  /** Carried across continue-as-new; never set by callers. */
  readonly state?: ContentSyncState;
}

/** Counts of an upsert batch, and of a whole sync. */
export interface ChangeCounts {
  readonly inserted: number;
  readonly updated: number;
  readonly unchanged: number;
}

export const NO_CHANGES: ChangeCounts = { inserted: 0, updated: 0, unchanged: 0 };

export function addCounts(a: ChangeCounts, b: ChangeCounts): ChangeCounts {
  return {
    inserted: a.inserted + b.inserted,
    updated: a.updated + b.updated,
    unchanged: a.unchanged + b.unchanged,
  };
}

/** A pass's input from a caller's options: the limits given, nothing else. */
export function contentSyncInput(options: ContentPassOptions): ContentSyncInput {
  const { countryCode, language, detailConcurrency, detailsPerSecond, pagesPerRun } = options;
  return {
    countryCode,
    language,
    ...(options.supplier !== undefined ? { supplier: options.supplier } : {}),
    ...(detailConcurrency !== undefined ? { detailConcurrency } : {}),
    ...(detailsPerSecond !== undefined ? { detailsPerSecond } : {}),
    ...(pagesPerRun !== undefined ? { pagesPerRun } : {}),
  };
}

/**
 * The checkpoint: everything a new run needs to resume a pass where the previous one stopped,
 * written to history at each page's completion and carried by continue-as-new.
 */
export interface ContentSyncState {
  /** Identifies one full pass in the store (rows seen, rows deactivated by it). */
  readonly syncId: string;
  /** Workflow time at which the pass started, epoch ms. */
  readonly startedAtMs: number;
  /** The next page to fetch, 1-based. */
  readonly nextPage: number;
  /** Pages of the list as of the latest `total` seen (`undefined` before page 1). */
  readonly pages: number | undefined;
  /** Property ids listed and stored in this pass, as ranges (compact for contiguous ids). */
  readonly seen: IdRanges;
  readonly counts: ChangeCounts;
  /** Detail fetches that answered 404 (deactivated between list and detail). */
  readonly missing: number;
  readonly referenceListsDone: boolean;
  /** Runs of this pass so far (1 + continue-as-new count). */
  readonly run: number;
}

export interface ContentSyncResult extends CountryLanguage, ChangeCounts {
  /** Pages fetched (pages of the list at the end of the pass). */
  readonly pages: number;
  /** Properties listed and stored in this pass. */
  readonly properties: number;
  /** Properties marked inactive at the end of the pass. */
  readonly deactivated: number;
  /** Wall time of the whole pass, across continue-as-new, in ms. */
  readonly durationMs: number;
  readonly syncId: string;
  /** Workflow runs the pass took (1 + continue-as-new count). */
  readonly runs: number;
}

export interface ContentSyncProgress extends CountryLanguage {
  readonly phase: 'REFERENCE_LISTS' | 'PAGES' | 'DEACTIVATING' | 'DONE';
  readonly nextPage: number;
  readonly pages: number | undefined;
  readonly properties: number;
  readonly counts: ChangeCounts;
  readonly run: number;
}

export interface SyncContentPageInput extends CountryLanguage, DetailFetchLimits {
  readonly page: number;
  readonly syncId: string;
}

/** Result of the page activity: small on purpose, it is written to history. */
export interface SyncContentPageResult extends ChangeCounts {
  readonly page: number;
  /** The list's `total` as of this page. */
  readonly total: number;
  /** Ids listed on this page and stored. */
  readonly ids: IdRanges;
  /** Listed ids whose detail answered 404 (not stored, not seen). */
  readonly missing: number;
  /** Items the page listed. */
  readonly listed: number;
}

export interface FinishContentSyncInput extends CountryLanguage, DetailFetchLimits {
  readonly syncId: string;
  readonly seen: IdRanges;
}

export interface FinishContentSyncResult extends ChangeCounts {
  /** Rows this pass marked inactive. */
  readonly deactivated: number;
  /**
   * Active rows absent from the list whose detail still answered 200 (the list shifted under
   * us while paging): refreshed and kept active, not deactivated.
   */
  readonly confirmedActive: IdRanges;
}

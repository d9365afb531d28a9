/**
 * Content-sync activities: one list page with its details, the reference lists, and the end of a
 * pass (deactivation). They write to the catalogue store and return only counts and id ranges.
 * A page checkpoints itself in heartbeat details (the listing, the ids stored), so a retried
 * attempt continues where the last one stopped; upserts are idempotent per sync id.
 */
import { Context } from '@temporalio/activity';
import type { HotelApiClient, PropertyDetail } from '../hotel-api';
import { mergeRanges, rangeIds, rangesHas, toRanges, type IdRanges } from '../catalogue/id-ranges';
import type { CatalogueStore, PropertyRecord, ReferenceItem } from '../catalogue/store';
import {
  addCounts,
  NO_CHANGES,
  type ChangeCounts,
  type ContentLanguage,
  type FinishContentSyncInput,
  type FinishContentSyncResult,
  type SyncContentPageInput,
  type SyncContentPageResult,
} from '../catalogue/sync-contract';
import {
  cancellable,
  forEachDetail,
  HEARTBEAT_INTERVAL_MS,
  keepBeating,
  limitsOf,
} from './content-sync-lanes';
import { finalFailure, supplierCall, supplierRead } from './failures';

export interface ContentSyncActivityDeps {
  readonly hotelApi: HotelApiClient;
  /** Where synced content goes. Without it the content-sync activities fail, not retried. */
  readonly catalogueStore?: CatalogueStore;
}

/** What a page attempt heartbeats: enough for the next attempt to resume. */
interface PageProgress {
  readonly total: number;
  readonly listed: readonly number[];
  readonly done: IdRanges;
  readonly missing: readonly number[];
  readonly counts: ChangeCounts;
}

function store(deps: ContentSyncActivityDeps): CatalogueStore {
  if (deps.catalogueStore === undefined) {
    throw finalFailure(
      'CATALOGUE_NOT_CONFIGURED',
      'This worker has no catalogue store (createActivities({ catalogueStore }))',
    );
  }
  return deps.catalogueStore;
}

/** The detail, or `undefined` when the supplier says it is missing or inactive (404). */
async function fetchDetail(
  hotelApi: HotelApiClient,
  hotelId: number,
  languageCode: ContentLanguage,
): Promise<PropertyDetail | undefined> {
  const signal = Context.current().cancellationSignal;
  const read = () => hotelApi.getProperty({ hotelId, languageCode }, { signal });
  return supplierRead(read, () => undefined);
}

/** Stores one detail for the pass; its changes added to `counts`. */
async function storeDetail(
  catalogue: CatalogueStore,
  detail: PropertyDetail,
  at: { countryCode: string; language: ContentLanguage; syncId: string },
  counts: ChangeCounts,
): Promise<ChangeCounts> {
  const { countryCode, language } = at;
  const record: PropertyRecord = { id: detail.id, language, countryCode, detail };
  return addCounts(counts, await catalogue.upsertProperties([record], at.syncId));
}

/** `GET /static_content_reference_list` for a language, stored when changed. */
async function syncReferenceLists(
  deps: ContentSyncActivityDeps,
  { language }: { language: ContentLanguage },
): Promise<{ lists: number; items: number; changed: number }> {
  const catalogue = store(deps);
  const signal = Context.current().cancellationSignal;
  const r = await supplierCall(() => deps.hotelApi.staticReferenceList({ language }, { signal }));
  // The five documented lists, and any further list the supplier adds.
  const lists: Record<string, ReferenceItem[]> = {};
  for (const [name, value] of Object.entries(r)) {
    if (Array.isArray(value)) lists[name] = value as ReferenceItem[];
  }
  const changed = await catalogue.upsertReferenceLists(language, lists);
  const items = Object.values(lists).reduce((n, l) => n + l.length, 0);
  return { lists: Object.keys(lists).length, items, changed };
}

const isPageProgress = (v: unknown): v is PageProgress =>
  typeof v === 'object' &&
  v !== null &&
  (['listed', 'done', 'missing'] as const).every((k) => Array.isArray((v as PageProgress)[k]));

/** Where a page's attempt starts: the last attempt's progress, else the page read from the list. */
async function pageProgress(
  deps: ContentSyncActivityDeps,
  input: SyncContentPageInput,
): Promise<PageProgress> {
  const ctx = Context.current();
  const previous: unknown = ctx.info.heartbeatDetails;
  if (isPageProgress(previous)) return previous;
  const { countryCode, language, page } = input;
  const signal = ctx.cancellationSignal;
  const list = await supplierCall(() =>
    deps.hotelApi.listProperties({ countryCode, languageCode: language, page }, { signal }),
  );
  const progress: PageProgress = {
    total: list.total,
    listed: list.properties.map((p) => p.id),
    done: [],
    missing: [],
    counts: NO_CHANGES,
  };
  ctx.heartbeat(progress);
  return progress;
}

/**
 * One page of the list, each listed property's detail (rate-limited), stored as it arrives.
 * A detail that answers 404 (deactivated between list and detail) is skipped: it is not
 * "seen", so the end of the pass marks it inactive.
 */
async function syncContentPage(
  deps: ContentSyncActivityDeps,
  input: SyncContentPageInput,
): Promise<SyncContentPageResult> {
  const catalogue = store(deps);
  const ctx = Context.current();
  const progress = await pageProgress(deps, input);
  const missing = new Set(progress.missing);
  let { done, counts } = progress;
  const todo = [...new Set(progress.listed)].filter(
    (id) => !missing.has(id) && !rangesHas(done, id),
  );
  let latest = progress;
  const fetchAndStore = async (id: number) => {
    const detail = await fetchDetail(deps.hotelApi, id, input.language);
    if (detail === undefined) {
      missing.add(id);
    } else {
      counts = await storeDetail(catalogue, detail, input, counts);
      done = mergeRanges(done, [[id, id]]);
    }
    latest = { ...progress, done, missing: [...missing], counts };
    // The SDK throttles what reaches the server; the latest details win.
    ctx.heartbeat(latest);
  };
  await keepBeating(
    HEARTBEAT_INTERVAL_MS,
    () => latest,
    () => forEachDetail(todo, limitsOf(input, ctx.cancellationSignal), fetchAndStore),
  );
  return {
    page: input.page,
    total: progress.total,
    ids: done,
    missing: missing.size,
    listed: progress.listed.length,
    ...counts,
  };
}

/**
 * The end of a full pass: every active row of the country and language the pass did not see is
 * marked inactive, once its detail confirms it: the list can shift under a paging client, so a
 * 200 keeps the row and refreshes it; only a 404 (or another country) deactivates it.
 */
async function finishContentSync(
  deps: ContentSyncActivityDeps,
  input: FinishContentSyncInput,
): Promise<FinishContentSyncResult> {
  const catalogue = store(deps);
  const ctx = Context.current();
  const { countryCode, language, syncId, seen } = input;
  const candidates = (await catalogue.activeIds(countryCode, language)).filter(
    (id) => !rangesHas(seen, id),
  );
  const alive: number[] = [];
  let counts = NO_CHANGES;
  const check = async (id: number) => {
    const detail = await fetchDetail(deps.hotelApi, id, language);
    if (detail !== undefined && (detail.country?.code ?? countryCode) === countryCode) {
      counts = await storeDetail(catalogue, detail, input, counts);
      alive.push(id);
    }
    ctx.heartbeat();
  };
  await keepBeating(
    HEARTBEAT_INTERVAL_MS,
    () => undefined,
    () => forEachDetail(candidates, limitsOf(input, ctx.cancellationSignal), check),
  );
  const confirmedActive = toRanges(alive);
  const keep = rangeIds(mergeRanges(seen, confirmedActive));
  const deactivated = await catalogue.markInactiveExcept(countryCode, language, keep, syncId);
  return { deactivated, confirmedActive, ...counts };
}

export function createContentSyncActivities(deps: ContentSyncActivityDeps) {
  return {
    syncReferenceLists: (input: { language: ContentLanguage }) =>
      cancellable(() => syncReferenceLists(deps, input)),
    syncContentPage: (input: SyncContentPageInput) =>
      cancellable(() => syncContentPage(deps, input)),
    finishContentSync: (input: FinishContentSyncInput) =>
      cancellable(() => finishContentSync(deps, input)),
  };
}

export type ContentSyncActivities = ReturnType<typeof createContentSyncActivities>;

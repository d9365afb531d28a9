/**
 * Functions the command-line tool calls for its `content` commands and to name properties in
 * availability answers. No argument parsing here: arguments arrive typed; invalid ones throw a
 * `RangeError` naming the argument.
 */
import { WorkflowIdConflictPolicy, type Client } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/common';
import type { syncContent } from '../workflows/content-sync/content-sync';
import type { CatalogueQuery, CatalogueStore, PropertySummary, StoredProperty } from './store';
import {
  CONTENT_SYNC_WORKFLOW,
  contentSyncWorkflowId,
  type ContentLanguage,
  contentSyncInput,
  type ContentPassOptions,
  type ContentSyncProgress,
  type ContentSyncResult,
} from './sync-contract';
import { contentSyncProgressQuery } from './sync-messages';
import { checkCountryLanguage, checkLanguage } from './validate';

export interface RunContentSyncOptions extends ContentPassOptions {
  readonly taskQueue: string;
}

/**
 * Runs one pass now and waits for its result. When a pass of this country and language started
 * this way is already running, waits for that one instead of starting a second.
 */
export async function runContentSync(
  client: Client,
  options: RunContentSyncOptions,
): Promise<ContentSyncResult> {
  const { countryCode, language, taskQueue } = options;
  checkCountryLanguage(countryCode, language);
  const handle = await client.workflow.start<typeof syncContent>(CONTENT_SYNC_WORKFLOW, {
    workflowId: contentSyncWorkflowId(countryCode, language, options.supplier),
    taskQueue,
    args: [contentSyncInput(options)],
    workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
  });
  // result() follows continue-as-new to the last run's result.
  return handle.result();
}

/**
 * The progress of the pass started by {@link runContentSync} (the latest run with the id
 * `content-sync-<CC>-<lang>`); `undefined` when there has been none.
 */
export async function contentSyncProgress(
  client: Client,
  options: Pick<ContentPassOptions, 'countryCode' | 'language' | 'supplier'>,
): Promise<ContentSyncProgress | undefined> {
  const { countryCode, language, supplier } = options;
  checkCountryLanguage(countryCode, language);
  const handle = client.workflow.getHandle(contentSyncWorkflowId(countryCode, language, supplier));
  try {
    return await handle.query(contentSyncProgressQuery);
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return undefined;
    throw err;
  }
}

/** Properties of the catalogue matching every filter given (checked first), best rated first. */
export async function searchCatalogue(
  store: CatalogueStore,
  options: CatalogueQuery,
): Promise<PropertySummary[]> {
  const language = options.language ?? 'en';
  checkLanguage(language);
  if (options.country !== undefined && !/^[A-Za-z]{2}$/.test(options.country)) {
    throw new RangeError('country: must be 2 letters (ISO 3166-1 alpha-2)');
  }
  if (options.minStars !== undefined && !Number.isFinite(options.minStars)) {
    throw new RangeError('minStars: must be a number');
  }
  return store.search({ ...options, language });
}

/** One property with its full detail in a language, active or not; `undefined` when unknown. */
export async function showProperty(
  store: CatalogueStore,
  id: number,
  language: ContentLanguage = 'en',
): Promise<StoredProperty | undefined> {
  if (!Number.isSafeInteger(id) || id < 1) throw new RangeError('id: must be a positive integer');
  checkLanguage(language);
  return store.getProperty(id, language);
}

/**
 * Name and stars by property id, for labelling availability results (which carry ids only).
 * Ids the catalogue does not know are absent from the map.
 */
export async function propertyNames(
  store: CatalogueStore,
  ids: readonly number[],
  language: ContentLanguage = 'en',
): Promise<Map<number, { readonly name: string; readonly stars: number | null }>> {
  checkLanguage(language);
  if (ids.length === 0) return new Map();
  return store.names(ids, language);
}

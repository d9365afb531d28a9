/**
 * `syncContent`, id `content-sync-<CC>-<lang>` (or the schedule's id plus a timestamp): one full
 * pass over a country's content in one language. Reference lists, then the list page by page
 * (each page activity stores the page's details), then the end of the pass, which marks inactive
 * what the pass did not see.
 *
 * The workflow state is the checkpoint: a page counts once its activity completed, so a crashed
 * worker costs at most the page in flight (and that activity resumes from its own heartbeat).
 * The run continues as new every `pagesPerRun` pages, carrying the state, so history stays small
 * for countries of any size.
 */
import {
  ApplicationFailure,
  continueAsNew,
  proxyActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { ContentSyncActivities } from '../../activities/content-sync';
import { mergeRanges, rangesSize } from '../../catalogue/id-ranges';
import {
  CONTENT_LANGUAGES,
  DEFAULT_PAGES_PER_RUN,
  contentPageCount,
  addCounts,
  NO_CHANGES,
  type ContentSyncInput,
  type ContentSyncProgress,
  type ContentSyncResult,
  type ContentSyncState,
  type DetailFetchLimits,
} from '../../catalogue/sync-contract';
import { contentSyncProgressQuery } from '../../catalogue/sync-messages';
import { CONTENT_SYNC_ACTIVITY, PRIORITY, READ_ACTIVITY } from '../activity-options';

const { syncContentPage, finishContentSync } =
  proxyActivities<ContentSyncActivities>(CONTENT_SYNC_ACTIVITY);
const { syncReferenceLists } = proxyActivities<ContentSyncActivities>({
  ...READ_ACTIVITY,
  priority: PRIORITY.background,
});

/** Bad input fails the workflow at once: retrying a workflow task would not fix it. */
function validate(input: ContentSyncInput): void {
  const problems: string[] = [];
  if (typeof input?.countryCode !== 'string' || !/^[A-Z]{2}$/.test(input.countryCode)) {
    problems.push('countryCode: must be 2 upper-case letters (ISO 3166-1 alpha-2)');
  }
  if (!(CONTENT_LANGUAGES as readonly unknown[]).includes(input?.language)) {
    problems.push(`language: must be one of ${CONTENT_LANGUAGES.join(', ')}`);
  }
  const positive = (name: keyof ContentSyncInput, min: number) => {
    const v = input?.[name];
    if (v !== undefined && (typeof v !== 'number' || !Number.isFinite(v) || v < min)) {
      problems.push(`${name}: must be a number >= ${min}`);
    }
  };
  positive('pagesPerRun', 1);
  positive('detailConcurrency', 1);
  positive('detailsPerSecond', 0);
  if (problems.length > 0) {
    throw ApplicationFailure.create({
      type: 'INVALID_INPUT',
      message: `Invalid content sync input: ${problems.join('; ')}`,
      nonRetryable: true,
    });
  }
}

export async function syncContent(input: ContentSyncInput): Promise<ContentSyncResult> {
  validate(input);
  const { countryCode, language } = input;
  const limits: DetailFetchLimits = {
    ...(input.detailConcurrency !== undefined
      ? { detailConcurrency: input.detailConcurrency }
      : {}),
    ...(input.detailsPerSecond !== undefined ? { detailsPerSecond: input.detailsPerSecond } : {}),
  };
  const pagesPerRun = Math.floor(input.pagesPerRun ?? DEFAULT_PAGES_PER_RUN);

  let state: ContentSyncState = input.state ?? {
    // Stable across continue-as-new; every pass (every scheduled run) gets its own.
    syncId: workflowInfo().firstExecutionRunId,
    startedAtMs: Date.now(),
    nextPage: 1,
    pages: undefined,
    seen: [],
    counts: NO_CHANGES,
    missing: 0,
    referenceListsDone: false,
    run: 1,
  };
  let phase: ContentSyncProgress['phase'] = state.referenceListsDone ? 'PAGES' : 'REFERENCE_LISTS';
  setHandler(contentSyncProgressQuery, () => ({
    countryCode,
    language,
    phase,
    nextPage: state.nextPage,
    pages: state.pages,
    properties: rangesSize(state.seen),
    counts: state.counts,
    run: state.run,
  }));

  if (!state.referenceListsDone) {
    await syncReferenceLists({ language });
    state = { ...state, referenceListsDone: true };
    phase = 'PAGES';
  }

  let pagesThisRun = 0;
  while (state.pages === undefined || state.nextPage <= state.pages) {
    if (
      pagesThisRun > 0 &&
      (pagesThisRun >= pagesPerRun || workflowInfo().continueAsNewSuggested)
    ) {
      await continueAsNew<typeof syncContent>({
        ...input,
        state: { ...state, run: state.run + 1 },
      });
    }
    const page = await syncContentPage({
      countryCode,
      language,
      page: state.nextPage,
      syncId: state.syncId,
      ...limits,
    });
    pagesThisRun += 1;
    state = {
      ...state,
      nextPage: state.nextPage + 1,
      // The latest total wins: the list may grow or shrink while we page through it.
      pages: contentPageCount(page.total),
      seen: mergeRanges(state.seen, page.ids),
      counts: addCounts(state.counts, page),
      missing: state.missing + page.missing,
    };
    // An empty page means the list ended before its total said; later pages are empty too.
    if (page.listed === 0) break;
  }

  phase = 'DEACTIVATING';
  const end = await finishContentSync({
    countryCode,
    language,
    syncId: state.syncId,
    seen: state.seen,
    ...limits,
  });
  state = {
    ...state,
    seen: mergeRanges(state.seen, end.confirmedActive),
    counts: addCounts(state.counts, end),
  };
  phase = 'DONE';
  return {
    countryCode,
    language,
    pages: state.pages ?? 0,
    properties: rangesSize(state.seen),
    ...state.counts,
    deactivated: end.deactivated,
    durationMs: Date.now() - state.startedAtMs,
    syncId: state.syncId,
    runs: state.run,
  };
}

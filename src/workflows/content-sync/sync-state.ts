/** The content sync pass's state and its steps, pure (test/content/sync-state.test.ts). */
import { mergeRanges, rangesSize } from '../../catalogue/id-ranges';
import { defined } from '../../shared/defined';
import {
  DEFAULT_PAGES_PER_RUN,
  NO_CHANGES,
  addCounts,
  contentPageCount,
  type ContentSyncInput,
  type ContentSyncProgress,
  type ContentSyncResult,
  type ContentSyncState,
  type DetailFetchLimits,
  type FinishContentSyncResult,
  type SyncContentPageResult,
} from '../../catalogue/sync-contract';

/** A pass's first state: `syncId` stable across continue-as-new, every pass its own. */
export function firstSyncState(syncId: string, startedAtMs: number): ContentSyncState {
  return {
    syncId,
    startedAtMs,
    nextPage: 1,
    pages: undefined,
    seen: [],
    counts: NO_CHANGES,
    missing: 0,
    referenceListsDone: false,
    run: 1,
  };
}

/** The detail fetch limits the input sets (the activities' defaults for those it leaves out). */
export function detailLimits(input: ContentSyncInput): DetailFetchLimits {
  return defined({
    detailConcurrency: input.detailConcurrency,
    detailsPerSecond: input.detailsPerSecond,
  });
}

export function pagesPerRun(input: ContentSyncInput): number {
  return Math.floor(input.pagesPerRun ?? DEFAULT_PAGES_PER_RUN);
}

/** Whether the list has pages left: all of them before page 1 told its total. */
export function morePages(state: ContentSyncState): boolean {
  return state.pages === undefined || state.nextPage <= state.pages;
}

/** The state once a page's activity completed; the list's total may change as the pass pages. */
export function afterPage(state: ContentSyncState, page: SyncContentPageResult): ContentSyncState {
  return {
    ...state,
    nextPage: state.nextPage + 1,
    pages: contentPageCount(page.total),
    seen: mergeRanges(state.seen, page.ids),
    counts: addCounts(state.counts, page),
    missing: state.missing + page.missing,
  };
}

/** The state once the pass's end ran: the rows it confirmed active count as seen. */
export function afterFinish(
  state: ContentSyncState,
  end: FinishContentSyncResult,
): ContentSyncState {
  return {
    ...state,
    seen: mergeRanges(state.seen, end.confirmedActive),
    counts: addCounts(state.counts, end),
  };
}

export function syncProgress(
  input: ContentSyncInput,
  phase: ContentSyncProgress['phase'],
  state: ContentSyncState,
): ContentSyncProgress {
  return {
    countryCode: input.countryCode,
    language: input.language,
    phase,
    nextPage: state.nextPage,
    pages: state.pages,
    properties: rangesSize(state.seen),
    counts: state.counts,
    run: state.run,
  };
}

/** The pass's result, from its final state, at workflow time `nowMs`. */
export function syncResult(
  input: ContentSyncInput,
  state: ContentSyncState,
  deactivated: number,
  nowMs: number,
): ContentSyncResult {
  return {
    countryCode: input.countryCode,
    language: input.language,
    pages: state.pages ?? 0,
    properties: rangesSize(state.seen),
    ...state.counts,
    deactivated,
    durationMs: nowMs - state.startedAtMs,
    syncId: state.syncId,
    runs: state.run,
  };
}

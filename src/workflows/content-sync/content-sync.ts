/**
 * `syncContent`, id `content-sync-<CC>-<lang>`: one full pass over a country's content in one
 * language. The state is the checkpoint (a crash costs at most the page in flight), carried by
 * continue-as-new every `pagesPerRun` pages (or sooner when Temporal suggests it).
 */
import {
  ApplicationFailure,
  continueAsNew,
  proxyActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { ContentSyncActivities } from '../../activities/content-sync';
import {
  CONTENT_LANGUAGES,
  type ContentSyncInput,
  type ContentSyncProgress,
  type ContentSyncResult,
  type ContentSyncState,
} from '../../catalogue/sync-contract';
import { contentSyncProgressQuery } from '../../catalogue/sync-messages';
import { CONTENT_SYNC_ACTIVITY, PRIORITY, READ_ACTIVITY, onAccount } from '../activity-options';
import { SUPPLIER_ACCOUNT_ID } from '../../shared/supplier-accounts';
import {
  afterFinish,
  afterPage,
  detailLimits,
  firstSyncState,
  morePages,
  pagesPerRun,
  syncProgress,
  syncResult,
} from './sync-state';

/** The pass's activities, on its account's queue; a proxy's functions are taken by name, never spread. */
function activities(supplier: string | undefined) {
  const { syncContentPage, finishContentSync } = proxyActivities<ContentSyncActivities>(
    onAccount(CONTENT_SYNC_ACTIVITY, supplier),
  );
  const { syncReferenceLists } = proxyActivities<ContentSyncActivities>(
    onAccount({ ...READ_ACTIVITY, priority: PRIORITY.background }, supplier),
  );
  return { syncContentPage, finishContentSync, syncReferenceLists };
}

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
  if (input?.supplier !== undefined && !SUPPLIER_ACCOUNT_ID.test(String(input.supplier))) {
    problems.push('supplier: an account id (a-z, 0-9 and -, a letter first, at most 32)');
  }
  positive('pagesPerRun', 1);
  positive('detailConcurrency', 1);
  positive('detailsPerSecond', 0);
  if (problems.length > 0) {
    const why = `Invalid content sync input: ${problems.join('; ')}`;
    throw ApplicationFailure.nonRetryable(why, 'INVALID_INPUT');
  }
}

/** The pass as it runs: its checkpoint and the phase the progress query reports. */
interface Pass {
  readonly input: ContentSyncInput;
  state: ContentSyncState;
  phase: ContentSyncProgress['phase'];
}

export async function syncContent(input: ContentSyncInput): Promise<ContentSyncResult> {
  validate(input);
  const state = input.state ?? firstSyncState(workflowInfo().firstExecutionRunId, Date.now());
  const pass: Pass = {
    input,
    state,
    phase: state.referenceListsDone ? 'PAGES' : 'REFERENCE_LISTS',
  };
  setHandler(contentSyncProgressQuery, () => syncProgress(input, pass.phase, pass.state));
  if (!pass.state.referenceListsDone) await referenceLists(pass);
  pass.phase = 'PAGES';
  await pages(pass);
  pass.phase = 'DEACTIVATING';
  const deactivated = await finish(pass);
  pass.phase = 'DONE';
  return syncResult(input, pass.state, deactivated, Date.now());
}

async function referenceLists(pass: Pass): Promise<void> {
  await activities(pass.input.supplier).syncReferenceLists({ language: pass.input.language });
  pass.state = { ...pass.state, referenceListsDone: true };
}

/** The list page by page, each page counted once its activity completed. */
async function pages(pass: Pass): Promise<void> {
  const { input } = pass;
  let pagesThisRun = 0;
  while (morePages(pass.state)) {
    if (
      pagesThisRun > 0 &&
      (pagesThisRun >= pagesPerRun(input) || workflowInfo().continueAsNewSuggested)
    ) {
      await continueAsNew<typeof syncContent>({
        ...input,
        state: { ...pass.state, run: pass.state.run + 1 },
      });
    }
    const page = await activities(input.supplier).syncContentPage({
      countryCode: input.countryCode,
      language: input.language,
      page: pass.state.nextPage,
      syncId: pass.state.syncId,
      ...detailLimits(input),
    });
    pagesThisRun += 1;
    pass.state = afterPage(pass.state, page);
    // An empty page means the list ended before its total said; later pages are empty too.
    if (page.listed === 0) break;
  }
}

/** The pass's end: what it did not see is marked inactive. Answers how many rows that was. */
async function finish(pass: Pass): Promise<number> {
  const { input } = pass;
  const end = await activities(input.supplier).finishContentSync({
    countryCode: input.countryCode,
    language: input.language,
    syncId: pass.state.syncId,
    seen: pass.state.seen,
    ...detailLimits(input),
  });
  pass.state = afterFinish(pass.state, end);
  return end.deactivated;
}

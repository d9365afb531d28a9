/** The query of `syncContent`, defined once for the workflow and its callers. */
import { defineQuery } from '@temporalio/workflow';
import type { ContentSyncProgress } from './sync-contract';

/** Where a sync is: phase, next page, pages, properties stored and counts so far. */
export const contentSyncProgressQuery = defineQuery<ContentSyncProgress>('contentSyncProgress');

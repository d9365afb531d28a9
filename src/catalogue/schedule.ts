/**
 * The Temporal Schedule that runs `syncContent` for one country and language, created or updated
 * by {@link ensureContentSchedule}: idempotent, deployments call it on every start.
 */
import {
  ScheduleAlreadyRunning,
  ScheduleOverlapPolicy,
  type Client,
  type ScheduleOptionsStartWorkflowAction,
  type ScheduleSpec,
} from '@temporalio/client';
import type { Duration } from '@temporalio/common';
import { DEFAULT_TASK_QUEUE } from '../config/defaults';
import type { syncContent } from '../workflows/content-sync/content-sync';
import {
  CONTENT_SYNC_WORKFLOW,
  contentSyncWorkflowId,
  contentSyncInput,
  type ContentPassOptions,
} from './sync-contract';
import { checkCountryLanguage } from './validate';

export interface ContentScheduleOptions extends ContentPassOptions {
  /** How often a pass starts, e.g. `'6h'` (ms-formatted string or ms). */
  readonly interval: Duration;
  /** @default DEFAULT_TASK_QUEUE ('hotel-booking') */
  readonly taskQueue?: string;
}

export interface EnsuredSchedule {
  readonly scheduleId: string;
  /** `true` when this call created it, `false` when it updated an existing one. */
  readonly created: boolean;
}

/**
 * Creates the schedule `content-sync-<CC>-<lang>`, or brings an existing one to these options
 * (spec, action, policies; its paused state and history are kept).
 *
 * A pass still running when the next is due is not doubled (overlap SKIP): the next interval
 * picks up. A pass missed while the server was down runs when it is back, within one interval.
 */
export async function ensureContentSchedule(
  client: Client,
  options: ContentScheduleOptions,
): Promise<EnsuredSchedule> {
  const { countryCode, language, interval } = options;
  checkCountryLanguage(countryCode, language);
  const scheduleId = contentSyncWorkflowId(countryCode, language, options.supplier);
  const spec: ScheduleSpec = { intervals: [{ every: interval }] };
  const action: ScheduleOptionsStartWorkflowAction<typeof syncContent> = {
    type: 'startWorkflow',
    workflowType: CONTENT_SYNC_WORKFLOW,
    // The schedule appends the scheduled time, so each pass has its own id.
    workflowId: scheduleId,
    taskQueue: options.taskQueue ?? DEFAULT_TASK_QUEUE,
    args: [contentSyncInput(options)],
  };
  const policies = { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: interval };
  try {
    await client.schedule.create({ scheduleId, spec, action, policies });
    return { scheduleId, created: true };
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
  }
  const schedule = client.schedule.getHandle(scheduleId);
  await schedule.update((previous) => ({ ...previous, spec, action, policies }));
  return { scheduleId, created: false };
}

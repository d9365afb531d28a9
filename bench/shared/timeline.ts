/**
 * Where the time of one workflow run goes, read from its history: the server stamps every event,
 * and the bench (on the same machine, same clock) stamps the start call and the result. Each
 * interval between consecutive moments is charged to one step, so the steps of a run add up to
 * its end-to-end time.
 */
import type { temporal } from '@temporalio/proto';
import { temporal as proto } from '@temporalio/proto';
import { round } from './stats';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

const ET = proto.api.enums.v1.EventType;

/** The steps of a run, in the order they happen. */
export const STEPS = [
  /** Start call until the server recorded the workflow as started. */
  'startCall',
  /** A workflow task waiting for the worker (scheduled → started). */
  'workflowTaskDispatch',
  /** The worker running workflow code, and the server recording its commands (started → completed). */
  'workflowTaskExecution',
  /** An activity task waiting for the worker (scheduled → started; 0 when dispatched eagerly). */
  'activityDispatch',
  /** An activity running, the supplier call included (started → completed). */
  'activityExecution',
  /** Between an activity's completion and the next workflow task, and other gaps. */
  'other',
  /** The server recording the result until the client has it. */
  'resultDelivery',
] as const;
export type Step = (typeof STEPS)[number];

function eventMs(e: HistoryEvent): number {
  const t = e.eventTime;
  return Number(t?.seconds ?? 0) * 1000 + Math.round((t?.nanos ?? 0) / 1e6);
}

/** The step that the interval ending at `e` (after `prev`) belongs to. */
function stepOf(prev: HistoryEvent | undefined, e: HistoryEvent): Step {
  switch (e.eventType) {
    case ET.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED:
      return 'startCall';
    case ET.EVENT_TYPE_WORKFLOW_TASK_STARTED:
      return 'workflowTaskDispatch';
    case ET.EVENT_TYPE_WORKFLOW_TASK_COMPLETED:
      return 'workflowTaskExecution';
    case ET.EVENT_TYPE_ACTIVITY_TASK_STARTED:
      return 'activityDispatch';
    case ET.EVENT_TYPE_ACTIVITY_TASK_COMPLETED:
      return prev?.eventType === ET.EVENT_TYPE_ACTIVITY_TASK_STARTED
        ? 'activityExecution'
        : 'other';
    default:
      return 'other';
  }
}

/**
 * Milliseconds by step for one run: `startedAt` is when the start call was made and `resultAt`
 * when the result (or the `outcome` update's answer) arrived (epoch ms, `Date.now()`).
 */
export function runSteps(
  events: readonly HistoryEvent[],
  startedAt: number,
  resultAt: number,
): Record<Step, number> {
  const out = Object.fromEntries(STEPS.map((s) => [s, 0])) as Record<Step, number>;
  let prevMs = startedAt;
  let prev: HistoryEvent | undefined;
  for (const e of events) {
    const ms = eventMs(e);
    out[stepOf(prev, e)] += Math.max(0, ms - prevMs);
    prevMs = ms;
    prev = e;
    // A booking (bookRoom) answers its caller with its `outcome` update and goes on as the guard:
    // what follows is not the caller's time.
    if (e.eventType === ET.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_COMPLETED) break;
  }
  out.resultDelivery += Math.max(0, resultAt - prevMs);
  return out;
}

/** The mean of each step over runs, so the steps add up to the mean end-to-end time. */
export function meanSteps(runs: readonly Record<Step, number>[]): Record<Step, number> {
  return Object.fromEntries(
    STEPS.map((s) => [s, round(runs.reduce((sum, r) => sum + r[s], 0) / runs.length, 1)]),
  ) as Record<Step, number>;
}

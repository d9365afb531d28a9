/**
 * What a replay saw, turned into a booking's steps (pure: the observations in, the steps out).
 * bench/promises/count.ts replays a recorded history and notes, in order, every entry into the
 * workflow sandbox (with the activation's jobs when it is one), the commands each activation left
 * and every promise created in workflow code (with the source line that created it). Here each
 * promise and entry is attributed to the activation it happened in (segments.ts), each activation
 * is named by the events that led to it ("start, update outcome", "activity completed:
 * createBooking") and by what it left, and the booking's window is cut: through the guard's first
 * wait (window.ts).
 */
import type { Observed, ObservedCommand, ObservedJob, Step } from './observed';
import { segmentsOf } from './segments';

export type {
  BookingWindow,
  Observed,
  ObservedCommand,
  ObservedJob,
  PromiseCount,
  Step,
} from './observed';
export { bookingWindow, promiseCountFigures } from './window';

const RESULT_WORDS: Readonly<Record<string, string>> = {
  completed: 'completed',
  failed: 'failed',
  cancelled: 'cancelled',
  backoff: 'backed off',
};

/** What the replay has named so far: activities by sequence number, updates by protocol id. */
interface Names {
  readonly activities: Map<number, { type: string; local: boolean }>;
  readonly updates: Map<string, string>;
}

/** The event a job of an activation stands for, in words. */
function jobWords(j: ObservedJob, names: Names): string {
  switch (j.variant) {
    case 'initializeWorkflow':
      return 'start';
    case 'doUpdate':
      if (j.protocolInstanceId !== undefined)
        names.updates.set(j.protocolInstanceId, j.name ?? '?');
      return `update ${j.name ?? '?'}`;
    case 'signalWorkflow':
      return `signal ${j.name ?? '?'}`;
    case 'resolveActivity': {
      const a = j.seq !== undefined ? names.activities.get(j.seq) : undefined;
      const what = a?.local ? 'local activity' : 'activity';
      return `${what} ${RESULT_WORDS[j.result ?? ''] ?? j.result ?? 'resolved'}: ${a?.type ?? `#${String(j.seq)}`}`;
    }
    case 'fireTimer':
      return 'timer fired';
    case 'cancelWorkflow':
      return 'cancellation requested';
    default:
      return j.variant;
  }
}

/** What an activation's commands left. */
interface Left {
  readonly then: string[];
  scheduled: number;
  endsWorkflow: boolean;
  readonly updatesCompleted: string[];
}

/** Notes one command in `left`, in words. */
function noteCommand(c: ObservedCommand, names: Names, left: Left): void {
  switch (c.variant) {
    case 'scheduleActivity':
    case 'scheduleLocalActivity': {
      const local = c.variant === 'scheduleLocalActivity';
      if (c.seq !== undefined) names.activities.set(c.seq, { type: c.activityType ?? '?', local });
      left.scheduled++;
      left.then.push(`${local ? 'local activity' : 'activity'} ${c.activityType ?? '?'}`);
      return;
    }
    case 'updateResponse': {
      const name = names.updates.get(c.protocolInstanceId ?? '') ?? '?';
      if (c.response === 'completed') left.updatesCompleted.push(name);
      left.then.push(`update ${name} ${c.response ?? 'answered'}`);
      return;
    }
    case 'completeWorkflowExecution':
    case 'failWorkflowExecution':
    case 'continueAsNewWorkflowExecution':
    case 'cancelWorkflowExecution':
      left.endsWorkflow = true;
      left.then.push(c.variant.replace(/WorkflowExecution$/, ''));
      return;
    default:
      left.then.push(COMMAND_WORDS[c.variant] ?? c.variant);
  }
}

const COMMAND_WORDS: Readonly<Record<string, string>> = {
  startTimer: 'timer',
  cancelTimer: 'timer cancelled',
  upsertWorkflowSearchAttributes: 'search attributes',
  setPatchMarker: 'patch marker',
};

/**
 * The steps of a replay, named by the events that led to each activation and by what it left:
 * activities are named by the type their `schedule…` command gave the same sequence number, updates
 * by the name their `doUpdate` job carried.
 */
export function stepsOf(observed: readonly Observed[]): Step[] {
  const names: Names = { activities: new Map(), updates: new Map() };
  const taskOfLength = new Map<number, number>();
  return segmentsOf(observed).map((s) => {
    const after = s.jobs.map((j) => jobWords(j, names));
    const left: Left = { then: [], scheduled: 0, endsWorkflow: false, updatesCompleted: [] };
    for (const c of s.commands) noteCommand(c, names, left);
    let workflowTask: number | undefined;
    if (s.activation !== undefined && s.historyLength !== undefined) {
      workflowTask = taskOfLength.get(s.historyLength) ?? taskOfLength.size + 1;
      taskOfLength.set(s.historyLength, workflowTask);
    }
    return {
      activation: s.activation,
      workflowTask,
      after: s.activation === undefined ? 'eviction' : after.join(', ') || '(no job)',
      then: left.then.join(', ') || 'nothing',
      promises: s.promises,
      entries: s.entries,
      scheduled: left.scheduled,
      updatesCompleted: left.updatesCompleted,
      endsWorkflow: left.endsWorkflow,
      sites: Object.fromEntries([...s.sites].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))),
    };
  });
}

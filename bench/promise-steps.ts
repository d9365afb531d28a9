/**
 * What a replay saw, turned into a booking's steps (pure: the observations in, the steps out).
 * bench/promise-count.ts replays a recorded history and notes, in order, every entry into the
 * workflow sandbox (with the activation's jobs when it is one), the commands each activation left
 * and every promise created in workflow code (with the source line that created it). Here each
 * promise and entry is attributed to the activation it happened in, each activation is named by the
 * events that led to it ("start, update outcome", "activity completed: createBooking") and by what
 * it left, and the booking's window is cut: through the guard's first wait.
 */

/** A job of an activation, as the sandbox received it. */
export interface ObservedJob {
  /** `initializeWorkflow`, `doUpdate`, `resolveActivity`, `fireTimer`, `signalWorkflow`, … */
  readonly variant: string;
  /** The activity's or timer's sequence number (`resolveActivity`, `fireTimer`). */
  readonly seq?: number;
  /** The update's or signal's name. */
  readonly name?: string;
  /** The update's protocol instance (its responses name it). */
  readonly protocolInstanceId?: string;
  /** How an activity ended: `completed`, `failed`, `cancelled` or `backoff` (local). */
  readonly result?: string;
}

/** A command an activation left, as the sandbox returned it. */
export interface ObservedCommand {
  /** `scheduleActivity`, `scheduleLocalActivity`, `startTimer`, `updateResponse`, … */
  readonly variant: string;
  readonly seq?: number;
  readonly activityType?: string;
  readonly protocolInstanceId?: string;
  /** An update response's kind: `accepted`, `completed` or `rejected`. */
  readonly response?: string;
}

/** One observation of a replay, in the order it happened. */
export type Observed =
  | {
      readonly kind: 'entry';
      /** The sandbox function entered: `initRuntime`, `activate`, `concludeActivation`, … */
      readonly call: string;
      /** An `activate` entry's activation. */
      readonly activation?: {
        readonly historyLength: number;
        readonly jobs: readonly ObservedJob[];
      };
    }
  | { readonly kind: 'commands'; readonly commands: readonly ObservedCommand[] }
  /** A promise created in workflow code; `site`: the workflow source line that created it. */
  | { readonly kind: 'promise'; readonly site?: string };

/** One activation of the replay (or the eviction that ended it) and what it cost. */
export interface Step {
  /** 1-based; undefined for the eviction after the replay's last activation. */
  readonly activation: number | undefined;
  /** 1-based workflow task the activation ran in (activations of one task share its history length). */
  readonly workflowTask: number | undefined;
  /** The events that led to it: `start, update outcome`, `activity completed: createBooking`. */
  readonly after: string;
  /** What it left: `activity createBooking, search attributes`, `timer`, … */
  readonly then: string;
  /** Promises created in workflow code. */
  readonly promises: number;
  /** Entries into the sandbox (each one a vm call with its timeout's watchdog). */
  readonly entries: number;
  /** Activities (and local activities) it scheduled. */
  readonly scheduled: number;
  /** Names of the updates it completed. */
  readonly updatesCompleted: readonly string[];
  /** It completed, failed or continued the workflow. */
  readonly endsWorkflow: boolean;
  /** Promises by the workflow source line that created them (`file:line function`), most first. */
  readonly sites: Readonly<Record<string, number>>;
}

/** The steps of a confirmed booking, through its guard's first wait. */
export interface BookingWindow {
  /** The window's last activation. */
  readonly throughActivation: number;
  /** False when the replay ended before the guard waited (then the window is every activation). */
  readonly reachedFirstWait: boolean;
  readonly promises: number;
  readonly activations: number;
  readonly workflowTasks: number;
  readonly entries: number;
}

/** A replay's count: its steps and its booking's window. */
export interface PromiseCount {
  /** The history replayed (under test/histories/). */
  readonly history: string;
  /** Every activation of the replay, and the eviction that ended it. */
  readonly steps: readonly Step[];
  /** The confirmed booking: its activations through the guard's first wait. */
  readonly window: BookingWindow;
}

interface Segment {
  activation: number | undefined;
  historyLength: number | undefined;
  jobs: ObservedJob[];
  commands: ObservedCommand[];
  promises: number;
  entries: number;
  sites: Map<string, number>;
}

const newSegment = (activation: number | undefined): Segment => ({
  activation,
  historyLength: undefined,
  jobs: [],
  commands: [],
  promises: 0,
  entries: 0,
  sites: new Map(),
});

/**
 * Splits the observations into activations. An activation begins with the `activate` entry that
 * follows a `concludeActivation` (a second `activate` before it is the same activation's next batch
 * of jobs); what comes before the first one (creating the workflow: `initRuntime`, `initialize`) and
 * between a conclusion and the next activation belongs to the next one; `dispose` begins the
 * eviction.
 */
function segmentsOf(observed: readonly Observed[]): Segment[] {
  const segments: Segment[] = [];
  let pending = newSegment(undefined);
  let current: Segment | undefined;
  /** Between an activation's first `activate` and its `concludeActivation`, or in the eviction. */
  let inside = false;
  let activations = 0;
  for (const o of observed) {
    if (o.kind === 'commands') {
      // Noted as `concludeActivation` returns them: the activation just concluded.
      (current ?? pending).commands.push(...o.commands);
      continue;
    }
    if (
      o.kind === 'entry' &&
      o.call === 'activate' &&
      (!inside || current?.activation === undefined)
    ) {
      current = { ...pending, activation: ++activations };
      pending = newSegment(undefined);
      segments.push(current);
      inside = true;
    } else if (o.kind === 'entry' && o.call === 'dispose') {
      current = newSegment(undefined);
      segments.push(current);
      inside = true;
    }
    const s = inside && current ? current : pending;
    if (o.kind === 'entry') {
      s.entries++;
      if (o.activation) {
        s.historyLength ??= o.activation.historyLength;
        s.jobs.push(...o.activation.jobs);
      }
      if (o.call === 'concludeActivation') inside = false;
    } else {
      s.promises++;
      if (o.site !== undefined) s.sites.set(o.site, (s.sites.get(o.site) ?? 0) + 1);
    }
  }
  // What came after the last activation and no eviction took: the last activation's.
  const last = segments[segments.length - 1];
  if (last) {
    last.promises += pending.promises;
    last.entries += pending.entries;
    for (const [site, n] of pending.sites) last.sites.set(site, (last.sites.get(site) ?? 0) + n);
  }
  return segments;
}

const RESULT_WORDS: Readonly<Record<string, string>> = {
  completed: 'completed',
  failed: 'failed',
  cancelled: 'cancelled',
  backoff: 'backed off',
};

/**
 * The steps of a replay, named by the events that led to each activation and by what it left:
 * activities are named by the type their `schedule…` command gave the same sequence number, updates
 * by the name their `doUpdate` job carried.
 */
export function stepsOf(observed: readonly Observed[]): Step[] {
  const activities = new Map<number, { type: string; local: boolean }>();
  const updates = new Map<string, string>();
  const taskOfLength = new Map<number, number>();
  return segmentsOf(observed).map((s) => {
    const after = s.jobs.map((j) => {
      switch (j.variant) {
        case 'initializeWorkflow':
          return 'start';
        case 'doUpdate':
          if (j.protocolInstanceId !== undefined) updates.set(j.protocolInstanceId, j.name ?? '?');
          return `update ${j.name ?? '?'}`;
        case 'signalWorkflow':
          return `signal ${j.name ?? '?'}`;
        case 'resolveActivity': {
          const a = j.seq !== undefined ? activities.get(j.seq) : undefined;
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
    });
    const then: string[] = [];
    let scheduled = 0;
    let endsWorkflow = false;
    const updatesCompleted: string[] = [];
    for (const c of s.commands) {
      switch (c.variant) {
        case 'scheduleActivity':
        case 'scheduleLocalActivity': {
          const local = c.variant === 'scheduleLocalActivity';
          if (c.seq !== undefined) activities.set(c.seq, { type: c.activityType ?? '?', local });
          scheduled++;
          then.push(`${local ? 'local activity' : 'activity'} ${c.activityType ?? '?'}`);
          break;
        }
        case 'startTimer':
          then.push('timer');
          break;
        case 'cancelTimer':
          then.push('timer cancelled');
          break;
        case 'updateResponse': {
          const name = updates.get(c.protocolInstanceId ?? '') ?? '?';
          if (c.response === 'completed') updatesCompleted.push(name);
          then.push(`update ${name} ${c.response ?? 'answered'}`);
          break;
        }
        case 'upsertWorkflowSearchAttributes':
          then.push('search attributes');
          break;
        case 'setPatchMarker':
          then.push('patch marker');
          break;
        case 'completeWorkflowExecution':
        case 'failWorkflowExecution':
        case 'continueAsNewWorkflowExecution':
        case 'cancelWorkflowExecution':
          endsWorkflow = true;
          then.push(c.variant.replace(/WorkflowExecution$/, ''));
          break;
        default:
          then.push(c.variant);
      }
    }
    let workflowTask: number | undefined;
    if (s.activation !== undefined && s.historyLength !== undefined) {
      workflowTask = taskOfLength.get(s.historyLength) ?? taskOfLength.size + 1;
      taskOfLength.set(s.historyLength, workflowTask);
    }
    return {
      activation: s.activation,
      workflowTask,
      after: s.activation === undefined ? 'eviction' : after.join(', ') || '(no job)',
      then: then.join(', ') || 'nothing',
      promises: s.promises,
      entries: s.entries,
      scheduled,
      updatesCompleted,
      endsWorkflow,
      sites: Object.fromEntries([...s.sites].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))),
    };
  });
}

/**
 * A confirmed booking's window: every activation through the guard's first wait, the first
 * activation from the one that completed the decision update (`decisionUpdate`, whose answer is
 * the booking's decision) on that schedules no activity and does not end the workflow (the guard
 * then waits for a timer or a message). Without one, every activation (`reachedFirstWait` false).
 */
export function bookingWindow(steps: readonly Step[], decisionUpdate: string): BookingWindow {
  const activations = steps.filter((s) => s.activation !== undefined);
  const decided = activations.findIndex((s) => s.updatesCompleted.includes(decisionUpdate));
  const waits =
    decided < 0
      ? -1
      : activations.findIndex((s, i) => i >= decided && s.scheduled === 0 && !s.endsWorkflow);
  const window = waits < 0 ? activations : activations.slice(0, waits + 1);
  const sum = (key: 'promises' | 'entries') => window.reduce((n, s) => n + s[key], 0);
  return {
    throughActivation: window[window.length - 1]?.activation ?? 0,
    reachedFirstWait: waits >= 0,
    promises: sum('promises'),
    activations: window.length,
    workflowTasks: new Set(window.map((s) => s.workflowTask)).size,
    entries: sum('entries'),
  };
}

/** Figures for the results' `reported` rows (no target yet), under the README's names. */
export function promiseCountFigures(r: PromiseCount | undefined): Record<string, number> {
  if (!r) return {};
  const w = r.window;
  const figures: Record<string, number> = {
    'Promises created in workflow code per confirmed booking (guard to its first wait)': w.promises,
    'Activations per confirmed booking (guard to its first wait)': w.activations,
    'Workflow tasks per confirmed booking (guard to its first wait)': w.workflowTasks,
    'Sandbox entries per confirmed booking (guard to its first wait)': w.entries,
  };
  for (const s of r.steps) {
    if (s.activation === undefined || s.activation > w.throughActivation) continue;
    figures[
      `Promises created in workflow code, confirmed booking's activation ${s.activation} (workflow task ${String(s.workflowTask)}): after ${s.after}`
    ] = s.promises;
  }
  return figures;
}

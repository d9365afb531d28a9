/**
 * What a replay saw and the steps it is turned into: the types of bench/promises/ (steps.ts turns
 * the observations into steps, window.ts cuts the booking's window).
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

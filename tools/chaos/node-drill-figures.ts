/**
 * The node drill's figures from what it recorded (pure): when bookings flowed again after each
 * disruption, and which workflow task timeouts a disruption explains.
 */

/** One round of probe queries: at `at`, `ok` of `total` running orders answered in time. */
export interface ProbeRound {
  readonly at: number;
  readonly ok: number;
  readonly total: number;
}

/** Rounds in a row that must all answer before the flow counts as back. */
export const FLOWING_ROUNDS = 3;

/**
 * From `since` until the first of {@link FLOWING_ROUNDS} consecutive rounds in which every probed
 * order answered, ms; undefined when that never happened before `until`.
 */
export function flowAgainMs(
  rounds: readonly ProbeRound[],
  since: number,
  until = Infinity,
): number | undefined {
  const after = rounds.filter((r) => r.at >= since && r.at < until && r.total > 0);
  for (let i = 0; i + FLOWING_ROUNDS <= after.length; i++) {
    if (after.slice(i, i + FLOWING_ROUNDS).every((r) => r.ok === r.total)) {
      return after[i]!.at - since;
    }
  }
  return undefined;
}

/** Probe answers that failed between `since` and `until` (the cost of a disruption, seen by callers). */
export function failedProbes(rounds: readonly ProbeRound[], since: number, until: number): number {
  return rounds
    .filter((r) => r.at >= since && r.at < until)
    .reduce((n, r) => n + (r.total - r.ok), 0);
}

export interface TaskTimeout {
  readonly orderId: string;
  /** When the server recorded the timeout (event time), ms since the epoch. */
  readonly at: number;
  /** `TIMEOUT_TYPE_START_TO_CLOSE`, `TIMEOUT_TYPE_SCHEDULE_TO_START`, … */
  readonly timeoutType: string;
}

export interface Disruption {
  readonly what: string;
  readonly at: number;
}

/** How long after a disruption a workflow task may still time out because of it. */
export const TASK_TIMEOUT_WINDOW_MS = 30_000;

/** Each timeout with the disruption that explains it (the latest one shortly before), or none. */
export function explainTaskTimeouts(
  timeouts: readonly TaskTimeout[],
  disruptions: readonly Disruption[],
): { timeout: TaskTimeout; cause: string | undefined }[] {
  return timeouts.map((timeout) => {
    const cause = disruptions
      .filter((d) => d.at <= timeout.at && timeout.at - d.at <= TASK_TIMEOUT_WINDOW_MS)
      .sort((a, b) => b.at - a.at)[0];
    return {
      timeout,
      cause: cause
        ? `${cause.what}, ${((timeout.at - cause.at) / 1000).toFixed(1)} s before`
        : undefined,
    };
  });
}

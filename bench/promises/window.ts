/** A confirmed booking's window of a replay's steps, and its figures for the results. Pure. */
import type { BookingWindow, PromiseCount, Step } from './observed';

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

/** Figures for the results' `reported` rows (no target yet), under the results log's names. */
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

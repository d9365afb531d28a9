/**
 * Search attribute writes of a workflow run: a write that changes nothing (the value the run
 * already has, e.g. the attributes the starter set) is dropped, and the writes of one step
 * (everything the workflow does until all of it waits) go out as one upsert: one history event per
 * step instead of one per write. Runs of earlier versions wrote each at once
 * (earlier-versions/each-write.ts): both are a {@link SearchAttributes}.
 */
import type { SearchAttributeUpdatePair } from '@temporalio/common';
import {
  CancellationScope,
  condition,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';

type Value = SearchAttributeUpdatePair['value'];

/** Whether two search attribute values are the same (dates by instant, lists element-wise). */
export function sameValue(a: Value | undefined, b: Value | undefined): boolean {
  if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime();
  if (Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && a.every((x, i) => x === b[i]);
  return a === b;
}

/** The updates that change a value, the last write of a key winning. Pure. */
export function changedOnly(
  updates: readonly SearchAttributeUpdatePair[],
  current: (u: SearchAttributeUpdatePair) => Value | undefined,
): SearchAttributeUpdatePair[] {
  const last = new Map<string, SearchAttributeUpdatePair>();
  for (const u of updates) last.set(u.key.name, u);
  return [...last.values()].filter((u) => !sameValue(current(u), u.value));
}

/** Where a run writes its search attributes. */
export interface SearchAttributes {
  write(updates: readonly SearchAttributeUpdatePair[]): void;
  /** Writes what is pending now (before the run completes or continues as new). */
  flush(): void;
}

export class SearchAttributeWriter implements SearchAttributes {
  private pending: SearchAttributeUpdatePair[] = [];
  private armed = false;

  write(updates: readonly SearchAttributeUpdatePair[]): void {
    if (!this.armed) this.flushWhenEachStepWaits();
    this.pending.push(...updates);
  }

  /**
   * Writes what the step changed, as one upsert (none when nothing changed). Called by itself
   * once the step waits; a workflow calls it before it completes or continues as new, whose
   * command must be the task's last.
   */
  flush(): void {
    if (this.pending.length === 0) return;
    const updates = changedOnly(this.pending, (u) =>
      workflowInfo().typedSearchAttributes.get(u.key as never),
    );
    this.pending = [];
    // An empty upsert is refused by the server (the workflow task fails and is retried).
    if (updates.length > 0) upsertSearchAttributes(updates);
  }

  /**
   * The SDK evaluates blocked conditions only once the workflow's microtasks have all run, i.e.
   * once every coroutine of the run waits for something, and again after whatever that unblocked
   * has run. One condition for the run's life, never true, flushes as it is evaluated: each step's
   * writes go out when the step waits, for 2 promises per run where a condition per step cost 3
   * per step (bench: `promises`). Armed outside any cancellable scope, so that a cancellation
   * from Temporal, which rejects the conditions of the scopes it cancels, cannot disarm it.
   */
  private flushWhenEachStepWaits(): void {
    this.armed = true;
    const arm = () => void condition(() => (this.flush(), false));
    if (CancellationScope.current().cancellable)
      void CancellationScope.nonCancellable(async () => arm());
    else arm();
  }
}

/**
 * A run's search attribute writes: one that changes nothing is dropped, and one step's writes go
 * out as one upsert (earlier versions wrote each at once: earlier-versions/each-write.ts).
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
   * The SDK evaluates blocked conditions once every coroutine waits: one never-true condition for
   * the run's life flushes as it is evaluated, when each step waits (2 promises per run). Armed
   * outside any cancellable scope, so a cancellation from Temporal cannot disarm it.
   */
  private flushWhenEachStepWaits(): void {
    this.armed = true;
    const arm = () => void condition(() => (this.flush(), false));
    if (CancellationScope.current().cancellable)
      void CancellationScope.nonCancellable(async () => arm());
    else arm();
  }
}

/**
 * The recorded histories the bench replays (test/histories/, the test suite's recordings, read as
 * data): the `promises` part's booking, and any other for bench/promises/count.ts and
 * bench/experiments/bundle-ab.ts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { temporal } from '@temporalio/proto';

/** The history the bench counts: a booking the booking call confirms, its guard until it waits. */
export const PROMISE_COUNT_HISTORY = 'one-order-one-workflow/instant-confirmed-guarded';

const HISTORIES_DIR = join(__dirname, '..', '..', 'test', 'histories');

/** A recorded history (fetchHistory() JSON) and the workflow id it ran under. */
export function loadHistory(name: string): {
  history: temporal.api.history.v1.IHistory;
  workflowId: string;
} {
  const history = temporal.api.history.v1.History.fromObject(
    JSON.parse(readFileSync(join(HISTORIES_DIR, `${name}.json`), 'utf8')),
  );
  // The booking checks that its workflow id is its order's (rule 1): replay under the recorded one.
  const started = history.events?.[0]?.workflowExecutionStartedEventAttributes;
  return { history, workflowId: started?.workflowId || name.replace(/\W+/g, '-') };
}

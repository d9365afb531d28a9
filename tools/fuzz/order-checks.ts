/**
 * The `orders` surface's readings: an answer within its deadline, a decision or a refusal as the
 * contract documents them, and the workflow tasks that failed in every run of a task queue.
 */
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';

const Cause = temporal.api.enums.v1.WorkflowTaskFailedCause;
/**
 * Workflow task failures the server records on its own, which do not loop: a task completed while
 * a new event arrived (run again at once), or one in flight when its run was terminated.
 */
const THE_SERVERS: ReadonlySet<number> = new Set([
  Cause.WORKFLOW_TASK_FAILED_CAUSE_UNHANDLED_COMMAND,
  Cause.WORKFLOW_TASK_FAILED_CAUSE_FORCE_CLOSE_COMMAND,
]);

export type Answer = { ok: true; value: unknown } | { ok: false; error: unknown };

/** The call's answer, or `'stuck'` when it has none within `ms` (it may settle later, unheard). */
export async function within(ms: number, call: Promise<unknown>): Promise<Answer | 'stuck'> {
  let timer: NodeJS.Timeout | undefined;
  const answer = call.then(
    (value): Answer => ({ ok: true, value }),
    (error: unknown): Answer => ({ ok: false, error }),
  );
  const late = new Promise<'stuck'>((resolve) => (timer = setTimeout(() => resolve('stuck'), ms)));
  try {
    return await Promise.race([answer, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** An error and its causes, in words. */
export function refusalOf(error: unknown): string {
  const words: string[] = [];
  for (let e = error, depth = 0; e instanceof Error && depth < 5; depth++) {
    words.push(e.message);
    e = e.cause;
  }
  return words.join(' <- ');
}

/** A refusal's first field: `(input)`, `workflow id`, or a path with quoted keys (`a["b c"].d`). */
const FIELD_FIRST = /^(\(input\)|workflow id|\w[\w.]*(\["(?:[^"\\]|\\.)*"\][\w.]*)*): /;

type Decision =
  { ok: true; outcome: string | undefined; value: unknown } | { ok: false; why: string };

/**
 * A booking's decision as the contract gives it (`outcome`, and for `FAILED` an `error` with its
 * `code` and a `message`; `INVALID_INPUT` naming a field as `field: problem`).
 */
export function decisionOf(answer: Answer): Decision {
  if (!answer.ok) return { ok: false, why: `refused: ${refusalOf(answer.error)}` };
  const v = answer.value as { outcome?: unknown; error?: { code?: unknown; message?: unknown } };
  if (typeof v?.outcome !== 'string') return { ok: false, why: 'no outcome in the answer' };
  if (v.outcome !== 'FAILED') return { ok: true, outcome: v.outcome, value: v };
  const { code, message } = v.error ?? {};
  if (typeof code !== 'string' || typeof message !== 'string' || message === '')
    return { ok: false, why: `FAILED without a code and a message: ${JSON.stringify(v.error)}` };
  if (code === 'INVALID_INPUT' && !FIELD_FIRST.test(message))
    return { ok: false, why: `INVALID_INPUT naming no field: ${message.slice(0, 200)}` };
  return { ok: true, outcome: v.outcome, value: v };
}

/** Every run of the task queue whose history holds a workflow task that failed in the worker. */
export async function historyFailures(
  client: Client,
  taskQueue: string,
): Promise<{ workflowId: string; message: string }[]> {
  const runs: { workflowId: string; runId: string }[] = [];
  for await (const w of client.workflow.list({ query: `TaskQueue = "${taskQueue}"` }))
    runs.push({ workflowId: w.workflowId, runId: w.runId });
  const failures: { workflowId: string; message: string }[] = [];
  let next = 0;
  const lane = async () => {
    while (next < runs.length) {
      const { workflowId, runId } = runs[next++]!;
      const history = await client.workflow
        .getHandle(workflowId, runId)
        .fetchHistory()
        .catch((err: unknown) => ({ events: [], unread: refusalOf(err) }));
      if ('unread' in history) failures.push({ workflowId, message: `unread: ${history.unread}` });
      for (const e of history.events ?? []) {
        const failed = e.workflowTaskFailedEventAttributes;
        if (failed && !THE_SERVERS.has(failed.cause ?? 0))
          failures.push({
            workflowId,
            message: `${failed.cause ?? ''} ${failed.failure?.message ?? ''}`,
          });
      }
    }
  };
  await Promise.all(Array.from({ length: 6 }, lane));
  return failures;
}

/**
 * Earlier versions only (docs/earlier-versions.md): starts an order's guard (`guardBooking`, id
 * `guard-<orderId>`) as a local activity of the `bookRoom` task that decided CONFIRMED, taking no
 * workflow task of its own. Idempotent: a guard that already exists is reported, not started again.
 */
import { Context } from '@temporalio/activity';
import { WorkflowExecutionAlreadyStartedError, WorkflowIdConflictPolicy } from '@temporalio/client';
import type { GuardInput } from '../shared/guard-contract';
import { GUARD_BOOKING_WORKFLOW, guardStart } from '../shared/guard-values';

export type GuardStart = 'started' | 'exists';

/** The earlier guard's input: the guard's, and whether bookRoom started it in the deciding task. */
export type EarlierGuardInput = GuardInput & { readonly startedInOneTask?: boolean };

export function createGuardStartActivities() {
  return {
    async startGuard(input: EarlierGuardInput): Promise<GuardStart> {
      const info = Context.current().info;
      try {
        await Context.current().client.workflow.start(GUARD_BOOKING_WORKFLOW, {
          ...guardStart(input),
          taskQueue: info.taskQueue,
          args: [input],
          workflowIdConflictPolicy: WorkflowIdConflictPolicy.FAIL,
          staticSummary: `Guard of order ${input.orderId} until check-out`,
          // No parent link (it is not a child): the UI names the booking run that handed over.
          staticDetails: `Handed over by ${info.workflowExecution?.workflowId ?? '?'} (run ${info.workflowExecution?.runId ?? '?'}) when it decided CONFIRMED.`,
        });
        return 'started';
      } catch (err) {
        if (err instanceof WorkflowExecutionAlreadyStartedError) return 'exists';
        throw err;
      }
    },
  };
}

export type GuardStartActivities = ReturnType<typeof createGuardStartActivities>;

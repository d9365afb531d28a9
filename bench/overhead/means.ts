/**
 * What the worker's own SDK metrics say of the overhead part's runs: mean ms per workflow task,
 * activity and server call, from two scrapes of its Prometheus endpoint around the measured runs.
 */
import { metricSum } from '../shared/metrics';
import { round } from '../shared/stats';

/** What the worker's SDK reports, mean ms per task or call. */
export interface WorkerMeans {
  /**
   * A booking's workflow task in the worker: activation handed to the sandbox, run, answered (its
   * guard's first task included: the guard runs in the booking's workflow).
   */
  readonly bookRoomWorkflowTask: number;
  /** The same for the no-op control workflow: the SDK's own floor for a workflow task. */
  readonly controlWorkflowTask: number;
  /** The `RespondWorkflowTaskCompleted` call (the server recording a task), every workflow. */
  readonly respondWorkflowTaskCompleted: number;
  /** A bookRoom activity, the supplier call included. */
  readonly bookRoomActivity: number;
  /** The `RespondActivityTaskCompleted` call. */
  readonly respondActivityTaskCompleted: number;
}

/** Mean of a Prometheus histogram between two scrapes: Δsum / Δcount. */
function histogramMean(
  before: string,
  after: string,
  name: string,
  match: Record<string, string>,
): number {
  const d = (suffix: string) =>
    metricSum(after, `${name}_${suffix}`, match) - metricSum(before, `${name}_${suffix}`, match);
  return round(d('sum') / d('count'), 2);
}

const WFT_LATENCY = 'temporal_workflow_task_execution_latency';

/** The means between two scrapes; undefined when the worker has no metrics (in process). */
export function workerMeans(
  before: string,
  after: string,
  workflowType: string,
): WorkerMeans | undefined {
  if (!before || !after) return undefined;
  const bookRoom = { workflow_type: workflowType };
  return {
    bookRoomWorkflowTask: histogramMean(before, after, WFT_LATENCY, bookRoom),
    controlWorkflowTask: histogramMean(before, after, WFT_LATENCY, {
      workflow_type: 'controlNoop',
    }),
    respondWorkflowTaskCompleted: histogramMean(before, after, 'temporal_request_latency', {
      operation: 'RespondWorkflowTaskCompleted',
    }),
    bookRoomActivity: histogramMean(before, after, 'temporal_activity_execution_latency', bookRoom),
    respondActivityTaskCompleted: histogramMean(before, after, 'temporal_request_latency', {
      operation: 'RespondActivityTaskCompleted',
    }),
  };
}

/**
 * The bench's control: a workflow and an activity that do nothing, the floor the bench measures
 * the product against. Production workers never register them.
 */
export { createControlActivities, type ControlActivities } from './control-activities';

/** The module to bundle for a worker that runs the product's workflows and the control. */
export const BENCH_WORKFLOWS_PATH = require.resolve('./workflows');

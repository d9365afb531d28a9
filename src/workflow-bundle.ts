/**
 * Workflow code is bundled once (webpack, by the SDK) and the bundle is shared: by every test
 * worker of a run, by every worker in the container image (built at image build time).
 */
import { existsSync, readFileSync } from 'node:fs';
import { bundleWorkflowCode, type WorkflowBundle } from '@temporalio/worker';
import { workflowBundleConverterOptions } from './codec/data-converter';

/** The module that exports every workflow. */
export const WORKFLOWS_PATH = require.resolve('./workflows');

/**
 * Bundles the workflows (a few seconds: do it once per process or once per build).
 * @param workflowsPath the module exporting them @default the product's, {@link WORKFLOWS_PATH}
 */
export async function bundleWorkflows(workflowsPath = WORKFLOWS_PATH): Promise<WorkflowBundle> {
  return bundleWorkflowCode({
    workflowsPath,
    // Evaluated once per worker and shared, frozen, by every workflow: they hold no state of their
    // own (no module-level let or var: lint). zod stays per workflow (it writes to its schemas).
    preloadModules: [workflowsPath],
    // The failure converter compiled in: failures raised in the sandbox are encoded (encrypted).
    ...workflowBundleConverterOptions,
    logger: quietLogger,
  });
}

/**
 * The bundle to run: from `bundlePath` (the worker's `WORKFLOW_BUNDLE_PATH`, read by
 * src/config) when that file exists, else bundled now.
 */
export async function loadWorkflowBundle(bundlePath?: string): Promise<WorkflowBundle> {
  if (bundlePath && existsSync(bundlePath)) return { code: readFileSync(bundlePath, 'utf8') };
  return bundleWorkflows();
}

const noop = () => undefined;
const quietLogger = { log: noop, trace: noop, debug: noop, info: noop, warn: noop, error: noop };

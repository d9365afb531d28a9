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
  // The failure converter is compiled into the bundle: failures raised in the sandbox are encoded
  // (and so encrypted) only when the bundle carries it.
  return bundleWorkflowCode({
    workflowsPath,
    // The workflow modules are evaluated once per worker and shared, frozen, by every workflow,
    // instead of once for each workflow the worker creates. They hold no state of their own (no
    // module-level let or var: lint). zod and the contract's schemas stay per workflow, required
    // for a doubtful input only (src/workflows/input-checks.ts): zod writes to its schemas.
    preloadModules: [workflowsPath],
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

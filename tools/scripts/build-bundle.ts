/**
 * `node --import tsx tools/scripts/build-bundle.ts [out]`: bundles the workflows once and writes the
 * bundle to `out` (default `dist/workflows.bundle.js`, beside the compiled product). The container image runs it at build time
 * and sets `WORKFLOW_BUNDLE_PATH` to the file, so a worker starts without webpack's few seconds
 * of CPU and every worker of a release runs byte-identical workflow code.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { bundleWorkflows } from '../../src/workflow-bundle';

/** Where the bundle goes when no path is given. */
export const DEFAULT_BUNDLE_OUT = 'dist/workflows.bundle.js';

async function main(): Promise<void> {
  const out = resolve(process.argv[2] ?? DEFAULT_BUNDLE_OUT);
  const started = Date.now();
  // bundleWorkflows compiles the failure converter in: see src/codec/data-converter.ts.
  const { code } = await bundleWorkflows();
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, code);
  const kib = Math.round(Buffer.byteLength(code) / 1024);
  console.log(`Workflow bundle written to ${out} (${kib} KiB, ${Date.now() - started} ms)`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});

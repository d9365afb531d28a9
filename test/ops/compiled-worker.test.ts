/**
 * The product as the image ships it: compiled by `tsc -p tsconfig.build.json`, the workflow bundle
 * prebuilt, run by plain `node` (no tsx). A booking confirms on it. Its start-up memory is printed
 * beside the same worker run from the sources through tsx (a measurement, not an assertion).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { workerNodeFlags } from '../../src/build-worker';
import { bookingInput } from '../helpers/booking-stack';
import {
  startOpsStack,
  startWorkerProcess,
  type OpsStack,
  type WorkerProcess,
} from './worker-process';

const run = promisify(execFile);
const ROOT = join(__dirname, '..', '..');
const OUT = join(ROOT, '.data', `compiled-worker-${process.pid}`);

/** Resident memory of a process, MiB (Linux). */
function rssMiB(pid: number): number | undefined {
  try {
    const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb ? Math.round(Number(kb) / 1024) : undefined;
  } catch {
    return undefined;
  }
}

describe('the compiled worker (what the image runs)', () => {
  let stack: OpsStack;
  const workers: WorkerProcess[] = [];
  before(async () => {
    await run(process.execPath, [
      join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'),
      '-p',
      join(ROOT, 'tsconfig.build.json'),
      '--outDir',
      OUT,
    ]);
    await run(
      process.execPath,
      [
        '--import',
        'tsx',
        join(ROOT, 'tools', 'scripts', 'build-bundle.ts'),
        join(OUT, 'workflows.bundle.js'),
      ],
      { cwd: ROOT },
    );
    stack = await startOpsStack('compiled-worker');
  });
  after(async () => {
    for (const w of workers) {
      w.child.kill('SIGTERM');
      await w.exited;
    }
    await stack?.close();
    rmSync(OUT, { recursive: true, force: true });
  });

  it('books to CONFIRMED with node dist/worker.js, and starts leaner than under tsx', async () => {
    const bundle = { WORKFLOW_BUNDLE_PATH: join(OUT, 'workflows.bundle.js') };
    const compiled = await startWorkerProcess({
      taskQueue: stack.taskQueue,
      env: { ...stack.workerEnv, ...bundle },
      // The image's node flags (NODE_OPTIONS in the Dockerfile).
      nodeArgs: [...workerNodeFlags(), join(OUT, 'worker.js')],
    });
    workers.push(compiled);
    await compiled.waitReady();
    const input = bookingInput('instant');
    await stack.bookings.startBooking(input);
    assert.equal((await stack.bookings.result(input.orderId)).outcome, 'CONFIRMED');
    assert.ok(!compiled.output().stderr.includes('tsx'), 'no TypeScript runtime');

    const sources = await startWorkerProcess({
      taskQueue: `${stack.taskQueue}-tsx`,
      env: { ...stack.workerEnv, ...bundle },
    });
    workers.push(sources);
    await sources.waitReady();
    console.log(
      `# worker RSS after start-up: compiled ${rssMiB(compiled.child.pid!)} MiB, tsx ${rssMiB(sources.child.pid!)} MiB`,
    );
  });
});

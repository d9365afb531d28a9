/**
 * The bench's worker runs what production runs: the product compiled to JavaScript by `tsc` with
 * the image's options (tsconfig.build.json, `npm run build`), started by plain `node`, no tsx.
 * The bench's worker child (worker-child.ts and the control activities) is compiled with it
 * (bench/tsconfig.worker.json). The output goes to the user's cache, outside the checkout, in a
 * directory named after a hash of what it is compiled from: a second run with the same sources
 * reuses it, a changed source compiles anew.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { cacheRoot } from '../../tools/temporal-server/binary-cache';

const ROOT = join(__dirname, '..', '..');
const TSCONFIG = join(ROOT, 'bench', 'tsconfig.worker.json');
/** Everything the compiled output depends on: the sources and the compiler's configuration. */
const INPUT_DIRS = ['src', 'bench'];
const INPUT_FILES = [
  'tsconfig.json',
  'tsconfig.build.json',
  'bench/tsconfig.worker.json',
  'package-lock.json',
];

/** A compiled bench worker: the module to fork and the environment it needs to find its packages. */
export interface CompiledWorker {
  /** `<dir>/bench/shared/worker-child.js`. */
  readonly module: string;
  /** `NODE_PATH`: the checkout's node_modules (the output lives outside the checkout). */
  readonly env: Readonly<Record<string, string>>;
}

/** sha256 over the path and content of every input (the `.ts` files of its folders), in a stable order. */
export function sourceHash(root = ROOT): string {
  const hash = createHash('sha256');
  const files = [
    ...INPUT_FILES.map((f) => join(root, f)),
    ...INPUT_DIRS.flatMap((d) =>
      readdirSync(join(root, d), { recursive: true, encoding: 'utf8' })
        .filter((f) => f.endsWith('.ts'))
        .map((f) => join(root, d, f)),
    ),
  ].sort();
  for (const file of files) {
    hash.update(relative(root, file)).update('\0').update(readFileSync(file)).update('\0');
  }
  return hash.digest('hex').slice(0, 16);
}

/**
 * Compiles the product and the bench's worker child into the cache unless that exact source is
 * there already; says which it did, and how long compiling took.
 */
export async function compiledBenchWorker(
  log: (line: string) => void,
  env: NodeJS.ProcessEnv = process.env,
): Promise<CompiledWorker> {
  const dir = join(cacheRoot(env), 'bench-worker', sourceHash());
  const module = join(dir, 'bench', 'shared', 'worker-child.js');
  const result = { module, env: { NODE_PATH: join(ROOT, 'node_modules') } };
  if (existsSync(module)) {
    log(`compiled worker: up to date in ${dir}`);
    return result;
  }
  log(`compiled worker: compiling src/ and the bench's worker child (tsc) into ${dir}`);
  const started = Date.now();
  const tmp = `${dir}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  try {
    await promisify(execFile)(process.execPath, [tsc, '-p', TSCONFIG, '--outDir', tmp], {
      cwd: ROOT,
    });
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true });
    const out = (err as { stdout?: string }).stdout ?? '';
    throw new Error(`compiling the bench worker failed (tsc -p ${TSCONFIG}):\n${out}`);
  }
  if (existsSync(module)) rmSync(tmp, { recursive: true, force: true });
  else renameSync(tmp, dir);
  log(`compiled worker: compiled in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return result;
}

/** The worker child from the TypeScript sources through tsx: the A/B baseline, never the figures. */
export const SOURCES_WORKER: CompiledWorker = {
  module: join(__dirname, 'worker-child.ts'),
  env: {},
};

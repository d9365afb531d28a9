/**
 * What the finders of this folder share: the cache outside the checkout, finding an executable
 * on PATH, a Go build into the cache, and a scratch directory whose results move into place
 * atomically (an interrupted or concurrent build never leaves a half-written file).
 */
import { execFile } from 'node:child_process';
import { accessSync, constants, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';

export const execFileAsync = promisify(execFile);

/** Output buffer of the build commands (a Go build can be verbose on failure). */
export const BUILD_OUTPUT_BYTES = 64 * 1024 * 1024;

/** `$XDG_CACHE_HOME/hotel-booking-orchestrator` or `~/.cache/hotel-booking-orchestrator`. */
export function cacheRoot(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(base, 'hotel-booking-orchestrator');
}

export function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export function findOnPath(name: string, env: NodeJS.ProcessEnv): string | undefined {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

/** The last lines of a failed command's stderr, on one line, for an error message. */
export function commandTail(err: unknown, lines = 3): string {
  return String((err as { stderr?: string }).stderr ?? err)
    .trim()
    .split('\n')
    .slice(-lines)
    .join(' | ');
}

/**
 * Runs `work` in a fresh scratch directory beside `dir`'s files and removes the scratch
 * afterwards; `work` renames its results into `dir` when they are complete.
 */
export async function inScratchDir<T>(
  dir: string,
  prefix: string,
  work: (scratch: string) => Promise<T>,
): Promise<T> {
  mkdirSync(dir, { recursive: true });
  const scratch = mkdtempSync(join(dir, prefix));
  try {
    return await work(scratch);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** `go install module` with its binary `goBinary` moved to `target` once built. */
export async function goInstall(options: {
  readonly module: string;
  readonly goBinary: string;
  readonly target: string;
  readonly env: NodeJS.ProcessEnv;
  readonly ldflags?: string;
  /** A Go toolchain the go command fetches from the module proxy when the local one is older. */
  readonly toolchain?: string;
}): Promise<void> {
  const { module, goBinary, target, env } = options;
  await inScratchDir(join(target, '..'), '.build-', async (gobin) => {
    const flags = options.ldflags ? ['-ldflags', options.ldflags] : [];
    await execFileAsync('go', ['install', ...flags, module], {
      env: { ...env, GOBIN: gobin, GOTOOLCHAIN: options.toolchain ?? 'local', GOFLAGS: '-mod=mod' },
      maxBuffer: BUILD_OUTPUT_BYTES,
    });
    renameSync(join(gobin, goBinary), target);
  });
}

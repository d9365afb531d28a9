/**
 * A Python virtual environment for tests that run a program written in Python (an order system
 * that is not ours, a webhook receiver), created once per machine and requirements file, outside
 * the checkout, and shared by test processes that ask at the same time.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

const CACHE = join(
  process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'),
  'hotel-booking-orchestrator',
  'python',
);

export type PythonEnv =
  { readonly python: string; readonly skip?: undefined } | { readonly skip: string };

/**
 * The venv's python for `requirements` (a requirements.txt path), or why there is none (no
 * python3, no venv module, an install that failed): the caller skips with that one line.
 */
export function pythonEnv(requirements: string): PythonEnv {
  const which = spawnSync(
    'python3',
    ['-c', 'import venv, sys; print(sys.version_info >= (3, 10))'],
    {
      encoding: 'utf8',
    },
  );
  if (which.error || which.status !== 0) return { skip: 'no python3 with the venv module on PATH' };
  // The examples' pinned packages (temporalio, jsonschema) need Python 3.10 or later.
  if (which.stdout.trim() !== 'True') return { skip: 'python3 is older than 3.10' };
  const hash = createHash('sha256').update(readFileSync(requirements)).digest('hex').slice(0, 16);
  const dir = join(CACHE, `venv-${hash}`);
  const python = join(dir, 'bin', 'python');
  if (existsSync(python)) return { python };
  mkdirSync(CACHE, { recursive: true });
  // Built under a name of its own, then renamed into place: a process that finds `dir` finds it whole.
  const building = `${dir}.building-${process.pid}`;
  try {
    console.log(`Creating a Python venv for ${requirements} in ${dir} (once per machine, ~10 s)`);
    execFileSync('python3', ['-m', 'venv', building], { stdio: 'ignore' });
    execFileSync(join(building, 'bin', 'pip'), ['install', '-q', '-r', requirements], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    try {
      renameSync(building, dir);
    } catch (err) {
      // Another process renamed its venv into place first: use that one.
      if (!existsSync(python)) throw err;
    }
  } catch (err) {
    const why = err instanceof Error ? err.message.split('\n')[0] : String(err);
    return { skip: `the Python venv could not be created (${why})` };
  } finally {
    rmSync(building, { recursive: true, force: true });
  }
  return existsSync(python) ? { python } : { skip: 'the Python venv has no python' };
}

/**
 * Runs the command-line tool as users do, in a child process (`node --import tsx src/starter.ts`),
 * and a local stack for it: the run's Temporal server, a simulator on port 0 and an in-process
 * worker on a task queue of its own, configured through the same environment the child gets.
 */
import { tmpdir } from 'node:os';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { loadConfig } from '../../src/config';
import { startLocalStack, type LocalStack } from '../../tools/stack/local-stack';
import { temporalAddress, uniqueTaskQueue } from '../helpers/temporal';

export const ROOT = join(__dirname, '..', '..');

export interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly ms: number;
}

/** Runs `node --import tsx <script> ...args` from the repository root. */
export async function runNode(
  script: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  timeoutMs = 60_000,
): Promise<CliRun> {
  const t0 = Date.now();
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  clearTimeout(timer);
  return { code, stdout, stderr, ms: Date.now() - t0 };
}

/**
 * A catalogue path no test writes: unless a test names its own, the tool must not read a
 * developer's real `.data/catalogue.db`.
 */
const NO_CATALOGUE = join(tmpdir(), `hbo-no-catalogue-${process.pid}`, 'catalogue.db');

/** The tool with `env`. */
export function cli(env: NodeJS.ProcessEnv) {
  const withCatalogue = { ...env, CATALOGUE_DB_PATH: env.CATALOGUE_DB_PATH ?? NO_CATALOGUE };
  return (...args: string[]) => runNode('src/starter.ts', args, withCatalogue);
}

/** A failed assertion's context: what the tool printed. */
export function explain(run: CliRun): string {
  return `exit ${run.code} after ${run.ms} ms\n--- stdout\n${run.stdout}\n--- stderr\n${run.stderr}`;
}

/** Parses `--json` output (one document on stdout). */
export function json<T = Record<string, unknown>>(run: CliRun): T {
  try {
    return JSON.parse(run.stdout) as T;
  } catch {
    throw new Error(`stdout is not one JSON document:\n${explain(run)}`);
  }
}

export interface CliStack {
  readonly stack: LocalStack;
  /** The environment the tool runs with. */
  readonly env: NodeJS.ProcessEnv;
  readonly run: (...args: string[]) => Promise<CliRun>;
}

/** The stack the tool talks to in a test file. */
export async function startCliStack(name: string): Promise<CliStack> {
  const taskQueue = uniqueTaskQueue(name);
  // The supplier URL is the simulator's, known once it listens; src/config/ gives the loopback
  // default the demo company's credentials, which the simulator accepts.
  const config = loadConfig({
    ...process.env,
    TEMPORAL_TASK_QUEUE: taskQueue,
    HOTEL_API_BASE_URL: undefined,
  });
  const { key, secret } = config.hotelApi;
  const stack = await startLocalStack({
    temporal: { kind: 'existing', address: temporalAddress() },
    supplier: { kind: 'simulator', company: { key, secret } },
    config,
    log: () => undefined,
    sdkLog: { to: 'stderr', level: 'ERROR' },
    shutdownGraceMs: 1_000,
  });
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    TEMPORAL_ADDRESS: stack.temporalAddress,
    TEMPORAL_TASK_QUEUE: taskQueue,
    HOTEL_API_BASE_URL: stack.supplierUrl,
  };
  return { stack, env, run: cli(env) };
}

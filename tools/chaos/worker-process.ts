/**
 * The booking worker as a real subprocess (`node --import tsx src/worker.ts`), the way it runs in
 * production: configured by the environment only, killable with SIGKILL at any moment, restartable.
 * Everything it writes to stdout and stderr, across every restart, is kept for the secret and
 * personal-data scans.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The repository root (tools/chaos/ → ../..). */
export const REPO_ROOT = join(__dirname, '..', '..');

export interface WorkerProcessOptions {
  /**
   * The worker's environment (TEMPORAL_ADDRESS, TEMPORAL_TASK_QUEUE, HOTEL_API_*, …), added to a
   * minimal base (PATH, HOME). The parent's environment is not inherited, so nothing of the test
   * run (or of the engineer's shell) leaks into what the worker sees.
   */
  readonly env: Readonly<Record<string, string>>;
  /** Appends every output chunk here too (long runs). @default none, memory only */
  readonly logFile?: string;
  /** Keep at most this many bytes of output in memory (oldest dropped). @default 64 MiB */
  readonly maxBufferedBytes?: number;
  /** @default 'worker' */
  readonly label?: string;
  /**
   * The source tree whose `src/worker.ts` runs (another release of the product, for the deploy
   * drill). @default this checkout
   */
  readonly root?: string;
  /** Node arguments before the entry point (e.g. the memory probe's `--import`). @default none */
  readonly nodeArgs?: readonly string[];
}

/** One start of the process. */
export interface WorkerLife {
  readonly pid: number;
  readonly startedAt: number;
  exitedAt?: number;
  exit?: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Lines that show the worker is polling (our entry point's line, or the SDK's state change). */
const READY_LINE = /Worker polling|state: 'RUNNING'|"state":"RUNNING"|polling task queue/i;

export class WorkerProcess {
  readonly options: WorkerProcessOptions;
  readonly lives: WorkerLife[] = [];
  #child: ChildProcess | undefined;
  #chunks: Buffer[] = [];
  #bytes = 0;
  #totalBytes = 0;
  readonly #readyPids = new Set<number>();

  constructor(options: WorkerProcessOptions) {
    this.options = options;
  }

  get pid(): number | undefined {
    return this.#child?.exitCode === null && this.#child.signalCode === null
      ? this.#child.pid
      : undefined;
  }

  get running(): boolean {
    return this.pid !== undefined;
  }

  /** Spawns the worker; resolves once it is spawned (see {@link waitReady}). */
  start(): void {
    if (this.running) throw new Error('the worker is already running');
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: process.env.HOME ?? '/tmp',
      ...this.options.env,
    };
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', ...(this.options.nodeArgs ?? []), join('src', 'worker.ts')],
      {
        cwd: this.options.root ?? REPO_ROOT,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    this.#child = child;
    const life: WorkerLife = { pid: child.pid ?? -1, startedAt: Date.now() };
    this.lives.push(life);
    const pid = child.pid ?? -1;
    const onData = (chunk: Buffer) => {
      this.#record(chunk);
      if (READY_LINE.test(chunk.toString('utf8'))) this.#readyPids.add(pid);
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code, signal) => {
      life.exitedAt = Date.now();
      life.exit = signal ?? `code ${code}`;
    });
  }

  #record(chunk: Buffer): void {
    this.#chunks.push(chunk);
    this.#bytes += chunk.length;
    this.#totalBytes += chunk.length;
    const cap = this.options.maxBufferedBytes ?? 64 * 1024 * 1024;
    while (this.#bytes > cap && this.#chunks.length > 1) {
      this.#bytes -= this.#chunks.shift()!.length;
    }
    if (this.options.logFile) appendFileSync(this.options.logFile, chunk);
  }

  /**
   * Waits until the current process says it polls (the log line of our entry point or of the
   * SDK). Throws when it exits first or after `timeoutMs`, with its last output.
   */
  async waitReady(timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    const pid = this.pid;
    while (Date.now() < deadline) {
      if (pid !== undefined && this.#readyPids.has(pid)) return;
      if (!this.running)
        throw new Error(`the worker exited before it was ready:\n${this.tail(4000)}`);
      await sleep(50);
    }
    throw new Error(`the worker was not ready within ${timeoutMs} ms:\n${this.tail(4000)}`);
  }

  /** SIGKILL, no grace: the crash under test. Resolves once the process is gone. */
  async kill(): Promise<void> {
    const child = this.#child;
    if (!child || !this.running) return;
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    child.kill('SIGKILL');
    await exited;
  }

  /** SIGTERM (graceful shutdown), SIGKILL after `graceMs`. */
  async stop(graceMs = 15_000): Promise<void> {
    const child = this.#child;
    if (!child || !this.running) return;
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await exited;
    clearTimeout(timer);
  }

  /** Resident set size of the running process, bytes (Linux `/proc`); undefined when not running. */
  rssBytes(): number | undefined {
    const pid = this.pid;
    if (pid === undefined) return undefined;
    try {
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
      return m ? Number(m[1]) * 1024 : undefined;
    } catch {
      return undefined;
    }
  }

  /** Everything the worker wrote (stdout and stderr interleaved), across restarts. */
  output(): Buffer {
    return Buffer.concat(this.#chunks);
  }

  /** Bytes written over the whole run, including any dropped from memory. */
  get outputBytes(): number {
    return this.#totalBytes;
  }

  /** The last `chars` characters of output, for error messages. */
  tail(chars = 2000): string {
    const text = this.output().toString('utf8');
    return text.slice(-chars);
  }
}

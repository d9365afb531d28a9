/**
 * The cluster's child processes: each one's output appended to its own log file, stopped with a
 * signal and a grace period, and forgotten when it exits.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';

export interface SpawnExtra {
  readonly uid?: number;
  readonly gid?: number;
  readonly cwd?: string;
}

export class ProcessGroup {
  private readonly children: { proc: ChildProcess; name: string }[] = [];

  constructor(readonly logsDir: string) {
    mkdirSync(logsDir, { recursive: true });
  }

  logFile(name: string): string {
    return join(this.logsDir, `${name}.log`);
  }

  spawn(
    name: string,
    cmd: string,
    args: string[],
    env: NodeJS.ProcessEnv,
    extra: SpawnExtra = {},
  ): ChildProcess {
    const logFile = this.logFile(name);
    appendFileSync(logFile, `--- ${new Date().toISOString()} start ${name}\n`);
    const proc = spawn(cmd, args, { env, stdio: ['ignore', 'pipe', 'pipe'], ...extra });
    proc.stdout?.on('data', (c: Buffer) => appendFileSync(logFile, c));
    proc.stderr?.on('data', (c: Buffer) => appendFileSync(logFile, c));
    proc.on('error', (err) => appendFileSync(logFile, `spawn error: ${err.message}\n`));
    const child = { proc, name };
    this.children.push(child);
    proc.once('exit', (code, signal) => {
      appendFileSync(logFile, `--- ${new Date().toISOString()} exit ${name} (${signal ?? code})\n`);
      const i = this.children.indexOf(child);
      if (i >= 0) this.children.splice(i, 1);
    });
    return proc;
  }

  /** The running children, newest last. */
  running(): { proc: ChildProcess; name: string }[] {
    return [...this.children];
  }
}

/** Sends `signal`, then SIGKILL after `graceMs`; resolves when the process has exited. */
export async function stopProcess(
  proc: ChildProcess,
  signal: NodeJS.Signals = 'SIGTERM',
  graceMs = 20_000,
): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise<void>((r) => proc.once('exit', () => r()));
  proc.kill(signal);
  const timer = setTimeout(() => proc.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

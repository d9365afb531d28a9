/**
 * Request/answer over a forked child's IPC channel, so the benchmark can run the simulator and the
 * worker in their own processes (their own event loops and their own `/proc/<pid>/status`) and
 * still drive them: change the supplier latency, read poll lateness, stop them.
 */
import { fork, type ChildProcess } from 'node:child_process';

interface Request {
  readonly id: number;
  readonly type: string;
  readonly payload: unknown;
}

type Answer =
  | { readonly id: number; readonly ok: true; readonly value: unknown }
  | { readonly id: number; readonly ok: false; readonly error: string };

export type Handlers = Record<string, (payload: never) => unknown>;

/** A forked child that answers typed requests. */
export class ChildHandle {
  readonly #child: ChildProcess;
  readonly #pending = new Map<
    number,
    { resolve: (v: unknown) => void; reject: (e: Error) => void }
  >();
  #nextId = 1;
  #exited: string | undefined;

  private constructor(child: ChildProcess) {
    this.#child = child;
    child.on('message', (m: Answer) => {
      const p = this.#pending.get(m.id);
      if (!p) return;
      this.#pending.delete(m.id);
      if (m.ok) p.resolve(m.value);
      else p.reject(new Error(m.error));
    });
    child.once('exit', (code, signal) => {
      this.#exited = `exited with ${signal ?? code}`;
      for (const p of this.#pending.values()) p.reject(new Error(`bench child ${this.#exited}`));
      this.#pending.clear();
    });
  }

  /**
   * Forks `modulePath` and waits for its `ready` message. A `.ts` module inherits tsx's loader
   * through `execArgv`; a `.js` module (the compiled worker, compiled-worker.ts) runs on
   * plain node. `nodeArgs` (e.g. `--cpu-prof`) come after those; `env` is added to the bench's.
   */
  static async fork(
    modulePath: string,
    nodeArgs: readonly string[] = [],
    env: Readonly<Record<string, string>> = {},
  ): Promise<ChildHandle> {
    const loader = modulePath.endsWith('.ts') ? process.execArgv : [];
    const child = fork(modulePath, [], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      execArgv: [...loader, ...nodeArgs],
      env: { ...process.env, ...env },
    });
    await new Promise<void>((resolve, reject) => {
      const onMessage = (m: unknown) => {
        if (m === 'ready') {
          child.off('message', onMessage);
          resolve();
        }
      };
      child.on('message', onMessage);
      child.once('error', reject);
      child.once('exit', (code) => reject(new Error(`bench child exited with ${code} at start`)));
    });
    return new ChildHandle(child);
  }

  get pid(): number {
    if (this.#child.pid === undefined) throw new Error('bench child has no pid');
    return this.#child.pid;
  }

  request<T>(type: string, payload: unknown = null): Promise<T> {
    if (this.#exited) return Promise.reject(new Error(`bench child ${this.#exited}`));
    const id = this.#nextId++;
    return new Promise<T>((resolve, reject) => {
      this.#pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      const msg: Request = { id, type, payload };
      this.#child.send(msg);
    });
  }

  /** Asks the child to stop (`stop` request), then kills it if it has not exited within 15 s. */
  async stop(): Promise<void> {
    if (this.#exited) return;
    const exited = new Promise<void>((r) => this.#child.once('exit', () => r()));
    const timer = setTimeout(() => this.#child.kill('SIGKILL'), 15_000);
    try {
      await this.request('stop');
    } catch {
      // Already gone, or it died while stopping: the exit is what matters.
    }
    this.#child.disconnect();
    await exited;
    clearTimeout(timer);
  }
}

/**
 * The child's side: answers requests with `handlers`, sends `ready`, exits when the parent goes
 * away. A `stop` handler is called, answered, then the process exits.
 */
export function serveParent(handlers: Handlers): void {
  const send = (m: Answer) => process.send?.(m);
  process.on('message', (m: Request) => {
    const handler = handlers[m.type];
    if (!handler) {
      send({ id: m.id, ok: false, error: `unknown request ${m.type}` });
      return;
    }
    Promise.resolve()
      .then(() => handler(m.payload as never))
      .then(
        (value) => {
          send({ id: m.id, ok: true, value: value ?? null });
          if (m.type === 'stop') setImmediate(() => process.exit(0));
        },
        (err: unknown) =>
          send({ id: m.id, ok: false, error: err instanceof Error ? err.message : String(err) }),
      );
  });
  process.on('disconnect', () => process.exit(0));
  process.send?.('ready');
}

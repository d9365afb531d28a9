/**
 * How a stack's command line waits: until Ctrl-C, SIGTERM or (optionally) the end of something it
 * runs, then stops what it started and resolves with the exit code.
 */

export interface Stoppable {
  stop(): Promise<void>;
}

/**
 * Resolves with 0 after Ctrl-C or SIGTERM, with 1 when `ended` settles first (a worker that
 * stopped) or when stopping fails. `what` names what is stopped, e.g. "what this stack started".
 * Signals after the first are noted, not obeyed: the stop finishes (SIGKILL ends it if it must).
 */
export function runUntilStopped(
  stack: Stoppable,
  options: {
    readonly what: string;
    readonly log: (line: string) => void;
    /** Something whose end ends the run: its message says why. */
    readonly ended?: Promise<unknown>;
    readonly endedWhy?: string;
    /** Said, with the error, when `ended` rejects. @default endedWhy */
    readonly failedWhy?: string;
  },
): Promise<number> {
  const { log } = options;
  return new Promise<number>((done) => {
    let stopping = false;
    let told = false;
    const stop = (why: string, code: number) => {
      if (stopping) {
        // Ctrl-C reaches npm, tsx and this process alike, and tsx relays it once more: a second
        // signal must not end the process halfway, leaving what it started running.
        if (!told) log('Still stopping: the processes this started are being stopped.');
        told = true;
        return;
      }
      stopping = true;
      log(`\n${why}: stopping ${options.what} ...`);
      stack.stop().then(
        () => {
          log('Stopped.');
          done(code);
        },
        (err: unknown) => {
          log(`Stopping failed: ${err instanceof Error ? err.message : String(err)}`);
          done(1);
        },
      );
    };
    process.on('SIGINT', () => stop('Ctrl-C', 0));
    process.on('SIGTERM', () => stop('SIGTERM', 0));
    const endedWhy = options.endedWhy ?? 'It stopped';
    options.ended?.then(
      () => stop(endedWhy, 1),
      (err: unknown) =>
        stop(
          `${options.failedWhy ?? endedWhy} (${err instanceof Error ? err.message : String(err)})`,
          1,
        ),
    );
  });
}

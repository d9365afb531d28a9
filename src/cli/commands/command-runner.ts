import type { CliContext } from '../cli-context';
import type { ExitCode } from '../exit-codes';

/** Runs a command's body with the shared context; `runCli` maps what it throws to an exit code. */
export type CommandRunner = (body: (ctx: CliContext) => Promise<ExitCode>) => Promise<void>;

import type { CliContext } from '../cli-context';
import type { ExitCode } from '../exit-codes';

/**
 * Runs one command's body with the shared context; the program records its exit code, and any
 * error it throws is mapped to an exit code and a message in one place (`runCli`).
 */
export type CommandRunner = (body: (ctx: CliContext) => Promise<ExitCode>) => Promise<void>;

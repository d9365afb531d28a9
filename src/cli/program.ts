/**
 * The `hotel-booking` command-line tool: commander wiring, the global `--json` flag, and the one
 * place where a thrown error becomes an exit code and a message (see exit-codes.ts).
 */
import { Command, CommanderError } from 'commander';
import type { Config } from '../config';
import { CliContext, type CliIo } from './cli-context';
import { toCliFailure } from './cli-errors';
import { registerBookCommand } from './commands/book-command';
import { registerCatalogueCommands } from './commands/catalogue-commands';
import type { CommandRunner } from './commands/command-runner';
import { registerOperatorCommands } from './commands/operator-commands';
import { ExitCode } from './exit-codes';

export interface RunCliOptions {
  readonly io: CliIo;
  /** src/config.ts `loadConfig`, called only by commands that need the configuration. */
  readonly loadConfig: () => Config;
  /** The program name in help and messages. @default 'hotel-booking' */
  readonly name?: string;
}

const EXIT_CODES_HELP = `
Exit codes: 0 ok; 1 the operation failed (e.g. book --wait not CONFIRMED); 2 bad usage or
invalid input (nothing started); 3 Temporal, a worker or the supplier unreachable.
Configuration comes from the environment: TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE,
TEMPORAL_TASK_QUEUE, HOTEL_API_BASE_URL, HOTEL_API_KEY, HOTEL_API_SECRET (see README).`;

/**
 * Runs the tool on `args` (without `node` and the script) and resolves with the exit code; it
 * never calls `process.exit`, so tests and other programs can run it in-process.
 */
export async function runCli(args: readonly string[], options: RunCliOptions): Promise<number> {
  const { io } = options;
  let exitCode: number = ExitCode.OK;
  let json = false;
  let ctx: CliContext | undefined;

  const run: CommandRunner = async (body) => {
    ctx = new CliContext({ io, loadConfig: options.loadConfig, json });
    exitCode = await body(ctx);
  };

  const program = new Command(options.name ?? 'hotel-booking')
    .description('Book hotel rooms through Temporal, and look after the bookings.')
    .option('--json', 'print one JSON document on stdout instead of tables')
    .showHelpAfterError('(add --help for usage)')
    .addHelpText('after', EXIT_CODES_HELP)
    .configureOutput({
      writeOut: (s) => io.stdout(s),
      writeErr: (s) => io.stderr(s),
    })
    .exitOverride()
    .hook('preAction', (_program, action) => {
      json = action.optsWithGlobals<{ json?: boolean }>().json === true;
    });
  registerCatalogueCommands(program, run);
  registerBookCommand(program, run);
  registerOperatorCommands(program, run);
  // Subcommands inherit the output and exit behaviour, so their usage errors come back here too.
  for (const command of allCommands(program)) {
    command.exitOverride().configureOutput({
      writeOut: (s) => io.stdout(s),
      writeErr: (s) => io.stderr(s),
    });
  }

  try {
    await program.parseAsync([...args], { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError) {
      // Help and version "errors" are successes; commander already printed its message.
      return err.exitCode === 0 ? ExitCode.OK : ExitCode.USAGE;
    }
    const failure = toCliFailure(err, ctx?.failureContext() ?? {});
    io.stderr(`error: ${failure.message}\n`);
    if (json) {
      io.stdout(
        `${JSON.stringify({ error: { code: failure.code, message: failure.message, issues: failure.issues } }, null, 2)}\n`,
      );
    }
    exitCode = failure.exitCode;
  } finally {
    await ctx?.close();
  }
  return exitCode;
}

function allCommands(command: Command): Command[] {
  return command.commands.flatMap((c) => [c, ...allCommands(c)]);
}

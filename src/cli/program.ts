/** The `hotel-booking` tool: commander, `--json`, and the one place errors become exit codes. */
import { Command, CommanderError } from 'commander';
import type { Config } from '../config';
import { CliContext, type CliIo, type CommandRunner } from './cli-context';
import { toCliFailure } from './cli-errors';
import { registerBookCommand } from './commands/book-command';
import { registerCatalogueCommands } from './commands/catalogue-commands';
import { registerDoctorCommand } from './commands/doctor-command';
import { registerEventCommands } from './commands/event-commands';
import { registerOperatorCommands } from './commands/operator-commands';
import { registerGenerateCommand } from './commands/generate-command';
import { registerReplayCommand } from './commands/replay-command';
import { registerSetupCommand } from './commands/setup-command';
import { ExitCode } from './exit-codes';

export interface RunCliOptions {
  readonly io: CliIo;
  /** src/config/ `loadConfig`, called only by commands that need the configuration. */
  readonly loadConfig: () => Config;
  /** The program name in help and messages. @default 'hotel-booking' */
  readonly name?: string;
}

const EXIT_CODES_HELP = `
Examples:
  search --property 1001 1002 --checkin 2027-05-10 --checkout 2027-05-12 --occupancy 2 2-5,7
  book --order ord-42 --option <option id> --guest "Ada Lovelace" --phone-prefix +39 --phone 3331234567 --wait
  status ord-42        approve ord-42        cancel ord-42 --wait
  list --phase NEEDS_RECONCILIATION        resolve ord-42 --booking-id 100123
  content sync --country IT        content search --country IT --city Rome --min-stars 4
  events list      events redeliver ord-42 (docs/order-events.md)
  doctor           doctor --book --property 1001 --checkin 2027-05-10 (docs/doctor.md)
  setup            doctor namespace (prepare, then check the Temporal namespace; docs/go-live.md)
  replay           (this build against the namespace's histories, before a rollout; docs/upgrading.md)
  generate payload-key      generate codec-token (new secrets, printed; docs/adopt.md)

Exit codes: 0 ok; 1 the operation failed (e.g. book --wait not CONFIRMED); 2 bad usage,
invalid input or configuration (nothing started); 3 Temporal, a worker or the supplier unreachable.
Configuration comes from the environment: TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE,
TEMPORAL_TASK_QUEUE, HOTEL_API_BASE_URL, HOTEL_API_KEY, HOTEL_API_SECRET, CATALOGUE_DB_PATH
(the local catalogue; see docs/operating.md), and PAYLOAD_ENCRYPTION_KEYS: the workers' payload
keys, without which the tool cannot read a booking's input or result (docs/payload-encryption.md).`;

/**
 * Runs the tool on `args` (without `node` and the script) and resolves with the exit code; it
 * never calls `process.exit`, so tests and other programs can run it in-process.
 */
export async function runCli(args: readonly string[], options: RunCliOptions): Promise<number> {
  const { io } = options;
  let exitCode: number = ExitCode.OK;
  // Known before parsing succeeds, so that a usage error in `--json` mode is a JSON document too.
  let json = args.includes('--json');
  let ctx: CliContext | undefined;

  const run: CommandRunner = async (body) => {
    ctx = new CliContext(io, json, options.loadConfig);
    exitCode = (await body(ctx)) ?? ExitCode.OK;
  };

  const output = { writeOut: (s: string) => io.stdout(s), writeErr: (s: string) => io.stderr(s) };
  const program = new Command(options.name ?? 'hotel-booking')
    .description('Book hotel rooms through Temporal, and look after the bookings.')
    .option('--json', 'print one JSON document on stdout instead of tables')
    .showHelpAfterError('(add --help for usage)')
    .addHelpText('after', EXIT_CODES_HELP)
    .configureOutput(output)
    .exitOverride()
    .hook('preAction', (_program, action) => {
      json = action.optsWithGlobals<{ json?: boolean }>().json === true;
    });
  registerCatalogueCommands(program, run);
  registerBookCommand(program, run);
  registerOperatorCommands(program, run);
  registerEventCommands(program, run);
  registerDoctorCommand(program, run);
  registerSetupCommand(program, run);
  registerReplayCommand(program, run);
  registerGenerateCommand(program, run);
  // Subcommands inherit the output and exit behaviour, so their usage errors come back here too.
  for (const command of allCommands(program)) {
    command.exitOverride().configureOutput(output);
  }

  try {
    await program.parseAsync([...args], { from: 'user' });
  } catch (err) {
    // Help and version are "errors" that succeed; commander has printed them.
    if (err instanceof CommanderError && err.exitCode === 0) return ExitCode.OK;
    const failure = toCliFailure(err, ctx?.failureContext() ?? {});
    // Commander has printed its own usage message.
    if (!(err instanceof CommanderError)) io.stderr(`error: ${failure.message}\n`);
    if (json) {
      const { code, message, issues } = failure;
      io.stdout(`${JSON.stringify({ error: { code, message, issues } }, null, 2)}\n`);
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

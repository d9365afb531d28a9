/** `doctor` (the supplier accounts) and `doctor namespace` (docs/doctor.md). */
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { assertSupplierCredentials } from '../../config';
import { type DoctorFlags, doctorOptions } from '../../doctor/doctor-input';
import {
  ONE_ACCOUNT_FLAGS,
  accountsToCheck,
  doctorJson,
  runAccounts,
} from '../../doctor/run-accounts';
import { runNamespaceDoctor } from '../../doctor/run-namespace-doctor';
import type { CustomFieldName } from '../../hotel-api/booking';
import type { Credentials } from '../../hotel-api/signing';
import type { CliContext, CommandRunner } from '../cli-context';
import { usageError } from '../cli-errors';
import { leftBehindLine, renderDoctorRun, renderNamespaceReport } from '../doctor-render';
import type { ExitCode } from '../exit-codes';
import { collect } from './content-args';

interface Flags extends DoctorFlags {
  readonly inactiveKey?: string;
  readonly inactiveSecretFile?: string;
  /** The one account to check (an id of SUPPLIER_ACCOUNTS, or `default`). */
  readonly supplier?: string;
}

/** The flags of {@link ONE_ACCOUNT_FLAGS} given on this command line. */
function oneAccountFlagsGiven(flags: Flags): string[] {
  const given = Object.entries(ONE_ACCOUNT_FLAGS).filter(([, key]) => flags[key] !== undefined);
  return given.map(([flag]) => flag);
}

/** The second account's credentials; its secret only from a file, never on the command line. */
function inactiveCredentials(flags: Flags): Credentials | undefined {
  const { inactiveKey: key, inactiveSecretFile: file } = flags;
  if (key === undefined && file === undefined) return undefined;
  if (key === undefined || file === undefined) {
    const field = key === undefined ? '--inactive-key' : '--inactive-secret-file';
    const other = key === undefined ? '--inactive-secret-file' : '--inactive-key';
    throw usageError(`${field}: required with ${other}`, [{ field, message: 'required' }]);
  }
  try {
    return { key, secret: readFileSync(file, 'utf8').trim() };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    throw usageError(`--inactive-secret-file: cannot read ${file} (${code})`, [
      { field: '--inactive-secret-file', message: `cannot read (${code})` },
    ]);
  }
}

/** The validated options, and the accounts to check; a usage error naming every bad flag. */
function doctorInput(ctx: CliContext, flags: Flags) {
  const config = ctx.config;
  assertSupplierCredentials(config);
  const selection = accountsToCheck({
    ...(flags.supplier === undefined ? {} : { supplier: flags.supplier }),
    accounts: config.suppliers,
    given: oneAccountFlagsGiven(flags),
  });
  const inactive = inactiveCredentials(flags);
  const { options, issues } = doctorOptions({
    flags,
    today: new Date().toISOString().slice(0, 10),
    orderIdField: config.orderIdField as CustomFieldName,
    maxCallsPerSecond: config.worker.maxSupplierCallsPerSecond,
    nowMs: Date.now(),
    ...(inactive === undefined ? {} : { inactive }),
  });
  if (options === undefined || selection.accounts === undefined) {
    // Every problem with the flags (there is at least one), in one line naming each.
    const all = [...selection.issues, ...issues];
    throw usageError(all.map((i) => `${i.field}: ${i.message}`).join('; '), all);
  }
  return { options, accounts: selection.accounts };
}

async function doctor(ctx: CliContext, flags: Flags): Promise<ExitCode> {
  const { options, accounts } = doctorInput(ctx, flags);
  const how = options.book ? ' with a test booking' : ' (read-only)';
  const run = await runAccounts(accounts, options, (a) =>
    ctx.note(`Checking supplier account "${a.id}" at ${new URL(a.hotelApi.baseUrl).origin}${how}…`),
  );
  ctx.emit(doctorJson(run), () => renderDoctorRun(run));
  for (const report of run.accounts) {
    const loud = leftBehindLine(report);
    if (loud !== undefined) ctx.io.stderr(`${loud}\n`);
  }
  return run.exitCode as ExitCode;
}

async function doctorNamespace(ctx: CliContext): Promise<ExitCode> {
  const config = ctx.config;
  const { address, namespace, taskQueue } = config.temporal;
  ctx.note(
    `Checking namespace '${namespace}' at ${address}, task queue '${taskQueue}' (read-only)…`,
  );
  const report = await runNamespaceDoctor(config);
  ctx.emit(report, () => renderNamespaceReport(report));
  return report.exitCode as ExitCode;
}

export function registerDoctorCommand(program: Command, run: CommandRunner): void {
  const doctorCommand = program
    .command('doctor')
    .description(
      'Check each configured supplier account (HOTEL_API_*, SUPPLIER_ACCOUNTS) against the product; read-only unless --book',
    )
    .option('--supplier <account>', 'check this account only (default: every configured account)')
    .option('--country <code>', 'country whose content list is paged', 'IT')
    .option('--property <id>', 'property to search (default: the first of the content list)')
    .option('--checkin <date>', `check-in, YYYY-MM-DD (default: in 60 days)`)
    .option('--checkout <date>', 'check-out, YYYY-MM-DD (default: 2 nights after check-in)')
    .option('--occupancy <rooms>', 'one per room, e.g. 2 or 2-5,7 (repeatable; default 2)', collect)
    .option('--samples <n>', 'further calls per read endpoint for latency', '3')
    .option('--inactive-key <key>', "an inactive account's key, to see its refusal")
    .option('--inactive-secret-file <path>', "that account's secret, read from a file")
    .option(
      '--book',
      'make one test booking and cancel it (with --property/--checkin, or --option)',
    )
    .option('--option <id>', 'the room option to book (an availability room id)')
    .option('--order-id <id>', 'order id written into the test booking (default doctor-<time>)')
    .addHelpText(
      'after',
      '\nExit codes (the worst of the accounts checked): 0 nothing would break bookings; 1 something would; 2 unreachable, not authenticated or bad flags.\nSee docs/doctor.md.',
    )
    .action((flags: Flags) => run((ctx) => doctor(ctx, flags)));
  doctorCommand
    .command('namespace')
    .description(
      'Check the configured Temporal namespace (TEMPORAL_*) before go-live: connection, search attributes, retention, workers polling, payload keys, codec server; read-only',
    )
    .addHelpText(
      'after',
      '\nExit codes: 0 nothing would break bookings; 1 something would; 2 Temporal unreachable or refused this identity, or bad configuration.\nPrepare the namespace first with: setup. See docs/doctor.md.',
    )
    .action(() => run((ctx) => doctorNamespace(ctx)));
}

/**
 * `hotel-booking doctor` over the supplier accounts: every configured one or the one `--supplier`
 * names, each with every check of run-doctor.ts; the run's exit code is the worst of theirs. A
 * disabled account is checked too: its running orders still call it.
 */
import type { SupplierAccount } from '../config/accounts';
import { accountSettings } from './account-settings';
import { DoctorExit } from './check-result';
import type { DoctorInputIssue } from './doctor-input';
import { type DoctorOptions, type DoctorReport, runDoctor } from './run-doctor';

/** One account's report: the doctor's, under the account's id. */
export interface AccountReport extends DoctorReport {
  readonly id: string;
  /** false: the account takes no new orders (its running orders still call it). */
  readonly enabled: boolean;
}

/** A run over one account or several. */
export interface DoctorRunReport {
  /** In the order of the configuration: the default account first. */
  readonly accounts: readonly AccountReport[];
  /** The worst of the accounts' exit codes. */
  readonly exitCode: DoctorExit;
}

/**
 * The run in `--json`: `accounts` and `exitCode`; with one account checked, that account's
 * report at the top level too (`supplier`, `checks`, `skipped`, `stop`, `leftBehind`), the shape
 * the doctor had before accounts.
 */
export type DoctorJson = DoctorRunReport & Partial<Omit<DoctorReport, 'exitCode'>>;

/** The flags that name one supplier environment's things, so one account's. */
export const ONE_ACCOUNT_FLAGS = [
  '--option',
  '--order-id',
  '--inactive-key',
  '--inactive-secret-file',
] as const;

/** 2 over 1 over 0: the worst verdict wins (the codes are ordered so). */
export function worstExit(codes: readonly DoctorExit[]): DoctorExit {
  return Math.max(DoctorExit.OK, ...codes) as DoctorExit;
}

/**
 * The accounts to check: `supplier`'s alone, else every one. An unknown id is a problem naming
 * `--supplier` and the configured ids; so is a flag of {@link ONE_ACCOUNT_FLAGS} (those in
 * `given`) when several accounts would be checked. Pure.
 */
export function accountsToCheck(input: {
  readonly supplier?: string;
  readonly accounts: readonly SupplierAccount[];
  readonly given: readonly string[];
}): { accounts?: readonly SupplierAccount[]; issues: DoctorInputIssue[] } {
  const configured = `configured: ${input.accounts.map((a) => a.id).join(', ')}`;
  const { supplier } = input;
  if (supplier !== undefined) {
    const account = input.accounts.find((a) => a.id === supplier);
    if (account !== undefined) return { accounts: [account], issues: [] };
    const shown = JSON.stringify(supplier.slice(0, 40));
    return { issues: [{ field: '--supplier', message: `no account ${shown} (${configured})` }] };
  }
  if (input.accounts.length <= 1) return { accounts: input.accounts, issues: [] };
  const issues = input.given.map((field) => ({
    field,
    message: `applies to one account: add --supplier <id> (${configured})`,
  }));
  return issues.length > 0 ? { issues } : { accounts: input.accounts, issues };
}

/** The options for `account`; with several checked, each test booking's order id ends with its id. */
export function optionsFor(
  account: SupplierAccount,
  options: DoctorOptions,
  several: boolean,
): DoctorOptions {
  const book = options.book;
  return {
    ...options,
    maxCallsPerSecond: account.maxCallsPerSecond,
    settings: accountSettings(account.id),
    ...(book !== undefined && several
      ? { book: { ...book, orderId: `${book.orderId}-${account.id}` } }
      : {}),
  };
}

/** Checks each account in turn (`onAccount` is told as each starts). */
export async function runAccounts(
  accounts: readonly SupplierAccount[],
  options: DoctorOptions,
  onAccount: (account: SupplierAccount) => void = () => undefined,
): Promise<DoctorRunReport> {
  const reports: AccountReport[] = [];
  for (const account of accounts) {
    onAccount(account);
    const o = optionsFor(account, options, accounts.length > 1);
    const report = await runDoctor(account.hotelApi, o);
    reports.push({ id: account.id, enabled: account.enabled, ...report });
  }
  return { accounts: reports, exitCode: worstExit(reports.map((r) => r.exitCode)) };
}

/** The run as `--json` prints it ({@link DoctorJson}). */
export function doctorJson(run: DoctorRunReport): DoctorJson {
  const [only, ...more] = run.accounts;
  if (only === undefined || more.length > 0) return run;
  const { id: _id, enabled: _enabled, exitCode: _exitCode, ...single } = only;
  return { ...single, accounts: run.accounts, exitCode: run.exitCode };
}

/** `doctor` over the supplier accounts (docs/doctor.md); a disabled one too: its orders call it. */
import type { SupplierAccount } from '../config/accounts';
import type { FieldIssue } from '../shared/booking-values';
import { accountSettings } from './account-settings';
import { DoctorExit } from './check-result';
import { type DoctorOptions, type DoctorReport, runDoctor } from './run-doctor';

export interface AccountReport extends DoctorReport {
  readonly id: string;
  /** false: the account takes no new orders (its running orders still call it). */
  readonly enabled: boolean;
}

export interface DoctorRunReport {
  /** In the order of the configuration: the default account first. */
  readonly accounts: readonly AccountReport[];
  /** The worst of the accounts' exit codes. */
  readonly exitCode: DoctorExit;
}

/** The run in `--json`; with one account checked, its report at the top level too. */
export type DoctorJson = DoctorRunReport & Partial<Omit<DoctorReport, 'exitCode'>>;

/** The flags that name one supplier environment's things, so one account's, and their options. */
export const ONE_ACCOUNT_FLAGS = {
  '--option': 'option',
  '--order-id': 'orderId',
  '--inactive-key': 'inactiveKey',
  '--inactive-secret-file': 'inactiveSecretFile',
} as const;

/** 2 over 1 over 0: the worst verdict wins (the codes are ordered so). */
export function worstExit(codes: readonly DoctorExit[]): DoctorExit {
  return Math.max(DoctorExit.OK, ...codes) as DoctorExit;
}

/**
 * The accounts to check: `supplier`'s alone, else every one. An unknown id is a problem, and so is
 * a flag of {@link ONE_ACCOUNT_FLAGS} (in `given`) with several accounts; each names the ids. Pure.
 */
export function accountsToCheck(input: {
  readonly supplier?: string;
  readonly accounts: readonly SupplierAccount[];
  readonly given: readonly string[];
}): { accounts?: readonly SupplierAccount[]; issues: FieldIssue[] } {
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

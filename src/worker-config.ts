/**
 * The worker's configuration: {@link loadConfig}'s, with every HTTP timeout an activity would cut
 * short refused (naming its variable, or the account and its field), and the shutdown grace
 * derived from the longest booking timeout when unset.
 */
import { collectProblems, ConfigError, loadConfig, type SupplierAccount } from './config';
import { DEFAULT_SUPPLIER_ACCOUNT } from './shared/supplier-accounts';
import { clientTimeoutProblems, shutdownGraceMsFor } from './workflows/activity-options';

/** `clientTimeoutProblems` names the default account's variables; an account's fields are these. */
const ACCOUNT_FIELDS: Readonly<Record<string, string>> = {
  HOTEL_API_BOOKING_TIMEOUT_MS: 'bookingTimeoutMs',
  HOTEL_API_READ_TIMEOUT_MS: 'readTimeoutMs',
  HOTEL_API_SEARCH_TIMEOUT_MS: 'searchTimeoutMs',
};

/** A problem of `clientTimeoutProblems` about an account: its field named instead of the variable. */
function asAccountProblem(id: string, problem: string): string {
  const variable = /^([A-Z0-9_]+): /.exec(problem)?.[1];
  const field = variable === undefined ? undefined : ACCOUNT_FIELDS[variable];
  const text = field === undefined ? problem : `${field}: ${problem.slice(variable!.length + 2)}`;
  return `SUPPLIER_ACCOUNTS: account "${id}": ${text}`;
}

/** The accounts' timeout problems; one an account takes from the default's is told once, there. */
function accountTimeoutProblems(
  defaultTimeouts: SupplierAccount['hotelApi']['timeouts'],
  accounts: readonly SupplierAccount[],
): string[] {
  const ofDefault = new Set(clientTimeoutProblems(defaultTimeouts));
  return accounts
    .filter((a) => a.id !== DEFAULT_SUPPLIER_ACCOUNT)
    .flatMap((a) =>
      clientTimeoutProblems(a.hotelApi.timeouts)
        .filter((p) => !ofDefault.has(p))
        .map((p) => asAccountProblem(a.id, p)),
    );
}

export function loadWorkerConfig(source: NodeJS.ProcessEnv = process.env) {
  const problems: string[] = [];
  const config = collectProblems(() => loadConfig(source), problems);
  if (config) {
    problems.push(...clientTimeoutProblems(config.hotelApi.timeouts));
    problems.push(...accountTimeoutProblems(config.hotelApi.timeouts, config.suppliers));
  }
  if (!config || problems.length > 0) throw new ConfigError(problems);
  // Every account's booking call in flight may run to its own booking timeout: the longest one.
  const longestBookingMs = Math.max(
    config.hotelApi.timeouts.bookingMs,
    ...config.suppliers.map((a) => a.hotelApi.timeouts.bookingMs),
  );
  const shutdownGraceMs = config.worker.shutdownGraceMs ?? shutdownGraceMsFor(longestBookingMs);
  return { ...config, worker: { ...config.worker, shutdownGraceMs } };
}

export type WorkerConfig = ReturnType<typeof loadWorkerConfig>;

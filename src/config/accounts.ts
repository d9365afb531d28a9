/**
 * Supplier accounts (SUPPLIER_ACCOUNTS): each account's id, base URL, credentials, enabled flag,
 * rate cap, concurrency and timeouts. `HOTEL_API_*` and `SUPPLIER_MAX_*` configure the default.
 */
import { DEFAULT_SUPPLIER_ACCOUNT } from '../shared/supplier-accounts';
import { credentials, idOf, isRecord, MISSING, parseBaseUrl } from './account-fields';
import type { LoadAccountsOptions } from './account-fields';
import type { Env } from './env-schema';
import { shown } from './errors';
import { valueOrFile } from './value-or-file';

/** Where and how an account's client reaches the supplier (the hotel API client's config). */
export interface AccountApi {
  readonly baseUrl: string;
  readonly key: string;
  readonly secret: string;
  readonly timeouts: {
    readonly bookingMs: number;
    readonly readMs: number;
    readonly searchMs: number;
  };
  readonly clockCorrection: boolean;
  readonly maxConnections: number;
}

/** One supplier account, as the worker runs it. */
export interface SupplierAccount {
  /** `default` for the account of the `HOTEL_API_*` variables (src/shared/supplier-accounts.ts). */
  readonly id: string;
  /** A disabled account refuses new orders; its running orders go on. */
  readonly enabled: boolean;
  readonly hotelApi: AccountApi;
  /** Fleet-wide cap on this account's supplier calls per second (its task queue's rate); 0 = none. */
  readonly maxCallsPerSecond: number;
  /** Per-worker cap on this account's concurrent supplier calls. */
  readonly maxConcurrentCalls: number;
}

/** The variables read here, as src/config/env-schema.ts parses them. */
export type AccountsEnv = Pick<
  Env,
  | 'SUPPLIER_ACCOUNTS'
  | 'SUPPLIER_ACCOUNTS_FILE'
  | 'SUPPLIER_DEFAULT_ENABLED'
  | 'SUPPLIER_MAX_CALLS_PER_SECOND'
  | 'SUPPLIER_MAX_CONCURRENT_CALLS'
>;

/** The fields an account object may have, in the order the docs list them. */
const FIELDS = [
  'id',
  'baseUrl',
  'key',
  'keyFile',
  'secret',
  'secretFile',
  'enabled',
  'maxCallsPerSecond',
  'maxConcurrentCalls',
  'bookingTimeoutMs',
  'readTimeoutMs',
  'searchTimeoutMs',
  'maxConnections',
] as const;
const KNOWN: ReadonlySet<string> = new Set(FIELDS);

/** A field name safe to show as it is (one line, no surprise): anything else is not named. */
const SHOWABLE_FIELD = /^[A-Za-z_$][\w$-]{0,63}$/;

const NOT_AN_ARRAY = 'not a JSON array of accounts';

/**
 * Every supplier account: the default one first (its client's config `defaultApi`), then those of
 * `SUPPLIER_ACCOUNTS` in order, each field they leave out the default's. Each problem names the
 * variable, account and field; no key, secret or JSON text is ever in one.
 */
export function loadSupplierAccounts(
  env: AccountsEnv,
  defaultApi: AccountApi,
  problems: string[],
  options: LoadAccountsOptions = {},
): readonly SupplierAccount[] {
  const defaultAccount: SupplierAccount = {
    id: DEFAULT_SUPPLIER_ACCOUNT,
    enabled: env.SUPPLIER_DEFAULT_ENABLED,
    hotelApi: defaultApi,
    maxCallsPerSecond: env.SUPPLIER_MAX_CALLS_PER_SECOND,
    maxConcurrentCalls: env.SUPPLIER_MAX_CONCURRENT_CALLS,
  };
  const accounts: SupplierAccount[] = [defaultAccount];
  const seen = new Set<string>();
  const twice = new Set<string>();
  (readEntries(env, problems) ?? []).forEach((entry, index) => {
    const account = parseAccount(entry, index, defaultAccount, problems, options);
    const id = idOf(entry);
    if (id === undefined || id === DEFAULT_SUPPLIER_ACCOUNT) return;
    if (seen.has(id)) {
      if (!twice.has(id)) problems.push(`SUPPLIER_ACCOUNTS: account "${id}" is named twice`);
      twice.add(id);
      return;
    }
    seen.add(id);
    if (account) accounts.push(account);
  });
  return accounts;
}

/**
 * The credentials the accounts of `SUPPLIER_ACCOUNTS` lack when loaded without requiring them
 * ({@link LoadAccountsOptions}), one problem each, as loading would have named them.
 */
export function missingAccountCredentials(accounts: readonly SupplierAccount[]): string[] {
  return accounts
    .filter((a) => a.id !== DEFAULT_SUPPLIER_ACCOUNT)
    .flatMap((a) =>
      (['key', 'secret'] as const)
        .filter((name) => !a.hotelApi[name])
        .map((name) => `SUPPLIER_ACCOUNTS: account "${a.id}": ${name}: ${MISSING[name]}`),
    );
}

/** The JSON's entries, undefined when there is none or it is not an array (a problem then). */
function readEntries(env: AccountsEnv, problems: string[]): readonly unknown[] | undefined {
  const { SUPPLIER_ACCOUNTS: inline, SUPPLIER_ACCOUNTS_FILE: file } = env;
  const text = valueOrFile('SUPPLIER_ACCOUNTS', inline, file, problems);
  if (typeof text !== 'string') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    // JSON.parse's message quotes the text, which may hold a secret: never passed on.
    parsed = undefined;
  }
  if (!Array.isArray(parsed)) {
    problems.push(
      file !== undefined
        ? `SUPPLIER_ACCOUNTS_FILE: ${shown(file)} is ${NOT_AN_ARRAY}`
        : `SUPPLIER_ACCOUNTS: ${NOT_AN_ARRAY}`,
    );
    return undefined;
  }
  return parsed as unknown[];
}

/** One entry as an account, undefined when it has a problem (pushed, one line each). */
function parseAccount(
  entry: unknown,
  index: number,
  defaults: SupplierAccount,
  problems: string[],
  options: LoadAccountsOptions,
): SupplierAccount | undefined {
  if (!isRecord(entry)) {
    problems.push(`SUPPLIER_ACCOUNTS[${index}]: not an account object`);
    return undefined;
  }
  const before = problems.length;
  const id = idOf(entry);
  // Where a problem is: the account by its id, or the entry by its index; then the field.
  const where =
    id !== undefined ? `SUPPLIER_ACCOUNTS: account "${id}"` : `SUPPLIER_ACCOUNTS[${index}]`;
  const at = (field: string) => (id !== undefined ? `${where}: ${field}: ` : `${where}.${field}: `);
  checkIdAndFields(entry, id, where, at, problems);
  const baseUrl = parseBaseUrl(entry.baseUrl, at('baseUrl'), problems);
  const keys = credentials(entry, baseUrl, at, problems, options);
  const settings = accountSettings(entry, defaults, at, problems);
  if (problems.length > before || id === undefined || !baseUrl || !keys) return undefined;
  const { enabled, maxCallsPerSecond, maxConcurrentCalls, timeouts, maxConnections } = settings;
  return {
    id,
    enabled,
    hotelApi: {
      baseUrl,
      ...keys,
      timeouts,
      clockCorrection: defaults.hotelApi.clockCorrection,
      maxConnections,
    },
    maxCallsPerSecond,
    maxConcurrentCalls,
  };
}

/** The entry's id, and fields not an account's: one problem each. */
function checkIdAndFields(
  entry: Record<string, unknown>,
  id: string | undefined,
  where: string,
  at: (field: string) => string,
  problems: string[],
): void {
  if (id === undefined) {
    problems.push(
      entry.id === undefined
        ? `${at('id')}required`
        : `${at('id')}must be lower-case letters, digits and -, a letter first, at most 32 characters`,
    );
  } else if (id === DEFAULT_SUPPLIER_ACCOUNT) {
    problems.push(`${where}: the default account is configured by HOTEL_API_* (use another id)`);
  }
  for (const field of Object.keys(entry)) {
    if (KNOWN.has(field)) continue;
    problems.push(
      SHOWABLE_FIELD.test(field)
        ? `${at(field)}not a field of an account (${FIELDS.join(', ')})`
        : `${where}: a field whose name is not one of an account's (${FIELDS.join(', ')})`,
    );
  }
}

/** `enabled`, the cap, the concurrency, the timeouts and the pool, each left out the default's. */
function accountSettings(
  entry: Record<string, unknown>,
  defaults: SupplierAccount,
  at: (field: string) => string,
  problems: string[],
) {
  const positiveInt = (field: (typeof FIELDS)[number], fallback: number): number => {
    const value = entry[field];
    if (value === undefined) return fallback;
    if (typeof value === 'number' && Number.isSafeInteger(value) && value > 0) return value;
    problems.push(`${at(field)}must be a positive integer`);
    return fallback;
  };
  const enabled = entry.enabled ?? true;
  if (typeof enabled !== 'boolean') problems.push(`${at('enabled')}must be true or false`);
  const rate = entry.maxCallsPerSecond ?? 0;
  const rateOk = typeof rate === 'number' && Number.isFinite(rate) && rate >= 0;
  if (!rateOk) problems.push(`${at('maxCallsPerSecond')}must be a number, at least 0 (0 = no cap)`);
  const api = defaults.hotelApi;
  return {
    enabled: enabled === true,
    maxCallsPerSecond: rateOk ? rate : 0,
    maxConcurrentCalls: positiveInt('maxConcurrentCalls', defaults.maxConcurrentCalls),
    timeouts: {
      bookingMs: positiveInt('bookingTimeoutMs', api.timeouts.bookingMs),
      readMs: positiveInt('readTimeoutMs', api.timeouts.readMs),
      searchMs: positiveInt('searchTimeoutMs', api.timeouts.searchMs),
    },
    maxConnections: positiveInt('maxConnections', api.maxConnections),
  };
}

/**
 * Supplier accounts (SUPPLIER_ACCOUNTS): each account's id, base URL, credentials, enabled flag,
 * rate cap, concurrency and timeouts. The single-account variables (`HOTEL_API_*`,
 * `SUPPLIER_MAX_*`) configure the default account, so a deployment that never names an account
 * runs as before.
 */
import { readFileSync } from 'node:fs';
import { DEFAULT_SUPPLIER_ACCOUNT, SUPPLIER_ACCOUNT_ID } from '../shared/supplier-accounts';
import type { Env } from './env-schema';
import { shown } from './errors';
import { isLoopbackUrl } from './loopback';

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

/** Simulator credentials used when none are configured: only valid against the local simulator. */
export const DEV_CREDENTIALS = { key: 'demo-key', secret: 'demo-secret-change-me' } as const;

/** The variables read here, as src/config/env-schema.ts parses them. */
export type AccountsEnv = Pick<
  Env,
  | 'SUPPLIER_ACCOUNTS'
  | 'SUPPLIER_ACCOUNTS_FILE'
  | 'SUPPLIER_DEFAULT_ENABLED'
  | 'SUPPLIER_MAX_CALLS_PER_SECOND'
  | 'SUPPLIER_MAX_CONCURRENT_CALLS'
>;

export interface LoadAccountsOptions {
  /** As `loadConfig`'s: false, an account without credentials gets empty ones. @default true */
  readonly requireSupplierCredentials?: boolean;
}

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

const MISSING = {
  key: 'required (key or keyFile)',
  secret: 'required (secret or secretFile)',
} as const;

/** A credential neither of whose forms is set. */
const ABSENT = Symbol('absent');
/** A credential with a problem, already pushed. */
const REFUSED = Symbol('refused');

/**
 * Every supplier account: the default one first (`HOTEL_API_*`, `SUPPLIER_MAX_*`, enabled unless
 * `SUPPLIER_DEFAULT_ENABLED=false`), with `defaultApi` as its client's config; then the accounts
 * of `SUPPLIER_ACCOUNTS` (or `SUPPLIER_ACCOUNTS_FILE`) in their order, each field they leave out
 * taken from the default's. Each problem is pushed as one line naming the variable, the account
 * and the field; no key, secret or JSON text is ever in one.
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
  const file = env.SUPPLIER_ACCOUNTS_FILE;
  if (env.SUPPLIER_ACCOUNTS !== undefined && file !== undefined) {
    problems.push('SUPPLIER_ACCOUNTS and SUPPLIER_ACCOUNTS_FILE: set only one of them');
    return undefined;
  }
  let text = env.SUPPLIER_ACCOUNTS;
  if (file !== undefined) {
    const read = readText(file);
    if (typeof read !== 'string') {
      problems.push(`SUPPLIER_ACCOUNTS_FILE: cannot read ${shown(file)} (${read.code})`);
      return undefined;
    }
    text = read;
  }
  if (text === undefined) return undefined;
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

function readText(path: string): string | { code: string } {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    return { code: (err as NodeJS.ErrnoException).code ?? 'error' };
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
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
  /** Where a problem is: the account by its id, or the entry by its index; then the field. */
  const where =
    id !== undefined ? `SUPPLIER_ACCOUNTS: account "${id}": ` : `SUPPLIER_ACCOUNTS[${index}]: `;
  const at = (field: string) =>
    id !== undefined
      ? `SUPPLIER_ACCOUNTS: account "${id}": ${field}: `
      : `SUPPLIER_ACCOUNTS[${index}].${field}: `;
  if (id === undefined) {
    problems.push(
      entry.id === undefined
        ? `${at('id')}required`
        : `${at('id')}must be lower-case letters, digits and -, a letter first, at most 32 characters`,
    );
  } else if (id === DEFAULT_SUPPLIER_ACCOUNT) {
    problems.push(
      `SUPPLIER_ACCOUNTS: account "${id}": the default account is configured by HOTEL_API_* (use another id)`,
    );
  }
  for (const field of Object.keys(entry)) {
    if (KNOWN.has(field)) continue;
    problems.push(
      SHOWABLE_FIELD.test(field)
        ? `${at(field)}not a field of an account (${FIELDS.join(', ')})`
        : `${where}a field whose name is not one of an account's (${FIELDS.join(', ')})`,
    );
  }

  const baseUrl = parseBaseUrl(entry.baseUrl, at('baseUrl'), problems);
  const loopback = baseUrl !== undefined && isLoopbackUrl(baseUrl);
  let key = credential(entry, 'key', at, problems);
  let secret = credential(entry, 'secret', at, problems);
  if (key === ABSENT && secret === ABSENT && loopback) {
    ({ key, secret } = DEV_CREDENTIALS);
  }
  if (options.requireSupplierCredentials === false) {
    if (key === ABSENT) key = '';
    if (secret === ABSENT) secret = '';
  } else {
    if (key === ABSENT) problems.push(`${at('key')}${MISSING.key}`);
    if (secret === ABSENT) problems.push(`${at('secret')}${MISSING.secret}`);
  }

  const positiveInt = (field: (typeof FIELDS)[number], fallback: number): number => {
    const value = entry[field];
    if (value === undefined) return fallback;
    if (typeof value === 'number' && Number.isSafeInteger(value) && value > 0) return value;
    problems.push(`${at(field)}must be a positive integer`);
    return fallback;
  };
  const enabled = entry.enabled === undefined ? true : entry.enabled;
  if (typeof enabled !== 'boolean') problems.push(`${at('enabled')}must be true or false`);
  const rate = entry.maxCallsPerSecond === undefined ? 0 : entry.maxCallsPerSecond;
  if (typeof rate !== 'number' || !Number.isFinite(rate) || rate < 0) {
    problems.push(`${at('maxCallsPerSecond')}must be a number, at least 0 (0 = no cap)`);
  }
  const api = defaults.hotelApi;
  const maxConcurrentCalls = positiveInt('maxConcurrentCalls', defaults.maxConcurrentCalls);
  const timeouts = {
    bookingMs: positiveInt('bookingTimeoutMs', api.timeouts.bookingMs),
    readMs: positiveInt('readTimeoutMs', api.timeouts.readMs),
    searchMs: positiveInt('searchTimeoutMs', api.timeouts.searchMs),
  };
  const maxConnections = positiveInt('maxConnections', api.maxConnections);

  if (
    problems.length > before ||
    id === undefined ||
    baseUrl === undefined ||
    typeof key !== 'string' ||
    typeof secret !== 'string' ||
    typeof enabled !== 'boolean' ||
    typeof rate !== 'number'
  ) {
    return undefined;
  }
  return {
    id,
    enabled,
    hotelApi: {
      baseUrl,
      key,
      secret,
      timeouts,
      clockCorrection: api.clockCorrection,
      maxConnections,
    },
    maxCallsPerSecond: rate,
    maxConcurrentCalls,
  };
}

/** An entry's id when it is a usable one (SUPPLIER_ACCOUNT_ID). */
function idOf(entry: unknown): string | undefined {
  if (!isRecord(entry)) return undefined;
  const id = entry.id;
  return typeof id === 'string' && SUPPLIER_ACCOUNT_ID.test(id) ? id : undefined;
}

/** `baseUrl`: an http(s) URL, plain http:// only on a loopback host. */
function parseBaseUrl(value: unknown, at: string, problems: string[]): string | undefined {
  if (value === undefined) {
    problems.push(`${at}required (the supplier's base URL, https://)`);
    return undefined;
  }
  let url: URL | undefined;
  try {
    url = typeof value === 'string' ? new URL(value) : undefined;
  } catch {
    url = undefined;
  }
  if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    problems.push(`${at}must be an https:// URL (http:// on a loopback host)`);
    return undefined;
  }
  if (url.protocol === 'http:' && !isLoopbackUrl(value as string)) {
    problems.push(`${at}plain http:// only on a loopback host; use https://`);
    return undefined;
  }
  return value as string;
}

/**
 * `key` or `keyFile` (`secret` or `secretFile`): the value, {@link ABSENT} when neither is set,
 * {@link REFUSED} when one has a problem (pushed). The value is never in a problem; a path is.
 */
function credential(
  entry: Record<string, unknown>,
  name: 'key' | 'secret',
  at: (field: string) => string,
  problems: string[],
): string | typeof ABSENT | typeof REFUSED {
  const fileField = `${name}File` as const;
  const inline = entry[name];
  const file = entry[fileField];
  if (inline !== undefined && file !== undefined) {
    problems.push(`${at(name)}set ${name} or ${fileField}, not both`);
    return REFUSED;
  }
  if (file !== undefined) {
    if (typeof file !== 'string' || file === '') {
      problems.push(`${at(fileField)}must be the path of a file holding the ${name}`);
      return REFUSED;
    }
    const read = readText(file);
    if (typeof read !== 'string') {
      problems.push(`${at(fileField)}cannot read ${shown(file)} (${read.code})`);
      return REFUSED;
    }
    const value = read.trim();
    if (value !== '') return value;
    problems.push(`${at(fileField)}${shown(file)} is empty`);
    return REFUSED;
  }
  if (inline === undefined) return ABSENT;
  if (typeof inline !== 'string' || inline.trim() === '') {
    problems.push(`${at(name)}must be a non-empty string`);
    return REFUSED;
  }
  return inline;
}

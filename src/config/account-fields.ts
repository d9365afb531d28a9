/**
 * Reading one account's fields of SUPPLIER_ACCOUNTS (accounts.ts): its id, base URL and
 * credentials, each problem pushed as one line; a key or a secret is never in one, a path is.
 */
import { SUPPLIER_ACCOUNT_ID } from '../shared/supplier-accounts';
import { shown } from './errors';
import { isLoopbackUrl } from './loopback';
import { readText } from './value-or-file';

/** Simulator credentials used when none are configured: only valid against the local simulator. */
export const DEV_CREDENTIALS = { key: 'demo-key', secret: 'demo-secret-change-me' } as const;

export const MISSING = {
  key: 'required (key or keyFile)',
  secret: 'required (secret or secretFile)',
} as const;

export interface LoadAccountsOptions {
  /**
   * Whether missing supplier credentials are an error now. Tools that may only talk to Temporal
   * load without them (an account without credentials gets empty ones) and call
   * `assertSupplierCredentials` before a supplier call. @default true
   */
  readonly requireSupplierCredentials?: boolean;
}

/** A credential as read: its value, undefined when it is not set, null after a problem (pushed). */
type ReadCredential = string | null | undefined;

/** A plain JSON object. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An entry's id when it is a usable one (SUPPLIER_ACCOUNT_ID). */
export function idOf(entry: unknown): string | undefined {
  if (!isRecord(entry)) return undefined;
  return typeof entry.id === 'string' && SUPPLIER_ACCOUNT_ID.test(entry.id) ? entry.id : undefined;
}

/** `baseUrl`: an http(s) URL, plain http:// only on a loopback host. */
export function parseBaseUrl(value: unknown, at: string, problems: string[]): string | undefined {
  if (value === undefined) {
    problems.push(`${at}required (the supplier's base URL, https://)`);
    return undefined;
  }
  const url = typeof value === 'string' && URL.canParse(value) ? new URL(value) : undefined;
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

/** `key` or `keyFile` (`secret` or `secretFile`). The value is never in a problem; a path is. */
function credential(
  entry: Record<string, unknown>,
  name: 'key' | 'secret',
  at: (field: string) => string,
  problems: string[],
): ReadCredential {
  const fileField = `${name}File` as const;
  const inline = entry[name];
  const file = entry[fileField];
  if (inline !== undefined && file !== undefined) {
    problems.push(`${at(name)}set ${name} or ${fileField}, not both`);
    return null;
  }
  if (file !== undefined) {
    if (typeof file !== 'string' || file === '') {
      problems.push(`${at(fileField)}must be the path of a file holding the ${name}`);
      return null;
    }
    const read = readText(file);
    if (typeof read !== 'string') {
      problems.push(`${at(fileField)}cannot read ${shown(file)} (${read.code})`);
      return null;
    }
    const value = read.trim();
    if (value !== '') return value;
    problems.push(`${at(fileField)}${shown(file)} is empty`);
    return null;
  }
  if (inline === undefined) return undefined;
  if (typeof inline !== 'string' || inline.trim() === '') {
    problems.push(`${at(name)}must be a non-empty string`);
    return null;
  }
  return inline;
}

/**
 * A key and secret as read, completed: the simulator's demo ones on a loopback `baseUrl` that
 * names neither, empty ones when loaded without requiring them, else the `missing` problem of each
 * one unset or empty; undefined after a problem. The default account's and every other's.
 */
export function completeCredentials(
  read: { readonly key: ReadCredential; readonly secret: ReadCredential },
  baseUrl: string | undefined,
  options: LoadAccountsOptions,
  missing: { readonly key: string; readonly secret: string },
  problems: string[],
): { key: string; secret: string } | undefined {
  const unset = read.key === undefined && read.secret === undefined;
  const given = unset && baseUrl !== undefined && isLoopbackUrl(baseUrl) ? DEV_CREDENTIALS : read;
  const complete = (name: 'key' | 'secret'): string | undefined => {
    const value = given[name];
    if (value === null) return undefined;
    if (value) return value;
    if (options.requireSupplierCredentials === false) return value ?? '';
    problems.push(missing[name]);
    return undefined;
  };
  const key = complete('key');
  const secret = complete('secret');
  return key !== undefined && secret !== undefined ? { key, secret } : undefined;
}

/** The account's key and secret ({@link completeCredentials}); undefined after a problem. */
export function credentials(
  entry: Record<string, unknown>,
  baseUrl: string | undefined,
  at: (field: string) => string,
  problems: string[],
  options: LoadAccountsOptions,
): { key: string; secret: string } | undefined {
  const read = {
    key: credential(entry, 'key', at, problems),
    secret: credential(entry, 'secret', at, problems),
  };
  const missing = { key: `${at('key')}${MISSING.key}`, secret: `${at('secret')}${MISSING.secret}` };
  return completeCredentials(read, baseUrl, options, missing, problems);
}
